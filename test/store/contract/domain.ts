/**
 * Store contract cases: domain rules in the store — unique constraints (indexes, never a
 * read before the write) and domain steps (src/store/domain.ts): guards with counts read in
 * the write's transaction, effects on related records, cascades, managed sequences.
 */
import assert from 'node:assert/strict';
import type { DomainDecision, DomainRead, DomainStep } from '../../../src/store/domain.ts';
import { DomainRefusedError, DuplicateIdError, UniqueViolationError, type Store, type StoredRecord } from '../../../src/store/store.ts';
import { define, INDEXED, R, type Case } from './case.ts';

export const domainCases: Case[] = [];
const it = define(domainCases);

const N = 16;
/** A second resource: the "book" a thing borrows a copy of. */
const B = 'shelves';

async function withUnique(store: Store, unique: Parameters<Store['migrate']>[0][number] extends infer L ? (L extends { unique?: infer U } ? U : never) : never): Promise<void> {
  await store.migrate([{ name: R, indexes: INDEXED, unique }, { name: B }]);
}

const step = (decide: (current: StoredRecord | undefined, data: Record<string, unknown> | undefined, read: DomainRead) => DomainDecision): DomainStep => ({ decide });

it('unique: 16 concurrent inserts of one email, exactly one succeeds; the rest name the constraint', async (store) => {
  await withUnique(store, [{ name: 'email', fields: ['email'] }]);
  const results = await Promise.allSettled(Array.from({ length: N }, (_, i) => store.insert(R, { data: { email: 'a@example.org', i } })));
  assert.equal(results.filter((x) => x.status === 'fulfilled').length, 1);
  for (const x of results) {
    if (x.status === 'rejected') {
      assert.ok(x.reason instanceof UniqueViolationError, String(x.reason));
      assert.equal(x.reason.resource, R);
      assert.equal(x.reason.constraint, 'email');
    }
  }
  assert.equal((await store.count(R, {})), 1);
});

it('unique: an update onto a taken value is refused and changes nothing', async (store) => {
  await withUnique(store, [{ name: 'email', fields: ['email'] }]);
  await store.insert(R, { data: { email: 'a' } });
  const b = await store.insert(R, { data: { email: 'b' } });
  await assert.rejects(store.update(R, b.id, { email: 'a' }), (e) => e instanceof UniqueViolationError && e.constraint === 'email');
  assert.deepEqual((await store.get(R, b.id))?.data, { email: 'b' });
  assert.equal((await store.get(R, b.id))?.version, 1);
});

it('unique: type-exact, absent and null take part in no conflict, several fields together', async (store) => {
  await withUnique(store, [{ name: 'pair', fields: ['m', 'n'] }]);
  await store.insert(R, { data: { m: 1, n: 'x' } });
  await store.insert(R, { data: { m: '1', n: 'x' } });
  await store.insert(R, { data: { m: 1, n: 'y' } });
  await store.insert(R, { data: { m: 1 } });
  await store.insert(R, { data: { m: 1 } });
  await store.insert(R, { data: { m: 1, n: null } });
  await store.insert(R, { data: { m: 1, n: null } });
  await assert.rejects(store.insert(R, { data: { m: 1, n: 'x', other: true } }), UniqueViolationError);
});

it('unique: with where, only records matching it conflict (one open loan per member and book)', async (store) => {
  await withUnique(store, [{ name: 'open', fields: ['member', 'book'], where: [{ field: 'status', values: ['requested', 'active'] }] }]);
  const first = await store.insert(R, { data: { member: 1, book: 'b', status: 'requested' } });
  await assert.rejects(store.insert(R, { data: { member: 1, book: 'b', status: 'active' } }), UniqueViolationError);
  await store.insert(R, { data: { member: 1, book: 'b', status: 'returned' } });
  await store.update(R, first.id, { member: 1, book: 'b', status: 'returned' });
  await store.insert(R, { data: { member: 1, book: 'b', status: 'requested' } });
});

it('unique: ignoreCase compares strings without case', async (store) => {
  await withUnique(store, [{ name: 'email', fields: ['email'], ignoreCase: true }]);
  await store.insert(R, { data: { email: 'Ann@Example.org' } });
  await assert.rejects(store.insert(R, { data: { email: 'ann@example.ORG' } }), UniqueViolationError);
});

