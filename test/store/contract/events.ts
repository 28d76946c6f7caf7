/** Store contract cases: the event log written with the records, subscriptions, deliveries (part 6). */
import assert from 'node:assert/strict';
import type { EventMaker, SubscriptionRecord } from '../../../src/store/events.ts';
import { define, R, type Case } from './case.ts';

export const eventCases: Case[] = [];
const it = define(eventCases);

const made = (name: string): EventMaker => (record) => [{ name, resource: R, recordId: record.id, ...(record.owner !== undefined ? { owner: record.owner } : {}), payloads: { '': { id: record.id, ...record.data } }, createdAt: 5_000 }];

function subscription(id: string, over: Partial<SubscriptionRecord> = {}): Omit<SubscriptionRecord, 'createdSeq'> {
  return { id, url: `https://example.test/${id}`, events: [], status: 'enabled', secrets: [{ secret: 'whsec_AAAA' }], createdAt: 1_000, ...over };
}

it('events: insert, update and remove append their events in the same write, in order', async (store) => {
  assert.equal(await store.events.latest(), 0);
  const a = await store.insert(R, { data: { n: 1 }, owner: 'p1' }, { events: made('thing.created') });
  await store.update(R, a.id, { n: 2 }, {}, { events: made('thing.updated') });
  await store.remove(R, a.id, {}, { events: made('thing.deleted') });
  const log = await store.events.after(0, 10);
  assert.deepEqual(log.map((e) => e.name), ['thing.created', 'thing.updated', 'thing.deleted']);
  assert.deepEqual(log.map((e) => e.seq), [1, 2, 3]);
  assert.deepEqual(log[1].payloads, { '': { id: a.id, n: 2 } }, 'made from the record as written');
  assert.deepEqual(log[2].payloads, { '': { id: a.id, n: 2 } }, 'a delete: the record as it was');
  assert.equal(log[0].owner, 'p1');
  assert.equal(log[0].recordId, a.id);
  assert.equal(await store.events.latest(), 3);
  assert.deepEqual((await store.events.after(1, 1)).map((e) => e.seq), [2]);
});

it('events: a payload given as JSON text is written as it is, and read back as the payloads it says', async (store) => {
  // What serve's maker gives (src/serve/events/emit.ts): the text, and payloads only parsed from it when asked for.
  const text = '{"1":{"id":"a","n":1},"2":{"id":"a"}}';
  const maker: EventMaker = (r) => [{ name: 'thing.created', resource: R, recordId: r.id, get payloads(): Record<string, unknown> { throw new Error('the store should write payloadsJson, not serialize payloads'); }, payloadsJson: text, createdAt: 5_000 }];
  await store.insert(R, { id: 'a', data: { n: 1 } }, { events: maker });
  const [e] = await store.events.after(0, 10);
  assert.deepEqual(e?.payloads, { '1': { id: 'a', n: 1 }, '2': { id: 'a' } });
});

it('events: a refused write appends nothing, and a failing event maker writes no record', async (store) => {
  const a = await store.insert(R, { id: 'x', data: { n: 1 } }, { events: made('thing.created') });
  await assert.rejects(store.insert(R, { id: 'x', data: { n: 9 } }, { events: made('thing.created') }));
  const refused = await store.update(R, a.id, { n: 2 }, { version: 99 }, { events: made('thing.updated') });
  assert.equal(refused.ok, false);
  const broken: EventMaker = () => {
    throw new Error('the maker failed');
  };
  // Two inserts of one turn share a transaction: the one whose maker fails is undone alone.
  const [bad, good] = await Promise.allSettled([
    store.insert(R, { id: 'y', data: { n: 3 } }, { events: broken }),
    store.insert(R, { id: 'z', data: { n: 4 } }, { events: made('thing.created') }),
  ]);
  assert.equal(bad.status, 'rejected');
  assert.equal(good.status, 'fulfilled');
  assert.equal(await store.get(R, 'y'), undefined, 'no record without its event');
  assert.ok(await store.get(R, 'z'));
  assert.deepEqual((await store.events.after(0, 10)).map((e) => e.recordId), ['x', 'z']);
  // Two events of which the second cannot be written (its payload does not serialize): neither is kept, nor the record.
  const half: EventMaker = (r) => [...made('thing.created')(r), { name: 'thing.noted', resource: R, recordId: r.id, payloads: { '': { n: 1n } }, createdAt: 1 }];
  const [halved, beside] = await Promise.allSettled([
    store.insert(R, { id: 'w', data: { n: 5 } }, { events: half }),
    store.insert(R, { id: 'v', data: { n: 6 } }, { events: made('thing.created') }),
  ]);
  assert.equal(halved.status, 'rejected');
  assert.equal(beside.status, 'fulfilled');
  assert.equal(await store.get(R, 'w'), undefined);
  assert.deepEqual((await store.events.after(0, 10)).map((e) => e.recordId), ['x', 'z', 'v']);
  assert.deepEqual((await store.list(R, { limit: 10 })).records.map((r) => r.id), ['x', 'z', 'v']);
});

