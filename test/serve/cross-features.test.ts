/**
 * Where the open surface's features meet (issue #13): bulk creates through a parent, of a
 * perOwner: one resource and of records that follow their parent's owner; actions on a nested
 * record and on a nested collection. Each is held to what its single-record form promises,
 * over real HTTP (test/serve/fixtures/clinic-open.yaml).
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { loadSpec } from '../../src/load/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders } from './support/credentials.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/clinic-open.yaml', import.meta.url));

async function serve(t: TestContext) {
  const loaded = await loadSpec(FIXTURE);
  assert.ok(loaded.value, loaded.diagnostics.map((d) => d.message).join('; '));
  const spec = loaded.value;
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => { await app.close(); await store.close(); });
  const ann = await credentialHeaders(spec, store, { principal: 'ann' });
  const bob = await credentialHeaders(spec, store, { principal: 'bob' });
  const call = async (method: string, path: string, body?: unknown, as: Record<string, string> = ann) => {
    const r = await fetch(base + path, { method, headers: { ...as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  return { call, ann, bob };
}

test('a bulk create through a parent: the parent must exist, every item is its child, an item naming another parent is refused at its ref', async (t) => {
  const { call } = await serve(t);
  const p1 = (await call('POST', '/patients', { name: 'Ada' })).body.id;
  const p2 = (await call('POST', '/patients', { name: 'Bo' })).body.id;
  assert.equal((await call('POST', '/patients/999/appointments/bulk', { items: [{ day: '2026-12-01' }] })).status, 404, 'no such parent');
  const other = await call('POST', `/patients/${p1}/appointments/bulk`, { items: [{ day: '2026-12-01' }, { day: '2026-12-02', patient: p2 }] });
  assert.equal(other.status, 422);
  assert.equal(other.body.errors[0].pointer, '/items/1/patient');
  assert.equal((await call('GET', `/patients/${p1}/appointments`)).body.items.length, 0, 'all or nothing');
  const made = await call('POST', `/patients/${p1}/appointments/bulk`, { items: [{ day: '2026-12-01' }, { day: '2026-12-02' }] });
  assert.equal(made.status, 201);
  assert.deepEqual(made.body.items.map((a: { patient: number }) => a.patient), [p1, p1], 'the ref comes from the path');
});

test('a bulk create of a perOwner: one resource holds one record, and only while the caller has none', async (t) => {
  const { call } = await serve(t);
  const two = await call('POST', '/profiles/bulk', { items: [{ displayName: 'A' }, { displayName: 'B' }] });
  assert.equal(two.status, 422);
  assert.equal(two.body.errors[0].pointer, '/items');
  assert.equal((await call('POST', '/profiles/bulk', { items: [{ displayName: 'A' }] })).status, 201);
  assert.equal((await call('POST', '/profiles/bulk', { items: [{ displayName: 'B' }] })).status, 409, 'a second one, as a second create');
});

test("a bulk create of records that follow their parent's owner never names another principal's parent", async (t) => {
  const { call, bob } = await serve(t);
  const annsJournal = (await call('POST', '/journals', { title: "Ann's" })).body.id;
  const refused = await call('POST', '/entries/bulk', { items: [{ journal: annsJournal, text: 'sneaky' }] }, bob);
  assert.equal(refused.status, 422, 'as a create through /entries is');
  assert.equal(refused.body.errors[0].pointer, '/items/0/journal');
  assert.equal((await call('POST', '/entries', { journal: annsJournal, text: 'sneaky' }, bob)).status, 422);
  assert.equal((await call('POST', '/entries/bulk', { items: [{ journal: annsJournal, text: 'mine' }] })).status, 201, 'the owner may');
});

test('an action on a nested record is 404 through a parent it does not belong to; a nested collection action is not taken for a record action', async (t) => {
  const { call } = await serve(t);
  const p1 = (await call('POST', '/patients', { name: 'Ada' })).body.id;
  const p2 = (await call('POST', '/patients', { name: 'Bo' })).body.id;
  const a = (await call('POST', `/patients/${p1}/appointments`, { day: '2026-12-01' })).body.id;
  assert.equal((await call('POST', `/patients/${p2}/appointments/${a}/remind`)).status, 404, 'another parent');
  assert.equal((await call('POST', `/patients/999/appointments/${a}/remind`)).status, 404, 'no such parent');
  assert.equal((await call('POST', `/patients/${p1}/appointments/${a}/remind`)).status, 501, 'its own parent: the prose action is reached');
  assert.equal((await call('POST', `/patients/${p1}/appointments/preview`)).status, 501, 'a collection action under an existing parent');
  assert.equal((await call('POST', '/patients/999/appointments/preview')).status, 404, 'under no parent');
});

test("a bulk update or delete through a parent reaches only that parent's records, and moves none to another", async (t) => {
  const { call } = await serve(t);
  const p1 = (await call('POST', '/patients', { name: 'Ada' })).body.id;
  const p2 = (await call('POST', '/patients', { name: 'Bo' })).body.id;
  const mine = (await call('POST', `/patients/${p1}/appointments`, { day: '2026-12-01' })).body.id;
  const theirs = (await call('POST', `/patients/${p2}/appointments`, { day: '2026-12-02' })).body.id;
  const other = await call('PATCH', `/patients/${p1}/appointments`, { items: [{ id: mine, reason: 'x' }, { id: theirs, reason: 'y' }] });
  assert.equal(other.status, 422);
  assert.equal(other.body.errors[0].pointer, '/items/1/id', "another parent's record is as good as none");
  const moved = await call('PATCH', `/patients/${p1}/appointments`, { items: [{ id: mine, patient: p2 }] });
  assert.equal(moved.status, 422, 'a patch may not move a record to another parent');
  assert.equal((await call('GET', `/appointments/${mine}`)).body.patient, p1);
  assert.equal((await call('POST', `/patients/${p1}/appointments/bulk-delete`, { items: [theirs] })).status, 422);
  assert.equal((await call('GET', `/appointments/${theirs}`)).status, 200, 'kept');
  assert.equal((await call('PATCH', `/patients/${p1}/appointments`, { items: [{ id: mine, reason: 'checked' }] })).status, 200);
  assert.equal((await call('POST', `/patients/${p1}/appointments/bulk-delete`, { items: [mine] })).status, 204);
});
