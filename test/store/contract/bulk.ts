/** Store contract cases: insertMany (a bulk create) and changeMany (a bulk update or delete), the all-or-nothing writes. */
import assert from 'node:assert/strict';
import type { EventMaker } from '../../../src/store/events.ts';
import { DuplicateIdError } from '../../../src/store/store.ts';
import { define, ids, insertAll, listIds, R, type Case } from './case.ts';

export const bulkCases: Case[] = [];
const it = define(bulkCases);

const created: EventMaker = (record) => [{ name: 'thing.created', resource: R, recordId: record.id, payloads: { '': { n: record.data.n } }, createdAt: 1_000 }];

it('insertMany writes every record in order, each with its events, and they read back as written', async (store) => {
  const written = await store.insertMany(R, [{ data: { n: 1 } }, { id: 'given', owner: 'ann', data: { n: 2 } }, { data: { n: 3 } }], { events: created });
  assert.equal(written.length, 3);
  assert.equal(written[1].id, 'given');
  assert.equal(written[1].owner, 'ann');
  assert.ok(written[0].seq < written[1].seq && written[1].seq < written[2].seq, 'in order');
  for (const r of written) assert.deepEqual(await store.get(R, r.id), r);
  assert.deepEqual(await listIds(store, {}), ids(written));
  const log = await store.events.after(0, 10);
  assert.deepEqual(log.map((e) => e.recordId), ids(written), 'one event per record, in order');
});

it('insertMany is all-or-nothing: a taken id keeps none of the records nor their events, and names the item', async (store) => {
  await store.insert(R, { id: 'taken', data: { n: 0 } });
  const before = await store.events.latest();
  await assert.rejects(
    store.insertMany(R, [{ id: 'a', data: { n: 1 } }, { data: { n: 2 } }, { id: 'taken', data: { n: 3 } }], { events: created }),
    (error: unknown) => error instanceof DuplicateIdError && error.index === 2 && error.id === 'taken',
  );
  assert.equal(await store.get(R, 'a'), undefined, 'the first item is not kept');
  assert.deepEqual(await listIds(store, {}), ['taken']);
  assert.equal(await store.events.latest(), before, 'no event of the refused write');
  // Two items of one request with the same id: the second is the taken one.
  await assert.rejects(store.insertMany(R, [{ id: 'b', data: {} }, { id: 'b', data: {} }]), (error: unknown) => error instanceof DuplicateIdError && error.index === 1);
  assert.deepEqual(await listIds(store, {}), ['taken']);
});

it('insertMany beside concurrent inserts: the others commit, the refused batch leaves nothing', async (store) => {
  const [one, batch, two] = await Promise.allSettled([
    store.insert(R, { id: 'one', data: {} }),
    store.insertMany(R, [{ id: 'x', data: {} }, { id: 'one', data: {} }]),
    store.insert(R, { id: 'two', data: {} }),
  ]);
  assert.equal(one.status, 'fulfilled');
  assert.equal(two.status, 'fulfilled');
  assert.equal(batch.status, 'rejected');
  assert.deepEqual((await listIds(store, {})).sort(), ['one', 'two']);
});

it('insertMany of no records writes nothing', async (store) => {
  assert.deepEqual(await store.insertMany(R, []), []);
  assert.deepEqual(await listIds(store, {}), []);
});

// ---- changeMany: the all-or-nothing write of a bulk update or delete ----

const changed: EventMaker = (record) => [{ name: 'thing.changed', resource: R, recordId: record.id, payloads: { '': { n: record.data.n ?? null } }, createdAt: 1_000 }];

it('changeMany updates and removes every record in order, each with its events, the versions raised by one', async (store) => {
  const [a, b, c] = await insertAll(store, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  const result = await store.changeMany(R, [
    { kind: 'update', id: a.id, data: { n: 10 } },
    { kind: 'remove', id: b.id },
    { kind: 'update', id: c.id, data: { n: 30 }, expect: { version: 1 } },
  ], { events: changed });
  assert.ok(result.ok);
  assert.deepEqual(result.records.map((r) => [r.id, r.version, r.data.n]), [[a.id, 2, 10], [b.id, 1, 2], [c.id, 2, 30]], 'updated as written, removed as it was');
  assert.deepEqual((await store.get(R, a.id))?.data, { n: 10 });
  assert.equal(await store.get(R, b.id), undefined);
  assert.equal((await store.get(R, c.id))?.version, 2);
  const log = await store.events.after(0, 10);
  assert.deepEqual(log.map((e) => e.recordId), [a.id, b.id, c.id], 'one event per change, in order');
});

it('changeMany is all-or-nothing: a missing record, a stale version or another owner keeps every record and writes no event, and names the change', async (store) => {
  const [a, b] = await insertAll(store, [{ n: 1 }, { n: 2 }], 'ann');
  const before = await store.events.latest();
  const unchanged = async () => {
    assert.deepEqual(await store.get(R, a.id), a);
    assert.deepEqual(await store.get(R, b.id), b);
    assert.equal(await store.events.latest(), before, 'no event of the refused write');
  };
  const missing = await store.changeMany(R, [{ kind: 'update', id: a.id, data: { n: 9 } }, { kind: 'remove', id: b.id }, { kind: 'remove', id: 'nobody' }], { events: changed });
  assert.deepEqual(missing, { ok: false, index: 2, reason: 'missing' });
  await unchanged();
  const stale = await store.changeMany(R, [{ kind: 'remove', id: a.id }, { kind: 'update', id: b.id, data: { n: 9 }, expect: { version: 7 } }], { events: changed });
  assert.ok(!stale.ok && stale.reason === 'version' && stale.index === 1 && stale.current.id === b.id);
  await unchanged();
  // Another owner's record is not there for this caller: missing, as a single change says.
  const other = await store.changeMany(R, [{ kind: 'update', id: a.id, data: { n: 9 }, expect: { owner: 'bob' } }]);
  assert.deepEqual(other, { ok: false, index: 0, reason: 'missing' });
  await unchanged();
  const mine = await store.changeMany(R, [{ kind: 'remove', id: a.id, expect: { owner: 'ann' } }]);
  assert.ok(mine.ok);
  assert.equal(await store.get(R, a.id), undefined);
});

it('changeMany beside concurrent inserts: they commit, the refused batch leaves its records as they were', async (store) => {
  const [a] = await insertAll(store, [{ n: 1 }]);
  const [one, batch] = await Promise.all([
    store.insert(R, { id: 'one', data: {} }),
    store.changeMany(R, [{ kind: 'update', id: a.id, data: { n: 5 } }, { kind: 'remove', id: 'absent' }]),
  ]);
  assert.equal(one.id, 'one');
  assert.ok(!batch.ok);
  assert.deepEqual((await store.get(R, a.id))?.data, { n: 1 });
});

it('changeMany of no changes changes nothing', async (store) => {
  assert.deepEqual(await store.changeMany(R, []), { ok: true, records: [] });
});