it('unique: in an insertMany, the conflicting item is named and nothing is kept', async (store) => {
  await withUnique(store, [{ name: 'email', fields: ['email'] }]);
  await assert.rejects(store.insertMany(R, [{ data: { email: 'x' } }, { data: { email: 'y' } }, { data: { email: 'x' } }]), (e) => e instanceof UniqueViolationError && e.index === 2);
  assert.equal(await store.count(R, {}), 0);
});

it('unique: migrating a constraint the stored records already break fails with a clear reason', async (store) => {
  await store.insert(R, { data: { email: 'same' } });
  await store.insert(R, { data: { email: 'same' } });
  await assert.rejects(withUnique(store, [{ name: 'email', fields: ['email'] }]), /already break the unique constraint 'email'/);
});

/** A guard: refuse unless fewer than `max` things of this member are open (a count read in the transaction). */
const limitStep = (member: number, max: number): DomainStep =>
  step((_current, _data, read): DomainDecision => {
    if (!read.counts.has('open')) return { more: { counts: [{ key: 'open', resource: R, query: { filters: [{ field: 'member', op: 'eq', value: member }, { field: 'status', op: 'in', value: ['open'] }] } }] } };
    return (read.counts.get('open') ?? 0) < max ? {} : { refuse: 'limit' };
  });

it('domain: 16 concurrent guarded inserts with a count, exactly the limit gets through', async (store) => {
  const results = await Promise.allSettled(Array.from({ length: N }, () => store.insert(R, { data: { member: 7, status: 'open' } }, { domain: limitStep(7, 3) })));
  assert.equal(results.filter((x) => x.status === 'fulfilled').length, 3);
  for (const x of results) if (x.status === 'rejected') assert.ok(x.reason instanceof DomainRefusedError && x.reason.refusal === 'limit', String(x.reason));
  assert.equal(await store.count(R, { filter: { member: 7 } }), 3);
});

/** Approve: take a copy of the shelf, refusing when none is left; the effect and the change commit together. */
const takeCopy = (shelfId: string): DomainStep =>
  step((_current, data, read): DomainDecision => {
    if (!read.records.has('shelf')) return { more: { records: [{ key: 'shelf', resource: B, id: shelfId }] } };
    const shelf = read.records.get('shelf');
    if (!shelf || (shelf.data.available as number) <= 0) return { refuse: 'unavailable' };
    return { data: { ...data, approved: true }, related: [{ kind: 'update', resource: B, id: shelf.id, version: shelf.version, data: { ...shelf.data, available: (shelf.data.available as number) - 1 } }] };
  });

it('domain: 16 concurrent approvals of the last copy, one wins; its effect is kept with it', async (store) => {
  await withUnique(store, []);
  const shelf = await store.insert(B, { data: { available: 1 } });
  const loans = await Promise.all(Array.from({ length: N }, () => store.insert(R, { data: { status: 'requested' } })));
  const results = await Promise.allSettled(loans.map((l) => store.update(R, l.id, { status: 'active' }, { state: { field: 'status', from: ['requested'] } }, { domain: takeCopy(shelf.id) })));
  assert.equal(results.filter((x) => x.status === 'fulfilled').length, 1);
  for (const x of results) if (x.status === 'rejected') assert.ok(x.reason instanceof DomainRefusedError && x.reason.refusal === 'unavailable');
  const after = await store.get(B, shelf.id);
  assert.equal(after?.data.available, 0);
  assert.equal(after?.version, 2);
  const active = (await store.list(R, { limit: 100, filter: { status: 'active' } })).records;
  assert.equal(active.length, 1);
  assert.equal(active[0].data.approved, true, 'the data the step decided is what was stored');
});

