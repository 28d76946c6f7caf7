/** Store contract cases: migrate, insert, get, update, remove, the JSON documents. */
import assert from 'node:assert/strict';
import { DuplicateIdError } from '../../../src/store/store.ts';
import { define, insertAll, R, seqs, type Case } from './case.ts';

export const recordCases: Case[] = [];
const it = define(recordCases);

// ---------------------------------------------------------------------------------------
// migrate

it('migrate is idempotent and keeps the records', async (store) => {
  const a = await store.insert(R, { data: { title: 'kept' } });
  await store.migrate([R]);
  await store.migrate([R, 'others', 'line-items']);
  await store.migrate([R, 'others', 'line-items']);
  assert.deepEqual(await store.get(R, a.id), a);
  const o = await store.insert('line-items', { data: { n: 1 } });
  assert.deepEqual(await store.get('line-items', o.id), o);
  assert.equal(await store.get('others', a.id), undefined, 'resources do not share records');
});

// ---------------------------------------------------------------------------------------
// insert, get

it('insert with an id stores it, version 1, the owner, the data verbatim', async (store) => {
  const r = await store.insert(R, { id: 'abc', owner: 'ann', data: { title: 'A', n: 1 } });
  assert.equal(r.id, 'abc');
  assert.equal(r.version, 1);
  assert.equal(r.owner, 'ann');
  assert.deepEqual(r.data, { title: 'A', n: 1 });
  assert.ok(Number.isSafeInteger(r.seq) && r.seq > 0);
  assert.deepEqual(await store.get(R, 'abc'), r);
});

it('insert without an owner has none', async (store) => {
  const r = await store.insert(R, { id: 'x', data: {} });
  assert.equal(r.owner, undefined);
  assert.equal((await store.get(R, 'x'))?.owner, undefined);
});

it('insert without an id assigns increasing sequence ids and adds nothing to the data', async (store) => {
  const rs = await insertAll(store, [{ t: 1 }, { t: 2 }, { t: 3 }]);
  for (const r of rs) {
    assert.match(r.id, /^[1-9][0-9]*$/);
    assert.deepEqual(Object.keys(r.data), ['t']);
  }
  const n = rs.map((r) => Number(r.id));
  assert.ok(n[0] < n[1] && n[1] < n[2], `increasing: ${n}`);
  assert.ok(rs[0].seq < rs[1].seq && rs[1].seq < rs[2].seq);
  for (const r of rs) assert.deepEqual(await store.get(R, r.id), r);
});

it('sequence ids are never reused after a delete', async (store) => {
  const [a, b] = await insertAll(store, [{ t: 'a' }, { t: 'b' }]);
  assert.deepEqual(await store.remove(R, b.id), { ok: true });
  const c = await store.insert(R, { data: { t: 'c' } });
  assert.ok(Number(c.id) > Number(b.id), `${c.id} after ${b.id}`);
  assert.ok(c.seq > b.seq);
  await store.remove(R, a.id);
  await store.remove(R, c.id);
  const d = await store.insert(R, { data: { t: 'd' } });
  assert.ok(Number(d.id) > Number(c.id) && d.seq > c.seq, 'not reused once the table is empty either');
});

it('seq increases across inserts with and without ids', async (store) => {
  const a = await store.insert(R, { id: 'k1', data: {} });
  const b = await store.insert(R, { data: {} });
  const c = await store.insert(R, { id: 'k2', data: {} });
  const d = await store.insert(R, { data: {} });
  assert.ok(a.seq < b.seq && b.seq < c.seq && c.seq < d.seq, `${seqs([a, b, c, d])}`);
  assert.ok(Number(b.id) < Number(d.id));
});

it('a duplicate id throws DuplicateIdError and changes nothing', async (store) => {
  const first = await store.insert(R, { id: 'dup', owner: 'ann', data: { v: 1 } });
  await assert.rejects(store.insert(R, { id: 'dup', owner: 'bob', data: { v: 2 } }), (e: unknown) => e instanceof DuplicateIdError);
  assert.deepEqual(await store.get(R, 'dup'), first);
  assert.equal((await store.list(R, { limit: 10 })).records.length, 1);
});

