/** Store contract cases: insertMany, the all-or-nothing write of a bulk create. */
import assert from 'node:assert/strict';
import type { EventMaker } from '../../../src/store/events.ts';
import { DuplicateIdError } from '../../../src/store/store.ts';
import { define, ids, listIds, R, type Case } from './case.ts';

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