it('domain: a refusal keeps nothing of the write, its effects or its events', async (store) => {
  await withUnique(store, []);
  const shelf = await store.insert(B, { data: { available: 1 } });
  const before = await store.events.latest();
  const refusing = step((_c, data, read): DomainDecision => {
    if (!read.records.has('shelf')) return { more: { records: [{ key: 'shelf', resource: B, id: shelf.id }] } };
    return read.records.size > 5 ? { data } : { refuse: 'no' };
  });
  await assert.rejects(store.insert(R, { data: { x: 1 } }, { domain: refusing, events: (r) => [{ name: 'thing.created', resource: R, recordId: r.id, payloads: { '': r.data }, createdAt: 1 }] }), DomainRefusedError);
  assert.equal(await store.count(R, {}), 0);
  assert.equal(await store.events.latest(), before);
});

it('domain: related writes carry their own events, in the same transaction', async (store) => {
  await withUnique(store, []);
  const shelf = await store.insert(B, { data: { available: 2 } });
  const loan = await store.insert(R, { data: { status: 'requested' } });
  const withEvents: DomainStep = step((c, d, read): DomainDecision => {
    const decided = takeCopy(shelf.id).decide(c, d, read);
    if (!('related' in decided) || !decided.related) return decided;
    return { ...decided, related: decided.related.map((w) => ({ ...w, events: (r: StoredRecord) => [{ name: 'shelf.updated', resource: B, recordId: r.id, payloads: { '': r.data }, createdAt: 1 }] })) };
  });
  await store.update(R, loan.id, { status: 'active' }, {}, { domain: withEvents });
  const events = await store.events.after(0, 10);
  const mine = events.filter((e) => e.name === 'shelf.updated');
  assert.equal(mine.length, 1);
  assert.deepEqual(mine[0].payloads, { '': { available: 1 } });
});

