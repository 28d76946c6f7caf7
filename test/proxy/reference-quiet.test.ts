/**
 * Requests the tester never sends, through the proxy to the reference service, find nothing
 * (walks of the installed package found each): a merge patch removing members with null
 * (RFC 7396 §2), of every field or of the fields an update lists; an update listing fields
 * sent without a body; a nested create whose ref its path gives; paths with a trailing slash,
 * which the spec does not declare.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startProxy } from '../../src/proxy/index.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from '../conformance/support.ts';

const SPEC = `svcspec: 1
purpose: {name: Parcels, summary: Sends parcels., users: [{name: clerk, tasks: [send a parcel]}]}
resources:
  parcel:
    plural: parcels
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      to: {type: string, minLength: 1, required: true}
      note: {type: string, maxLength: 200}
      service: {type: string, enum: [standard, express], default: standard, required: true}
      size: {type: object, properties: {weight: {type: number, required: true}, label: {type: string}}}
  label:
    plural: labels
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      parcel: {type: ref, resource: parcel, required: true}
      text: {type: string, minLength: 1, required: true}
      note: {type: string}
states: {none: Parcels have no life cycle.}
endpoints:
  parcel: [create, read, update, delete, list]
  label:
    create: {path: "/parcels/{parcelId}/labels"}
    read: {}
    update: {request: [text, note]}
authentication: {none: Anyone may send parcels.}
events: {none: No events.}
errors: {shape: problem, catalog: {validation-failed: {status: 422, title: Invalid}, not-found: {status: 404, title: Not found}, method-not-allowed: {status: 405, title: Not allowed}}}
limits: {rate: {none: No limit.}, pagination: {style: cursor, defaultSize: 10, maxSize: 50, overMax: clamp}}
versioning: {none: One version.}
`;

test('proxy: null removing members in a merge patch, and trailing slashes, find nothing against the reference service', async (t) => {
  const spec = mustLoad(SPEC);
  const served = await serveForTester(t, spec);
  const proxy = await startProxy({ spec, upstream: served.baseUrl });
  t.after(() => proxy.close());
  const send = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${proxy.url}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }, body: JSON.stringify(body) }) });
    return { status: r.status, json: (await r.json().catch(() => undefined)) as Record<string, unknown> | undefined };
  };
  const made = await send('POST', '/parcels', { to: 'Ada', note: 'fragile', service: 'express', size: { weight: 2, label: 'box' } });
  assert.equal(made.status, 201);
  const id = made.json!.id as string;
  const removed = await send('PATCH', `/parcels/${id}`, { note: null, size: { label: null } });
  assert.equal(removed.status, 200, JSON.stringify(removed.json));
  assert.deepEqual([removed.json!.note, removed.json!.size], [undefined, { weight: 2 }], 'removed');
  // A required field cannot be removed, a default or not: refused, as the proxy expects.
  assert.equal((await send('PATCH', `/parcels/${id}`, { to: null })).status, 422);
  assert.equal((await send('PATCH', `/parcels/${id}`, { service: null })).status, 422);
  // A nested create: its ref comes from the path, not the body.
  const label = await send('POST', `/parcels/${id}/labels`, { text: 'FRAGILE', note: 'red' });
  assert.equal(label.status, 201, JSON.stringify(label.json));
  // An update listing its fields is a merge patch too; with nothing required, no body at all is an empty one.
  assert.equal((await send('PATCH', `/labels/${label.json!.id}`, { note: null })).status, 200);
  const empty = await fetch(`${proxy.url}/labels/${label.json!.id}`, { method: 'PATCH' });
  assert.equal(empty.status, 200, await empty.text());
  for (const method of ['GET', 'PATCH', 'DELETE', 'PUT', 'POST']) assert.equal((await send(method, '/parcels/', method === 'GET' || method === 'DELETE' ? undefined : {})).status, 404, `${method} /parcels/`);
  assert.deepEqual(proxy.findings.map((f) => `${f.part}/${f.id}: ${f.message}`), []);
});