it('ids are exact text: no case folding, no number parsing', async (store) => {
  await store.insert(R, { id: 'Abc', data: { v: 1 } });
  await store.insert(R, { id: '01', data: { v: 2 } });
  assert.equal(await store.get(R, 'abc'), undefined);
  assert.equal(await store.get(R, '1'), undefined);
  assert.equal((await store.get(R, '01'))?.data.v, 2);
  const other = await store.insert(R, { id: 'abc', data: { v: 3 } });
  assert.equal(other.id, 'abc');
});

it('get of a missing id is undefined', async (store) => {
  assert.equal(await store.get(R, 'nope'), undefined);
  await store.insert(R, { id: 'yes', data: {} });
  assert.equal(await store.get(R, 'nope'), undefined);
});

// ---------------------------------------------------------------------------------------
// update

it('update replaces the data and increments the version; id, seq and owner stay', async (store) => {
  const r = await store.insert(R, { owner: 'ann', data: { a: 1, b: 2 } });
  const u = await store.update(R, r.id, { a: 3 });
  assert.ok(u.ok);
  // Its members, not its class: an adapter may return its own record objects (SQLite's parse their data lazily).
  assert.deepEqual({ ...u.record }, { id: r.id, seq: r.seq, version: 2, owner: 'ann', data: { a: 3 } });
  assert.deepEqual(await store.get(R, r.id), u.record);
  const u2 = await store.update(R, r.id, { a: 4 });
  assert.ok(u2.ok);
  assert.equal(u2.record.version, 3);
});

it('update of a missing record is missing', async (store) => {
  assert.deepEqual(await store.update(R, 'nope', { a: 1 }), { ok: false, reason: 'missing' });
  assert.deepEqual(await store.update(R, 'nope', { a: 1 }, { version: 1 }), { ok: false, reason: 'missing' });
});

it('update with a stale version returns the current record and changes nothing', async (store) => {
  const r = await store.insert(R, { data: { a: 1 } });
  const u = await store.update(R, r.id, { a: 2 }, { version: 1 });
  assert.ok(u.ok);
  const stale = await store.update(R, r.id, { a: 3 }, { version: 1 });
  assert.deepEqual(stale, { ok: false, reason: 'version', current: u.record });
  assert.deepEqual(await store.get(R, r.id), u.record);
});

it('state expectation: a transition from an allowed state succeeds, from another returns the current record', async (store) => {
  const r = await store.insert(R, { data: { status: 'draft', title: 't' } });
  const publish = await store.update(R, r.id, { status: 'published', title: 't' }, { state: { field: 'status', from: ['draft', 'review'] } });
  assert.ok(publish.ok);
  assert.equal(publish.record.data.status, 'published');
  const again = await store.update(R, r.id, { status: 'published', title: 'u' }, { state: { field: 'status', from: ['draft', 'review'] } });
  assert.deepEqual(again, { ok: false, reason: 'state', current: publish.record });
  assert.deepEqual(await store.get(R, r.id), publish.record);
});

it('state expectation on an absent or non-text state member fails as state', async (store) => {
  const a = await store.insert(R, { data: { title: 't' } });
  const b = await store.insert(R, { data: { status: 1 } });
  const from = { field: 'status', from: ['draft', '1'] };
  assert.deepEqual(await store.update(R, a.id, { status: 'x' }, { state: from }), { ok: false, reason: 'state', current: a });
  assert.deepEqual(await store.update(R, b.id, { status: 'x' }, { state: from }), { ok: false, reason: 'state', current: b });
});

it('a stale version is reported before a wrong state (RFC 9110 §13.2.2)', async (store) => {
  const r = await store.insert(R, { data: { status: 'done' } });
  const u = await store.update(R, r.id, { status: 'x' }, { version: 7, state: { field: 'status', from: ['open'] } });
  assert.deepEqual(u, { ok: false, reason: 'version', current: r });
});

it('version and state both met: the change is made', async (store) => {
  const r = await store.insert(R, { data: { status: 'open' } });
  const u = await store.update(R, r.id, { status: 'closed' }, { version: 1, state: { field: 'status', from: ['open'] } });
  assert.ok(u.ok);
  assert.equal(u.record.version, 2);
});