it('domain: a related write on a version the record no longer has fails the write, with or without events', async (store) => {
  // A step decides from what it read in the transaction, so this is a bug of the step; the
  // adapter must still notice it (compare-and-set), whether or not the write returns a row for an event.
  await withUnique(store, []);
  const shelf = await store.insert(B, { data: { available: 2 } });
  const loan = await store.insert(R, { data: { status: 'requested' } });
  const stale = (kind: 'update' | 'remove', events: boolean): DomainStep => step((_c, data): DomainDecision => {
    const write = kind === 'update' ? { kind, resource: B, id: shelf.id, version: shelf.version + 1, data: { available: 0 } } as const : { kind, resource: B, id: shelf.id, version: shelf.version + 1 } as const;
    return { data, related: [events ? { ...write, events: (r: StoredRecord) => [{ name: 'shelf.changed', resource: B, recordId: r.id, payloads: { '': {} }, createdAt: 1 }] } : write] };
  });
  for (const kind of ['update', 'remove'] as const) {
    for (const events of [false, true]) {
      await assert.rejects(store.update(R, loan.id, { status: 'active' }, {}, { domain: stale(kind, events) }), /changed inside the write's own transaction/, `${kind}, events: ${events}`);
    }
  }
  const after = await store.get(B, shelf.id);
  assert.equal(after?.version, 1);
  assert.deepEqual(after?.data, { available: 2 });
  assert.equal((await store.get(R, loan.id))?.data.status, 'requested');
});

it('domain: a removal cascades to the records that refer to it, read with lists', async (store) => {
  await withUnique(store, []);
  const shelf = await store.insert(B, { data: {} });
  for (let i = 0; i < 3; i++) await store.insert(R, { data: { shelf: shelf.id, i } });
  const keep = await store.insert(R, { data: { shelf: 'other' } });
  const cascade = step((current, _d, read): DomainDecision => {
    if (!read.lists.has('refs')) return { more: { lists: [{ key: 'refs', resource: R, query: { filter: { shelf: current!.id } } }] } };
    return { related: (read.lists.get('refs') ?? []).map((r) => ({ kind: 'remove' as const, resource: R, id: r.id, version: r.version })) };
  });
  const removed = await store.remove(B, shelf.id, {}, { domain: cascade });
  assert.equal(removed.ok, true);
  assert.deepEqual((await store.list(R, { limit: 10 })).records.map((r) => r.id), [keep.id]);
});

it('domain: sequences count up from 1 per name, each read advancing it, in the transaction', async (store) => {
  const numbered = (name: string) => step((_c, data, read): DomainDecision => (read.sequences.has('n') ? { data: { ...data, n: read.sequences.get('n') } } : { more: { sequences: [{ key: 'n', name }] } }));
  const rs = await Promise.all(Array.from({ length: 5 }, () => store.insert(R, { data: {} }, { domain: numbered('cards') })));
  assert.deepEqual(rs.map((r) => r.data.n).sort(), [1, 2, 3, 4, 5]);
  const other = await store.insert(R, { data: {} }, { domain: numbered('other') });
  assert.equal(other.data.n, 1);
  // A refused write gives its number back: the counter moves only with what is committed.
  const refused = step((_c, _data, read): DomainDecision => (read.sequences.has('n') ? { refuse: 'no' } : { more: { sequences: [{ key: 'n', name: 'cards' }] } }));
  await assert.rejects(store.insert(R, { data: {} }, { domain: refused }), DomainRefusedError);
  assert.equal((await store.insert(R, { data: {} }, { domain: numbered('cards') })).data.n, 6);
});

/** Numbers the record from the counter `name`: `n` (and `m`, when `twice`, a second read of the same counter). */
const numberedFrom = (name: string, twice = false): DomainStep =>
  step((_c, data, read): DomainDecision => {
    if (!read.sequences.has('n')) return { more: { sequences: [{ key: 'n', name }, ...(twice ? [{ key: 'm', name }] : [])] } };
    return { data: { ...data, n: read.sequences.get('n'), ...(twice ? { m: read.sequences.get('m') } : {}) } };
  });

it('domain: a create refused after its step (a unique value, a taken id) gives its number back', async (store) => {
  await withUnique(store, [{ name: 'email', fields: ['email'] }]);
  const first = await store.insert(R, { data: { email: 'a' } }, { domain: numberedFrom('cards') });
  assert.equal(first.data.n, 1);
  // In one turn, one group transaction: the refused ones between two that stand.
  const results = await Promise.allSettled([
    store.insert(R, { data: { email: 'a' } }, { domain: numberedFrom('cards') }),
    store.insert(R, { id: first.id, data: { email: 'b' } }, { domain: numberedFrom('cards') }),
    store.insert(R, { data: { email: 'c' } }, { domain: numberedFrom('cards') }),
  ]);
  assert.ok(results[0].status === 'rejected' && results[0].reason instanceof UniqueViolationError, 'the taken email');
  assert.ok(results[1].status === 'rejected' && results[1].reason instanceof DuplicateIdError, 'the taken id');
  assert.ok(results[2].status === 'fulfilled' && results[2].value.data.n === 2, 'the next number is the one the refused creates gave back');
  assert.equal((await store.insert(R, { data: { email: 'd' } }, { domain: numberedFrom('cards') })).data.n, 3);
  // Two reads of one counter in one step take two numbers.
  const both = await store.insert(R, { data: { email: 'e' } }, { domain: numberedFrom('cards', true) });
  assert.deepEqual([both.data.n, both.data.m], [4, 5]);
});

it('domain: a create whose events fail keeps neither the record, nor its number, nor what its step changed', async (store) => {
  await withUnique(store, [{ name: 'email', fields: ['email'] }]);
  const broken = () => {
    throw new Error('the maker failed');
  };
  await assert.rejects(store.insert(R, { data: { email: 'a' } }, { domain: numberedFrom('cards'), events: broken }), /the maker failed/);
  assert.equal(await store.count(R, {}), 0);
  // A step that also changes another record (an effect): refused by the unique index after it, or failing in its events.
  const shelf = await store.insert(B, { data: { available: 2 } });
  const numberedTaking = step((_c, data, read): DomainDecision => {
    if (!read.records.has('shelf')) return { more: { records: [{ key: 'shelf', resource: B, id: shelf.id }], sequences: [{ key: 'n', name: 'cards' }] } };
    const s = read.records.get('shelf') as StoredRecord;
    return { data: { ...data, n: read.sequences.get('n') }, related: [{ kind: 'update', resource: B, id: s.id, version: s.version, data: { ...s.data, available: (s.data.available as number) - 1 } }] };
  });
  const kept = await store.insert(R, { data: { email: 'b' } }, { domain: numberedTaking });
  assert.equal(kept.data.n, 1);
  await assert.rejects(store.insert(R, { data: { email: 'b' } }, { domain: numberedTaking }), UniqueViolationError);
  await assert.rejects(store.insert(R, { data: { email: 'c' } }, { domain: numberedTaking, events: broken }), /the maker failed/);
  assert.deepEqual((await store.get(B, shelf.id))?.data, { available: 1 });
  assert.equal((await store.insert(R, { data: { email: 'd' } }, { domain: numberedFrom('cards') })).data.n, 2);
  assert.deepEqual((await store.list(R, { limit: 10 })).records.map((r) => r.data.email), ['b', 'd']);
});

it('domain: a step in changeMany runs per item, and a refusal undoes the batch', async (store) => {
  const a = await store.insert(R, { data: { v: 1 } });
  const b = await store.insert(R, { data: { v: 2 } });
  const ok = step((_c, data): DomainDecision => ({ data: { ...data, checked: true } }));
  const no = step((): DomainDecision => ({ refuse: 'second' }));
  await assert.rejects(store.changeMany(R, [{ kind: 'update', id: a.id, data: { v: 10 } }, { kind: 'update', id: b.id, data: { v: 20 } }], { domains: [ok, no] }), DomainRefusedError);
  assert.deepEqual((await store.get(R, a.id))?.data, { v: 1 });
  const done = await store.changeMany(R, [{ kind: 'update', id: a.id, data: { v: 10 } }, { kind: 'update', id: b.id, data: { v: 20 } }], { domains: [ok, undefined] });
  assert.equal(done.ok, true);
  assert.deepEqual((await store.get(R, a.id))?.data, { v: 10, checked: true });
  assert.deepEqual((await store.get(R, b.id))?.data, { v: 20 });
});

// ---- effect fields (TableLayout effectFields): an adapter may keep them apart; nothing a client reads changes ----

/** The shelf's layout: lists filter and sort by `available`, `title`, `stamp`; effects change `available`, `stamp`, `late`. */
const SHELF_LAYOUT = { name: B, indexes: ['available', 'title', 'stamp', 'late'], effectFields: ['available', 'stamp', 'late'] };

/** An effect on the shelf: `available` down by one, `stamp` set (a new member at first), and `late` when asked; `changes` names them. */
const effectOnShelf = (shelfId: string, stamp: string, late?: null | string): DomainStep =>
  step((_current, data, read): DomainDecision => {
    if (!read.records.has('shelf')) return { more: { records: [{ key: 'shelf', resource: B, id: shelfId }] } };
    const shelf = read.records.get('shelf');
    if (!shelf || (shelf.data.available as number) <= 0) return { refuse: 'unavailable' };
    const changed: Record<string, unknown> = { ...shelf.data, available: (shelf.data.available as number) - 1, stamp };
    if (late !== undefined) changed.late = late;
    return { data, related: [{ kind: 'update', resource: B, id: shelf.id, version: shelf.version, data: changed, changes: ['available', 'stamp', ...(late !== undefined ? ['late'] : [])] }] };
  });

/**
 * The record exactly. (The order of its members is the adapter's: PostgreSQL's jsonb keeps
 * its own; SQLite's text keeps the written one, test/store/sqlite.test.ts.)
 */
async function assertRecord(store: Store, id: string, expected: Record<string, unknown>, version: number): Promise<void> {
  const got = await store.get(B, id);
  assert.ok(got);
  assert.equal(got.version, version);
  assert.deepEqual(got.data, expected);
}

const shelfIds = async (store: Store, query: Omit<Parameters<Store['list']>[1], 'limit'>) => (await store.list(B, { limit: 100, ...query })).records.map((r) => r.id);

it('effect fields: related writes that change only them read back as whole writes would, in order, null included', async (store) => {
  await store.migrate([{ name: R, indexes: INDEXED }, SHELF_LAYOUT]);
  const shelf = await store.insert(B, { data: { title: 'T', available: 3, copies: 3 } });
  const other = await store.insert(B, { data: { title: 'U', available: 3, copies: 3 } });
  const loan = await store.insert(R, { data: { status: 'requested' } });
  await store.update(R, loan.id, { status: 'active' }, {}, { domain: effectOnShelf(shelf.id, 's1') });
  await assertRecord(store, shelf.id, { title: 'T', available: 2, copies: 3, stamp: 's1' }, 2);
  await store.update(R, loan.id, { status: 'returned' }, {}, { domain: effectOnShelf(shelf.id, 's2', null) });
  await assertRecord(store, shelf.id, { title: 'T', available: 1, copies: 3, stamp: 's2', late: null }, 3);
  // A page reads the same records as `get`.
  const page = (await store.list(B, { limit: 10 })).records;
  assert.deepEqual(page.map((r) => r.data), [{ title: 'T', available: 1, copies: 3, stamp: 's2', late: null }, { title: 'U', available: 3, copies: 3 }]);
  // A lean page (no version, no owner) too, its text included.
  const lean = (await store.list(B, { limit: 10, lean: true })).records;
  assert.deepEqual(lean.map((r) => [r.id, r.data, r.json]), page.map((r) => [r.id, r.data, r.json]));
  assert.deepEqual((await store.list(B, { limit: 10, lean: true, sort: [{ field: 'available', direction: 'asc' }] })).records.map((r) => r.data.available), [1, 3]);
  // Filters, sorts and counts see the values the effects wrote, null as null.
  assert.deepEqual(await shelfIds(store, { filter: { available: 1 } }), [shelf.id]);
  assert.deepEqual(await shelfIds(store, { filter: { available: 3 } }), [other.id]);
  assert.deepEqual(await shelfIds(store, { filters: [{ field: 'available', op: 'lt', value: 3 }] }), [shelf.id]);
  assert.deepEqual(await shelfIds(store, { filter: { late: null } }), [shelf.id, other.id]);
  assert.deepEqual(await shelfIds(store, { filters: [{ field: 'stamp', op: 'eq', value: 's2' }] }), [shelf.id]);
  assert.deepEqual(await shelfIds(store, { sort: [{ field: 'available', direction: 'asc' }] }), [shelf.id, other.id]);
  assert.deepEqual(await shelfIds(store, { sort: [{ field: 'available', direction: 'desc' }] }), [other.id, shelf.id]);
  assert.equal(await store.count(B, { filter: { available: 1 } }), 1);
  // A keyset page after the first record in `available` order.
  const first = (await store.list(B, { limit: 1, sort: [{ field: 'available', direction: 'asc' }] })).records[0];
  assert.deepEqual((await store.list(B, { limit: 5, sort: [{ field: 'available', direction: 'asc' }], after: { values: [1], seq: first.seq } })).records.map((r) => r.id), [other.id]);
});

it('effect fields: a whole write after effect writes replaces them, and effects after it start from it', async (store) => {
  await store.migrate([{ name: R, indexes: INDEXED }, SHELF_LAYOUT]);
  const shelf = await store.insert(B, { data: { title: 'T', available: 3 } });
  const loan = await store.insert(R, { data: { status: 'requested' } });
  await store.update(R, loan.id, { status: 'active' }, {}, { domain: effectOnShelf(shelf.id, 's1') });
  const written = await store.update(B, shelf.id, { available: 10, title: 'V' }, { version: 2 });
  assert.ok(written.ok);
  await assertRecord(store, shelf.id, { available: 10, title: 'V' }, 3);
  assert.deepEqual(await shelfIds(store, { filter: { available: 2 } }), []);
  assert.deepEqual(await shelfIds(store, { filter: { stamp: 's1' } }), [], 'the member the whole write left out is gone');
  await store.update(R, loan.id, { status: 'returned' }, {}, { domain: effectOnShelf(shelf.id, 's2') });
  await assertRecord(store, shelf.id, { available: 9, title: 'V', stamp: 's2' }, 4);
  assert.deepEqual(await shelfIds(store, { filter: { available: 9 } }), [shelf.id]);
  // A bulk change is a whole write too.
  const batch = await store.changeMany(B, [{ kind: 'update', id: shelf.id, data: { available: 4, title: 'W' } }]);
  assert.ok(batch.ok);
  await assertRecord(store, shelf.id, { available: 4, title: 'W' }, 5);
  assert.deepEqual(await shelfIds(store, { filter: { available: 4 } }), [shelf.id]);
});

it('effect fields: 16 concurrent approvals of the last copy, one wins; an event of a related write carries the whole record', async (store) => {
  await store.migrate([{ name: R, indexes: INDEXED }, SHELF_LAYOUT]);
  const shelf = await store.insert(B, { data: { title: 'T', available: 1 } });
  const loans = await Promise.all(Array.from({ length: N }, () => store.insert(R, { data: { status: 'requested' } })));
  const withEvents = (s: DomainStep): DomainStep => step((c, d, read): DomainDecision => {
    const decided = s.decide(c, d, read);
    if (!('related' in decided) || !decided.related) return decided;
    return { ...decided, related: decided.related.map((w) => ({ ...w, events: (r: StoredRecord) => [{ name: 'shelf.updated', resource: B, recordId: r.id, payloads: { '': r.data }, createdAt: 1 }] })) };
  });
  const results = await Promise.allSettled(loans.map((l, i) => store.update(R, l.id, { status: 'active' }, { state: { field: 'status', from: ['requested'] } }, { domain: withEvents(effectOnShelf(shelf.id, `s${i}`)) })));
  assert.equal(results.filter((x) => x.status === 'fulfilled').length, 1);
  const winner = results.findIndex((x) => x.status === 'fulfilled');
  await assertRecord(store, shelf.id, { title: 'T', available: 0, stamp: `s${winner}` }, 2);
  const mine = (await store.events.after(0, 100)).filter((e) => e.name === 'shelf.updated');
  assert.equal(mine.length, 1);
  assert.deepEqual(mine[0].payloads, { '': { title: 'T', available: 0, stamp: `s${winner}` } });
});

it('effect fields: a migrate of other tables leaves them as they were: pages, filters and counts read what the effects wrote', async (store) => {
  await store.migrate([{ name: R, indexes: INDEXED }, SHELF_LAYOUT]);
  const shelf = await store.insert(B, { data: { title: 'T', available: 3 } });
  const loan = await store.insert(R, { data: { status: 'requested' } });
  await store.update(R, loan.id, { status: 'active' }, {}, { domain: effectOnShelf(shelf.id, 's1') });
  // The library migrates in parts: only the loans' table this time.
  await store.migrate([{ name: R, indexes: [...INDEXED, 'status'] }]);
  await assertRecord(store, shelf.id, { title: 'T', available: 2, stamp: 's1' }, 2);
  assert.deepEqual((await store.list(B, { limit: 10 })).records.map((r) => r.data), [{ title: 'T', available: 2, stamp: 's1' }]);
  assert.deepEqual(await shelfIds(store, { filter: { available: 2 } }), [shelf.id]);
  assert.equal(await store.count(B, { filter: { stamp: 's1' } }), 1);
});

it('effect fields: a layout that keeps them no longer (or others) reads every record as before', async (store) => {
  await store.migrate([{ name: R, indexes: INDEXED }, SHELF_LAYOUT]);
  const shelf = await store.insert(B, { data: { title: 'T', available: 3 } });
  const loan = await store.insert(R, { data: { status: 'requested' } });
  await store.update(R, loan.id, { status: 'active' }, {}, { domain: effectOnShelf(shelf.id, 's1') });
  for (const effectFields of [[], ['stamp'], ['available', 'stamp', 'late']]) {
    await store.migrate([{ name: R, indexes: INDEXED }, { ...SHELF_LAYOUT, effectFields }]);
    await assertRecord(store, shelf.id, { title: 'T', available: 2, stamp: 's1' }, 2);
    assert.deepEqual(await shelfIds(store, { filter: { available: 2 } }), [shelf.id], `effect fields ${JSON.stringify(effectFields)}`);
    assert.deepEqual(await shelfIds(store, { filter: { stamp: 's1' } }), [shelf.id]);
  }
  // A field both an effect field and unique is read by its unique index: a duplicate is still refused.
  await store.migrate([{ name: R, indexes: INDEXED }, { ...SHELF_LAYOUT, unique: [{ name: 'stamp', fields: ['stamp'] }] }]);
  const second = await store.insert(B, { data: { title: 'U', available: 3 } });
  await assert.rejects(store.update(R, loan.id, { status: 'returned' }, {}, { domain: effectOnShelf(second.id, 's1') }), UniqueViolationError);
  await assertRecord(store, second.id, { title: 'U', available: 3 }, 1);
});
