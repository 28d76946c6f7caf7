/**
 * Fields of `type: any` (any JSON value, JSON Schema's `{}`): what OpenAPI documents write as
 * a property with no type, a bag of metadata or an identity's traits. Found by a new user's
 * walk (the Ory Kratos import): such fields were left out, so `traits`, the heart of an
 * identity, was never stored, and the create that sends it was no create. Over real HTTP:
 * served as sent whatever its value (null too), required where it says so, merged member by
 * member in a merge patch, never a filter; check refuses what cannot apply to it; the export
 * writes `{}`; the tester passes the reference.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSpec } from '../../src/check/index.ts';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { toOpenApi } from '../../src/export/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { toDocument } from '../../src/spec/serialize.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from '../conformance/support.ts';
import { freshStore } from './support/open-app.ts';

const SPEC = `svcspec: 1
purpose:
  name: Identities
  summary: Keeps identities with free-form traits.
  users:
    - name: admin
      tasks: [add an identity, change its metadata]
resources:
  identity:
    plural: identities
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      schemaId: { type: string, required: true, minLength: 1 }
      traits: { type: any, required: true, description: Whatever the identity schema asks for. }
      metadata: { type: any }
states: { none: "Identities have no life cycle." }
endpoints:
  identity: [create, read, update, list]
authentication: { none: "A test fixture on loopback." }
events: { none: "Nothing is emitted." }
errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
    traits-taken: { status: 409, title: Traits taken }
    malformed-body: { status: 400, title: Malformed body }
    not-found: { status: 404, title: Not found }
    method-not-allowed: { status: 405, title: Method not allowed }
    unsupported-media-type: { status: 415, title: Unsupported media type }
    payload-too-large: { status: 413, title: Too large }
    precondition-failed: { status: 412, title: Precondition failed }
limits: { none: "A test fixture." }
versioning: { none: "One version." }
`;

test('a field of type any is stored and answered as sent, whatever its value; required still; merged in a merge patch; no filter', async (t) => {
  const spec = mustLoad(SPEC);
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
  const store = await freshStore();
  const app = await createApp({ spec, store });
  t.after(async () => { await app.close(); await store.close(); });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, { method, headers: body === undefined ? {} : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  for (const traits of [{ email: 'ann@example.org', name: { first: 'Ann' } }, 'plain text', 42, [1, 'two', { three: 3 }], true, null]) {
    const r = await call('POST', '/identities', { schemaId: 'default', traits });
    assert.equal(r.status, 201, `${JSON.stringify(traits)}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body.traits, traits);
    assert.deepEqual((await call('GET', `/identities/${r.body.id}`)).body.traits, traits, 'read back as sent');
  }
  const missing = await call('POST', '/identities', { schemaId: 'default' });
  assert.equal(missing.status, 422);
  assert.ok(missing.body.errors.some((e: { pointer: string }) => e.pointer === '/traits'), JSON.stringify(missing.body));

  const made = await call('POST', '/identities', { schemaId: 'default', traits: {}, metadata: { plan: 'free', seats: 1 } });
  const patched = await call('PATCH', `/identities/${made.body.id}`, { metadata: { seats: 5, trial: true } });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.deepEqual(patched.body.metadata, { plan: 'free', seats: 5, trial: true }, 'RFC 7396: an object in the patch is merged member by member');

  const filtered = await call('GET', '/identities?metadata=free');
  assert.equal(filtered.status, 422, 'a value of any type is no filter');
});

test('check refuses what cannot apply to a field of type any: a text constraint, a uniqueness, a filter', () => {
  const bad = mustLoad(SPEC
    .replace('metadata: { type: any }', 'metadata: { type: any, minLength: 2 }')
    .replace("  identity: [create, read, update, list]\n", "  identity:\n    create: {}\n    read: {}\n    list: { query: { filters: { traits: [eq] } } }\n")
    .replace('      metadata: { type: any, minLength: 2 }\n', '      metadata: { type: any, minLength: 2 }\n    unique:\n      - { fields: [traits], error: traits-taken }\n'));
  const found = checkSpec(bad, []).diagnostics;
  const errors = found.filter((d) => d.severity === 'error').map((d) => d.code);
  assert.ok(errors.includes('unique-field-not-scalar'), errors.join(', '));
  // A text constraint on it is ignored by validators: warned, as on any type it does not apply to.
  assert.ok(found.some((d) => d.code === 'field-constraint-mismatch' && /metadata/.test(d.message) && /any value/.test(d.message)), found.map((d) => d.message).join('\n'));
  assert.ok(errors.some((c) => c.startsWith('list-query')), errors.join(', '));
});

test('the export writes a field of type any as the empty schema; the spec writes it back as it was', () => {
  const spec = mustLoad(SPEC);
  const doc = toOpenApi(spec).document as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };
  const schemas = Object.values(doc.components.schemas).filter((s) => s.properties?.traits);
  assert.ok(schemas.length > 0);
  for (const s of schemas) assert.equal(s.properties.traits!.type, undefined, JSON.stringify(s.properties.traits));
  const written = toDocument(spec) as { resources: { identity: { fields: { traits: { type: string } } } } };
  assert.equal(written.resources.identity.fields.traits.type, 'any');
});

test('conformance: the reference passes with fields of type any', async (t) => {
  const spec = mustLoad(SPEC);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.ok(report.results.some((r) => r.id === 'identity.create' && r.outcome === 'pass'));
});

test('a field of type any keeps its enum at serve, as export and the proxy read it; the short form `field: any` loads', async (t) => {
  const spec = mustLoad(SPEC.replace('metadata: { type: any }', "metadata: { type: any, enum: [1, 'a'] }").replace('      schemaId: { type: string, required: true, minLength: 1 }\n', '      schemaId: { type: string, required: true, minLength: 1 }\n      note: any\n'));
  assert.equal(spec.resources[0]!.fields.find((f) => f.name === 'note')?.type, 'any');
  const store = await freshStore();
  const app = await createApp({ spec, store });
  t.after(async () => { await app.close(); await store.close(); });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const post = async (metadata: unknown) => (await fetch(`${base}/identities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ schemaId: 'x', traits: {}, metadata, note: [1] }) })).status;
  assert.equal(await post('a'), 201);
  assert.equal(await post(1), 201);
  assert.equal(await post(5), 422, 'not one of the enum');
});