it('owner expectation: the owner may change it; to anyone else it is missing', async (store) => {
  const r = await store.insert(R, { owner: 'ann', data: { a: 1 } });
  assert.deepEqual(await store.update(R, r.id, { a: 2 }, { owner: 'bob' }), { ok: false, reason: 'missing' });
  assert.deepEqual(await store.update(R, r.id, { a: 2 }, { owner: 'bob', version: 1 }), { ok: false, reason: 'missing' });
  const unowned = await store.insert(R, { data: { a: 1 } });
  assert.deepEqual(await store.update(R, unowned.id, { a: 2 }, { owner: 'bob' }), { ok: false, reason: 'missing' });
  assert.equal((await store.get(R, r.id))?.version, 1);
  const ok = await store.update(R, r.id, { a: 2 }, { owner: 'ann' });
  assert.ok(ok.ok);
  assert.equal(ok.record.owner, 'ann');
});

// ---------------------------------------------------------------------------------------
// remove

it('remove without a version removes the record', async (store) => {
  const r = await store.insert(R, { data: {} });
  assert.deepEqual(await store.remove(R, r.id), { ok: true });
  assert.equal(await store.get(R, r.id), undefined);
  assert.deepEqual(await store.remove(R, r.id), { ok: false, reason: 'missing' });
});

it('remove with a stale version returns the current record; with the current one removes', async (store) => {
  const r = await store.insert(R, { data: { a: 1 } });
  const u = await store.update(R, r.id, { a: 2 });
  assert.ok(u.ok);
  assert.deepEqual(await store.remove(R, r.id, { version: 1 }), { ok: false, reason: 'version', current: u.record });
  assert.deepEqual(await store.get(R, r.id), u.record);
  assert.deepEqual(await store.remove(R, r.id, { version: 2 }), { ok: true });
  assert.equal(await store.get(R, r.id), undefined);
});

it('remove of a missing record is missing', async (store) => {
  assert.deepEqual(await store.remove(R, 'nope'), { ok: false, reason: 'missing' });
  assert.deepEqual(await store.remove(R, 'nope', { version: 1 }), { ok: false, reason: 'missing' });
});

it('remove with another owner is missing and keeps the record', async (store) => {
  const r = await store.insert(R, { owner: 'ann', data: {} });
  assert.deepEqual(await store.remove(R, r.id, { owner: 'bob' }), { ok: false, reason: 'missing' });
  assert.deepEqual(await store.get(R, r.id), r);
  assert.deepEqual(await store.remove(R, r.id, { owner: 'ann' }), { ok: true });
});

// ---------------------------------------------------------------------------------------
// JSON

it('JSON round trip of nested objects, arrays, unicode and large numbers', async (store) => {
  const data = {
    nested: { a: { b: { c: [1, { d: [true, false, null] }, 'e'] } }, empty: {}, none: [] },
    unicode: 'Grüße, 日本語, emoji 👩‍🚀, combining é, RTL עברית, escapes "\\ \n\t/',
    'ключ 🔑': 'unicode key',
    numbers: [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1e308, -1e-300, 5e-324, 0.1, 123456789.123456, 2 ** 60, 0],
    boolean: false,
    nothing: null,
    html: '<script>alert(1)</script>',
  };
  const r = await store.insert(R, { data });
  assert.deepEqual(r.data, data);
  assert.deepEqual((await store.get(R, r.id))?.data, data);
  const u = await store.update(R, r.id, { ...data, more: [data] });
  assert.ok(u.ok);
  assert.deepEqual((await store.get(R, r.id))?.data, { ...data, more: [data] });
  assert.deepEqual((await store.list(R, { limit: 1 })).records[0].data, { ...data, more: [data] });
});

it('JSON round trip: a NUL character in a string', async (store) => {
  const r = await store.insert(R, { data: { s: 'a\u0000b' } });
  assert.equal((await store.get(R, r.id))?.data.s, 'a\u0000b');
});

it('records returned are copies: changing one changes nothing stored', async (store) => {
  const input = { list: [1], obj: { a: 1 } };
  const r = await store.insert(R, { data: input });
  input.list.push(2);
  (r.data.obj as { a: number }).a = 99;
  assert.deepEqual((await store.get(R, r.id))?.data, { list: [1], obj: { a: 1 } });
});