it('subscriptions: add, get, list by principal, change, remove with their deliveries', async (store) => {
  await store.insert(R, { data: { n: 1 } }, { events: made('thing.created') });
  const added = await store.events.addSubscription(subscription('s1', { principal: 'p1', scopes: ['read'], apiVersion: '2', description: 'mine', events: ['thing.created'] }));
  assert.equal(added.createdSeq, 1, 'it receives the events after the log as it was');
  assert.deepEqual(await store.events.getSubscription('s1'), added);
  await store.events.addSubscription(subscription('s2', { createdAt: 2_000 }));
  await assert.rejects(store.events.addSubscription(subscription('s1')));
  assert.deepEqual((await store.events.listSubscriptions()).map((s) => s.id), ['s1', 's2']);
  assert.deepEqual((await store.events.listSubscriptions('p1')).map((s) => s.id), ['s1']);
  assert.equal(await store.events.changeSubscription('s2', { status: 'disabled', disabledReason: 'the receiver answered 410' }), true);
  assert.equal((await store.events.getSubscription('s2'))?.disabledReason, 'the receiver answered 410');
  assert.equal((await store.events.getSubscription('s2'))?.status, 'disabled');
  assert.equal(await store.events.changeSubscription('s1', { secrets: [{ secret: 'whsec_BBBB' }, { secret: 'whsec_AAAA', expiresAt: 9_000 }] }), true);
  assert.deepEqual((await store.events.getSubscription('s1'))?.secrets.map((s) => s.secret), ['whsec_BBBB', 'whsec_AAAA']);
  assert.equal(await store.events.changeSubscription('nope', { status: 'disabled' }), false);
  assert.equal(await store.events.fanOut(0, 1, [{ id: 'd1', subscriptionId: 's1', eventSeq: 1, createdAt: 3_000 }]), true);
  assert.equal(await store.events.removeSubscription('s1'), true);
  assert.equal(await store.events.removeSubscription('s1'), false);
  assert.equal(await store.events.getDelivery('d1'), undefined, 'its deliveries went with it');
});

