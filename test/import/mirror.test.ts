/**
 * Import is the mirror of export: for every example, `export --openapi` then `import` gives
 * back the spec it came from, compared as models (the nine parts, pointers and source
 * positions aside); the same for `export --asyncapi`, whose import gives part 6 alone or
 * merged into an OpenAPI import (`--events`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { toAsyncApi, toOpenApi } from '../../src/export/index.ts';
import { importOpenApi } from '../../src/import/index.ts';
import type { Spec } from '../../src/spec/model.ts';
import { PART_NAMES } from '../../src/spec/parts.ts';
import { EXAMPLES, GAP_CASES, example } from '../export/support.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-mirror-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The model without where it came from: pointers and the source are the text's, not the
 * spec's, and a part's `prose` is the Markdown form's own wording around it (YAML has none).
 */
function model(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(model);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'pointer' || k === 'source' || k === 'prose' || typeof v === 'function') continue;
    out[k] = model(v);
  }
  return out;
}

/** Every part, each compared on its own so that a difference names the part it is in. */
function assertSameSpec(actual: Spec, expected: Spec): void {
  // A Markdown spec names no format version; the imported YAML is written in format 1 and says so.
  assert.equal(actual.formatVersion, expected.formatVersion ?? '1', 'format version');
  assert.equal(actual.title, expected.title, 'title');
  assert.deepEqual(model(actual.parts), model(expected.parts), 'part statements');
  const parts: Record<string, [unknown, unknown]> = {
    purpose: [actual.purpose, expected.purpose],
    resources: [actual.resources, expected.resources],
    states: [actual.states, expected.states],
    endpoints: [actual.endpoints, expected.endpoints],
    authentication: [actual.authentication, expected.authentication],
    events: [actual.events, expected.events],
    errors: [actual.errors, expected.errors],
    limits: [actual.limits, expected.limits],
    versioning: [actual.versioning, expected.versioning],
  };
  for (const part of PART_NAMES) assert.deepEqual(model(parts[part][0]), model(parts[part][1]), `part ${part} differs`);
  // Nothing outside the nine parts either (a member added to Spec is compared too).
  assert.deepEqual(model({ ...actual, formatVersion: undefined }), model({ ...expected, formatVersion: undefined }));
}

async function roundTrip(name: string, document: Record<string, unknown>, options: { events?: string } = {}) {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(document));
  const r = await importOpenApi(file, options);
  assert.ok(r.value, `${name} did not import: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  return r;
}

for (const name of EXAMPLES) {
  test(`mirror: ${name} exported to OpenAPI and imported is the same spec`, async () => {
    const spec = await example(name);
    const r = await roundTrip(`${name}.openapi.json`, toOpenApi(spec).document as Record<string, unknown>);
    assert.ok(r.diagnostics.some((d) => d.code === 'import-carried'), 'the import says it read the extensions');
    assertSameSpec(r.value!.spec, spec);
  });

  test(`mirror: ${name} exported to AsyncAPI and imported gives part 6, alone or merged`, async () => {
    const spec = await example(name);
    const asyncFile = join(dir, `${name}.asyncapi.json`);
    writeFileSync(asyncFile, JSON.stringify(toAsyncApi(spec).document));
    const alone = await importOpenApi(asyncFile);
    assert.ok(alone.value, alone.diagnostics.map((d) => d.message).join('; '));
    assert.equal(alone.value.spec.parts.events.statement, spec.parts.events.statement);
    assert.deepEqual(model(alone.value.spec.events), model(spec.events));
    for (const part of PART_NAMES) if (part !== 'events') assert.equal(alone.value.spec.parts[part].statement, 'gap', `${part} is a gap in an AsyncAPI import`);
    // Merged into the OpenAPI import, the events of the AsyncAPI document replace the OpenAPI's own.
    const document = toOpenApi(spec).document as Record<string, unknown>;
    delete document['x-svcspec-events'];
    const merged = await roundTrip(`${name}.merged.json`, document, { events: asyncFile });
    assertSameSpec(merged.value!.spec, spec);
  });
}

for (const [name, make] of Object.entries(GAP_CASES)) {
  test(`mirror: ${name}`, async () => {
    const spec = make();
    const r = await roundTrip('gaps.openapi.json', toOpenApi(spec).document as Record<string, unknown>);
    assertSameSpec(r.value!.spec, spec);
  });
}

test('mirror: an operation added to an exported document by hand is reported, not silently dropped', async () => {
  const spec = await example('library.yaml');
  const document = toOpenApi(spec).document as Record<string, any>;
  document.paths['/shelves'] = { get: { responses: { 200: { description: 'Shelves.' } } } };
  const r = await roundTrip('edited.json', document);
  const extra = r.diagnostics.find((d) => d.code === 'import-carried-extra');
  assert.ok(extra, 'reported');
  assert.match(extra.message, /GET \/shelves/);
});

test('mirror: an extension that breaks the format is an error pointing at it, not a crash', async () => {
  const spec = await example('orders.yaml');
  const document = toOpenApi(spec).document as Record<string, any>;
  document['x-svcspec-limits'] = { rate: 'lots' };
  const file = join(dir, 'broken.json');
  writeFileSync(file, JSON.stringify(document));
  const r = await importOpenApi(file);
  assert.equal(r.value, undefined);
  const d = r.diagnostics.find((x) => x.code === 'import-carried-invalid');
  assert.ok(d, r.diagnostics.map((x) => x.code).join(', '));
  assert.equal(d.pointer, '/x-svcspec-limits');
});

test('mirror: domain rules (uniqueness, CEL rules, managed fields, guards, effects) travel with the spec', async () => {
  const spec = await example('library.yaml');
  const withRules = spec.resources.filter((r) => r.rules.length > 0 || r.unique.length > 0);
  assert.ok(withRules.length > 0, 'the example declares domain rules');
  assert.ok(spec.resources.some((r) => r.fields.some((f) => f.managed !== undefined)), 'the example declares managed fields');
  const r = await roundTrip('rules.openapi.json', toOpenApi(spec).document as Record<string, unknown>);
  for (const resource of withRules) {
    const back = r.value!.spec.resources.find((x) => x.name === resource.name)!;
    assert.deepEqual(model({ rules: back.rules, unique: back.unique, managed: back.fields.map((f) => f.managed) }), model({ rules: resource.rules, unique: resource.unique, managed: resource.fields.map((f) => f.managed) }), resource.name);
  }
  assertSameSpec(r.value!.spec, spec);
});

test('mirror: the comparison sees a difference in a field (it is not vacuous)', async () => {
  const spec = await example('orders.yaml');
  const document = toOpenApi(spec).document as Record<string, any>;
  const resources = document['x-svcspec-resources'] as Record<string, any>;
  const [name, resource] = Object.entries(resources)[0];
  resource.description = `${resource.description ?? ''} (edited)`;
  const r = await roundTrip('changed.json', document);
  assert.throws(() => assertSameSpec(r.value!.spec, spec), new RegExp(`part resources differs`), name);
});