it('deliveries: a claim takes the oldest due first, and deliveries due at once in their events\' order', async (store) => {
  for (let i = 0; i < 4; i++) await store.insert(R, { data: { n: i } }, { events: made('thing.created') });
  await store.events.addSubscription(subscription('s1'));
  await store.events.addSubscription(subscription('s2', { createdAt: 1_001 }));
  // A fan-out adds them event by event, every subscription of an event together; all due at 2_000.
  // One event's deliveries tie: SQLite takes them in the order they were added, PostgreSQL by id;
  // both are s1 before s2 here.
  const deliveries = [1, 2, 3, 4].flatMap((seq) => ['s1', 's2'].map((sub) => ({ id: `d${seq}${sub}`, subscriptionId: sub, eventSeq: seq, createdAt: 2_000 })));
  assert.equal(await store.events.fanOut(0, 4, deliveries), true);
  const first = await store.events.claimDue(5_000, 3, 60_000);
  assert.deepEqual(first.map((c) => c.delivery.id), ['d1s1', 'd1s2', 'd2s1']);
  assert.deepEqual(first.map((c) => [c.event.seq, c.subscription.id, c.delivery.nextAttemptAt]), [[1, 's1', 60_000], [1, 's2', 60_000], [2, 's1', 60_000]], 'each with its event and subscription, leased');
  // A retry due earlier than the rest goes first.
  await store.events.settle('d2s1', { status: 'pending', attempts: 1, nextAttemptAt: 1_500, lastError: 'timed out' });
  assert.deepEqual((await store.events.claimDue(5_000, 3, 60_000)).map((c) => c.delivery.id), ['d2s1', 'd2s2', 'd3s1']);
  assert.deepEqual((await store.events.claimDue(5_000, 10, 60_000)).map((c) => c.delivery.id), ['d3s2', 'd4s1', 'd4s2']);
});

it('deliveries: fan-out moves the cursor once; claims lease; settle, list, replay', async (store) => {
  for (let i = 0; i < 3; i++) await store.insert(R, { data: { n: i } }, { events: made('thing.created') });
  await store.events.addSubscription(subscription('s1'));
  assert.equal(await store.events.dispatched(), 0);
  const deliveries = [1, 2, 3].map((seq) => ({ id: `d${seq}`, subscriptionId: 's1', eventSeq: seq, createdAt: 1_000 + seq }));
  assert.equal(await store.events.fanOut(0, 3, deliveries), true);
  assert.equal(await store.events.fanOut(0, 3, deliveries), false, 'another process got there first');
  assert.equal(await store.events.dispatched(), 3);
  assert.equal(await store.events.nextDue(), 1_001);
  const claimed = await store.events.claimDue(5_000, 2, 60_000);
  assert.deepEqual(claimed.map((c) => c.delivery.id), ['d1', 'd2']);
  assert.equal(claimed[0].event.seq, 1);
  assert.equal(claimed[0].subscription.id, 's1');
  assert.deepEqual((await store.events.claimDue(5_000, 5, 60_000)).map((c) => c.delivery.id), ['d3'], 'leased ones are not claimed again');
  assert.equal((await store.events.claimDue(5_000, 5, 60_000)).length, 0);
  assert.equal((await store.events.claimDue(60_000, 5, 120_000)).length, 3, 'an expired lease is due again (a crash mid-attempt)');
  await store.events.settle('d1', { status: 'delivered', attempts: 1, lastStatus: 204, deliveredAt: 6_000 });
  await store.events.settle('d2', { status: 'dead', attempts: 8, lastStatus: 500, lastError: 'HTTP 500' });
  await store.events.settle('d3', { status: 'pending', attempts: 1, nextAttemptAt: 7_000, lastError: 'timed out' });
  assert.deepEqual(await store.events.getDelivery('d1'), { id: 'd1', subscriptionId: 's1', eventSeq: 1, eventName: 'thing.created', status: 'delivered', attempts: 1, lastStatus: 204, createdAt: 1_001, deliveredAt: 6_000 });
  assert.deepEqual((await store.events.listDeliveries('s1', { limit: 10 })).map((d) => d.id), ['d3', 'd2', 'd1'], 'newest first');
  assert.deepEqual((await store.events.listDeliveries('s1', { status: 'dead', limit: 10 })).map((d) => d.id), ['d2']);
  assert.equal(await store.events.nextDue(), 7_000);
  const replayed = await store.events.replay('d2', 8_000);
  assert.equal(replayed?.status, 'pending');
  assert.equal(replayed?.attempts, 0);
  assert.equal(replayed?.nextAttemptAt, 8_000);
  assert.equal(await store.events.replay('nope', 8_000), undefined);
  await store.events.changeSubscription('s1', { status: 'disabled' });
  assert.equal((await store.events.claimDue(99_000, 5, 120_000)).length, 0, 'a disabled subscription gets no attempts');
  assert.equal(await store.events.nextDue(), undefined);
});
