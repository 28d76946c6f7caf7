/** Store contract cases: list — filters, order, offset pages, keyset walks. */
import assert from 'node:assert/strict';
import type { FieldFilter, ListQuery, ScalarValue, SortKey, Store, StoredRecord } from '../../../src/store/store.ts';
import { define, ids, insertAll, listIds, R, type Case } from './case.ts';

export const listCases: Case[] = [];
const it = define(listCases);

/** The documented order, in JS: NULLs (null or absent) lowest, numbers before strings. */
function compareScalar(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === 'number' || typeof v === 'boolean' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (rank(a) === 0) return 0;
  if (rank(a) === 1) return Number(a) - Number(b);
  return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
}

function comparator(sort: readonly SortKey[]): (a: StoredRecord, b: StoredRecord) => number {
  return (a, b) => {
    for (const k of sort) {
      const c = compareScalar(a.data[k.field], b.data[k.field]);
      if (c !== 0) return k.direction === 'asc' ? c : -c;
    }
    return a.seq - b.seq;
  };
}

/** Walks every page by keyset, calling `between` after each page that has a successor. */
async function walk(store: Store, sort: readonly SortKey[], limit: number, extra: { filter?: Record<string, ScalarValue>; filters?: readonly FieldFilter[]; owner?: string } = {}, between?: () => Promise<void>): Promise<StoredRecord[]> {
  const seen: StoredRecord[] = [];
  let after: { values: ScalarValue[]; seq: number } | undefined;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 1000, 'the walk does not end');
    const page = await store.list(R, { ...extra, sort, limit, ...(after ? { after } : {}) });
    assert.ok(page.records.length <= limit);
    seen.push(...page.records);
    if (!page.hasMore) return seen;
    assert.equal(page.records.length, limit, 'a page with a successor is full');
    const last = page.records[page.records.length - 1];
    after = { values: sort.map((k) => (last.data[k.field] ?? null) as ScalarValue), seq: last.seq };
    await between?.();
  }
}

/** 23 records with ties, nulls and absent members in `rank` and `name`. */
function keysetData(): Record<string, unknown>[] {
  const names = ['b', 'a', null, 'c', undefined];
  return Array.from({ length: 23 }, (_, i) => {
    const d: Record<string, unknown> = { i };
    const rank = i % 7 === 3 ? null : i % 11 === 5 ? undefined : (i * 5) % 4;
    const name = names[(i * 3) % 5];
    if (rank !== undefined) d.rank = rank;
    if (name !== undefined) d.name = name;
    return d;
  });
}

const SORTS: { label: string; sort: SortKey[] }[] = [
  { label: 'none', sort: [] },
  { label: 'rank asc', sort: [{ field: 'rank', direction: 'asc' }] },
  { label: 'rank desc', sort: [{ field: 'rank', direction: 'desc' }] },
  { label: 'rank asc, name desc', sort: [{ field: 'rank', direction: 'asc' }, { field: 'name', direction: 'desc' }] },
  { label: 'name desc, rank asc', sort: [{ field: 'name', direction: 'desc' }, { field: 'rank', direction: 'asc' }] },
  { label: 'name asc, rank desc', sort: [{ field: 'name', direction: 'asc' }, { field: 'rank', direction: 'desc' }] },
];

// ---------------------------------------------------------------------------------------
// list: filters

/** Records whose members look alike across JSON types. */
async function lookalikes(store: Store): Promise<void> {
  const rows: [string, Record<string, unknown>][] = [
    ['num1', { v: 1 }],
    ['str1', { v: '1' }],
    ['true', { v: true }],
    ['false', { v: false }],
    ['num0', { v: 0 }],
    ['str0', { v: '0' }],
    ['null', { v: null }],
    ['absent', {}],
    ['strnull', { v: 'null' }],
    ['strtrue', { v: 'true' }],
    ['float', { v: 1.5 }],
    ['object', { v: { a: 1 } }],
    ['array', { v: [1] }],
    ['empty', { v: '' }],
  ];
  for (const [id, data] of rows) await store.insert(R, { id, data });
}

it('the records of a page carry what a read of each gives: id, seq, version, owner, data', async (store) => {
  const [a] = await insertAll(store, [{ t: 'a', n: 1, nested: { k: [1, 2] } }], 'ann');
  await store.update(R, a.id, { t: 'b', n: 2, nested: { k: [3] } });
  const [b] = await insertAll(store, [{ t: 'c' }]);
  const members = (x: StoredRecord | undefined) => (x ? { id: x.id, seq: x.seq, version: x.version, owner: x.owner, data: x.data } : undefined);
  const page = (await store.list(R, { limit: 10 })).records;
  assert.deepEqual(page.map(members), [members(await store.get(R, a.id)), members(await store.get(R, b.id))]);
  assert.equal(page[0].version, 2);
  assert.equal(page[0].owner, 'ann');
});

it('a lean list gives the records a full list gives: the same ids, seqs, data and text, in the same order, for every kind of page', async (store) => {
  const datas = keysetData();
  await insertAll(store, datas.slice(0, 12), 'ann');
  await insertAll(store, datas.slice(12));
  const rank: SortKey[] = [{ field: 'rank', direction: 'desc' }, { field: 'name', direction: 'asc' }];
  const full = (await store.list(R, { limit: 100 })).records;
  const queries: ListQuery[] = [
    { limit: 5 },
    { limit: 100 },
    { limit: 5, after: { values: [], seq: full[7].seq } },
    { limit: 4, owner: 'ann' },
    { limit: 4, owner: 'ann', after: { values: [], seq: full[2].seq } },
    { limit: 6, sort: rank },
    { limit: 6, sort: rank, after: { values: [full[9].data.rank as ScalarValue ?? null, full[9].data.name as ScalarValue ?? null], seq: full[9].seq } },
    { limit: 3, filter: { name: 'a' } },
    { limit: 3, filters: [{ field: 'rank', op: 'gte', value: 1 }], offset: 2 },
    { limit: 7, offset: 20 },
    { limit: 2, search: { fields: ['name'], text: 'B' } },
  ];
  const members = (x: { id: string; seq: number; data: unknown; json?: string }) => ({ id: x.id, seq: x.seq, data: x.data, json: x.json });
  for (const query of queries) {
    const whole = await store.list(R, query);
    const lean = await store.list(R, { ...query, lean: true });
    assert.ok(whole.records.length > 0, JSON.stringify(query));
    assert.deepEqual(lean.records.map(members), whole.records.map(members), JSON.stringify(query));
    assert.equal(lean.hasMore, whole.hasMore, JSON.stringify(query));
  }
  // A lean page and a full page of the same shape, one after the other, each get their own columns.
  assert.equal((await store.list(R, { limit: 5 })).records[0].version, 1);
});

it('count agrees with the list: every record the filter and owner select, across all pages', async (store) => {
  await insertAll(store, [{ t: 'a' }, { t: 'b' }, { t: 'a' }], 'ann');
  await insertAll(store, [{ t: 'a' }, { t: 'c' }], 'bob');
  assert.equal(await store.count(R, {}), 5);
  assert.equal(await store.count(R, { filter: { t: 'a' } }), 3);
  assert.equal(await store.count(R, { owner: 'ann' }), 3);
  assert.equal(await store.count(R, { owner: 'ann', filter: { t: 'a' } }), 2);
  assert.equal(await store.count(R, { filter: { t: 'z' } }), 0);
  assert.equal((await store.list(R, { filter: { t: 'a' }, limit: 100 })).records.length, await store.count(R, { filter: { t: 'a' } }));
});

it('list filters by a string, matching only that string', async (store) => {
  await lookalikes(store);
  assert.deepEqual(await listIds(store, { filter: { v: '1' } }), ['str1']);
  assert.deepEqual(await listIds(store, { filter: { v: 'true' } }), ['strtrue']);
  assert.deepEqual(await listIds(store, { filter: { v: 'null' } }), ['strnull']);
  assert.deepEqual(await listIds(store, { filter: { v: '' } }), ['empty']);
  assert.deepEqual(await listIds(store, { filter: { v: '{"a":1}' } }), [], 'an object is not its JSON text');
});

it('list filters by a number, matching neither its string form nor a boolean', async (store) => {
  await lookalikes(store);
  assert.deepEqual(await listIds(store, { filter: { v: 1 } }), ['num1']);
  assert.deepEqual(await listIds(store, { filter: { v: 0 } }), ['num0']);
  assert.deepEqual(await listIds(store, { filter: { v: 1.5 } }), ['float']);
  assert.deepEqual(await listIds(store, { filter: { v: 2 } }), []);
});

it('list filters by a boolean, matching neither 1/0 nor "true"', async (store) => {
  await lookalikes(store);
  assert.deepEqual(await listIds(store, { filter: { v: true } }), ['true']);
  assert.deepEqual(await listIds(store, { filter: { v: false } }), ['false']);
});

it('list filters by null, matching null and absent members alike', async (store) => {
  await lookalikes(store);
  assert.deepEqual(await listIds(store, { filter: { v: null } }), ['null', 'absent']);
});

it('list filters combine with and, and with the owner', async (store) => {
  await store.insert(R, { id: 'a', owner: 'ann', data: { kind: 'x', n: 1 } });
  await store.insert(R, { id: 'b', owner: 'ann', data: { kind: 'x', n: 2 } });
  await store.insert(R, { id: 'c', owner: 'bob', data: { kind: 'x', n: 1 } });
  await store.insert(R, { id: 'd', data: { kind: 'y', n: 1 } });
  assert.deepEqual(await listIds(store, { filter: { kind: 'x', n: 1 } }), ['a', 'c']);
  assert.deepEqual(await listIds(store, { filter: { kind: 'x', n: 1 }, owner: 'ann' }), ['a']);
  assert.deepEqual(await listIds(store, { filter: { kind: 'y' }, owner: 'ann' }), []);
});

it('list filters by owner', async (store) => {
  await store.insert(R, { id: 'a', owner: 'ann', data: {} });
  await store.insert(R, { id: 'b', owner: 'bob', data: {} });
  await store.insert(R, { id: 'c', data: {} });
  await store.insert(R, { id: 'd', owner: 'ann', data: {} });
  assert.deepEqual(await listIds(store, { owner: 'ann' }), ['a', 'd']);
  assert.deepEqual(await listIds(store, { owner: 'bob' }), ['b']);
  assert.deepEqual(await listIds(store, { owner: 'carl' }), []);
  assert.deepEqual(await listIds(store, {}), ['a', 'b', 'c', 'd']);
});

// ---------------------------------------------------------------------------------------
// list: filter operators (ListQuery.filters), each type-exact like eq

const f = (field: string, op: FieldFilter['op'], value?: FieldFilter['value']): FieldFilter => (value === undefined ? { field, op } : { field, op, value });

it('filters eq is the exact filter: type-exact, null matching null and absent', async (store) => {
  await lookalikes(store);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'eq', 1)] }), ['num1']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'eq', '1')] }), ['str1']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'eq', true)] }), ['true']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'eq', false)] }), ['false']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'eq', null)] }), ['null', 'absent']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'eq', '{"a":1}')] }), []);
});

it('filters ne is every record eq does not match: null and absent members included', async (store) => {
  await lookalikes(store);
  const all = await listIds(store, {});
  const without = (...gone: string[]) => all.filter((id) => !gone.includes(id));
  assert.deepEqual(await listIds(store, { filters: [f('v', 'ne', 1)] }), without('num1'));
  assert.deepEqual(await listIds(store, { filters: [f('v', 'ne', '1')] }), without('str1'));
  assert.deepEqual(await listIds(store, { filters: [f('v', 'ne', true)] }), without('true'));
  assert.deepEqual(await listIds(store, { filters: [f('v', 'ne', null)] }), without('null', 'absent'));
});

it('filters lt, lte, gt, gte compare numbers with numbers and strings with strings, by code point', async (store) => {
  await lookalikes(store);
  await store.insert(R, { id: 'neg', data: { v: -3 } });
  await store.insert(R, { id: 'strB', data: { v: 'B' } });
  await store.insert(R, { id: 'strb', data: { v: 'b' } });
  // Booleans (stored 1/0 by some databases), null, absent, objects and arrays never match.
  assert.deepEqual(await listIds(store, { filters: [f('v', 'lt', 1)] }), ['num0', 'neg']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'lte', 1)] }), ['num1', 'num0', 'neg']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'gt', 1)] }), ['float']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'gte', 1)] }), ['num1', 'float']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'gte', 1.5)] }), ['float']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'lt', '1')] }), ['str0', 'empty']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'lte', '1')] }), ['str1', 'str0', 'empty']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'gt', 'a')] }), ['strnull', 'strtrue', 'strb']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'gte', 'B')] }), ['strnull', 'strtrue', 'strB', 'strb']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'gt', 'B'), f('v', 'lt', 'o')] }), ['strnull', 'strb']);
});

it('filters and sorts by members named as real APIs name them (@rank, $v) and by names the SQL text cannot hold (a space, a quote), in the order of their arguments', async (store) => {
  for (const [id, n, s] of [['a', 1, 'x'], ['b', 5, 'm'], ['c', 9, 'c']] as const) {
    await store.insert(R, { id, data: { '@rank': n, $v: s, "it's v": n, 'a b': s } });
  }
  for (const field of ['@rank', "it's v"]) {
    assert.deepEqual(await listIds(store, { filters: [f(field, 'gte', 5)] }), ['b', 'c'], `${field} gte`);
    assert.deepEqual(await listIds(store, { filters: [f(field, 'gt', 1), f(field, 'lt', 9)] }), ['b'], `${field} gt lt`);
    assert.deepEqual(await listIds(store, { filters: [f(field, 'eq', 9)] }), ['c'], `${field} eq`);
    const page = await store.list(R, { limit: 10, sort: [{ field, direction: 'desc' }] });
    assert.deepEqual(page.records.map((r) => r.id), ['c', 'b', 'a'], `${field} sorted`);
  }
  for (const field of ['$v', 'a b']) {
    assert.deepEqual(await listIds(store, { filters: [f(field, 'lte', 'm')] }), ['b', 'c'], `${field} lte`);
    assert.deepEqual(await listIds(store, { filters: [f(field, 'prefix', 'x')] }), ['a'], `${field} prefix`);
  }
});

it('filters in matches any of its values, each type-exact; a null among them matches null and absent', async (store) => {
  await lookalikes(store);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'in', [1, 0])] }), ['num1', 'num0']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'in', ['1', 'true'])] }), ['str1', 'strtrue']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'in', [true])] }), ['true']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'in', [1.5, '0', false, null])] }), ['false', 'str0', 'null', 'absent', 'float']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'in', [])] }), []);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'in', [2, 'x'])] }), []);
});

it('search finds records any of whose text fields holds the text, ASCII letters without case, with the other conditions', async (store) => {
  const [dune, , neuro, , weird] = await insertAll(store, [
    { title: 'Dune', blurb: 'Spice and sand' },
    { title: 'Solaris', blurb: 'An ocean that thinks' },
    { title: 'Neuromancer', blurb: 'The sky above the port', year: 1984 },
    { title: 'Other', blurb: 42 },
    { 'odd key': 'SAND dunes' },
  ]);
  const found = async (text: string, fields: string[], extra: Partial<ListQuery> = {}) => ids((await store.list(R, { limit: 100, search: { fields, text }, ...extra })).records);
  assert.deepEqual(await found('sand', ['title', 'blurb']), [dune.id]);
  assert.deepEqual(await found('SAND', ['title', 'blurb', 'odd key']), [dune.id, weird.id], 'case folded, and a field name that is no identifier');
  assert.deepEqual(await found('the', ['blurb'], { filters: [{ field: 'year', op: 'gte', value: 1980 }] }), [neuro.id]);
  assert.deepEqual(await found('42', ['blurb']), [], 'a number is not text');
  assert.deepEqual(await found('zzz', ['title', 'blurb']), []);
  assert.equal(await store.count(R, { search: { fields: ['title', 'blurb'], text: 'an' } }), 3, 'Dune (and), Solaris (An ocean), Neuromancer');
});

it('filters prefix and contains match strings only, case-sensitively, any code point', async (store) => {
  const words: [string, unknown][] = [['a', 'apple'], ['b', 'Apple'], ['c', 'application'], ['d', 'snapple'], ['e', 'ap'], ['f', 12], ['g', null], ['h', 'äpfel'], ['i', 'ap\u{10FFFF}x'], ['j', 'aq']];
  for (const [id, v] of words) await store.insert(R, { id, data: { v } });
  await store.insert(R, { id: 'k', data: {} });
  assert.deepEqual(await listIds(store, { filters: [f('v', 'prefix', 'ap')] }), ['a', 'c', 'e', 'i']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'prefix', 'app')] }), ['a', 'c']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'prefix', 'ä')] }), ['h']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'prefix', 'ap\u{10FFFF}')] }), ['i']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'prefix', '')] }), ['a', 'b', 'c', 'd', 'e', 'h', 'i', 'j'], 'the empty prefix: every string');
  assert.deepEqual(await listIds(store, { filters: [f('v', 'prefix', '1')] }), [], 'a number is not its digits');
  assert.deepEqual(await listIds(store, { filters: [f('v', 'contains', 'ppl')] }), ['a', 'b', 'c', 'd']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'contains', 'App')] }), ['b']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'contains', '%')] }), [], 'no wildcards');
  assert.deepEqual(await listIds(store, { filters: [f('v', 'contains', '2')] }), []);
});

it('filters exists and absent split the records: present and not null, or null or absent', async (store) => {
  await lookalikes(store);
  const all = await listIds(store, {});
  assert.deepEqual(await listIds(store, { filters: [f('v', 'absent')] }), ['null', 'absent']);
  assert.deepEqual(await listIds(store, { filters: [f('v', 'exists')] }), all.filter((id) => id !== 'null' && id !== 'absent'));
});

it('filters combine with each other, with filter, with the owner and with a sorted keyset walk', async (store) => {
  for (let i = 0; i < 120; i++) await store.insert(R, { owner: i % 2 ? 'ann' : 'bob', data: { n: i % 10, s: `k${i % 7}`, ...(i % 9 === 0 ? {} : { m: i % 4 }) } });
  const filters = [f('n', 'gte', 2), f('n', 'lt', 8), f('s', 'in', ['k1', 'k2', 'k3', 'k5']), f('m', 'ne', 3)];
  const filter = { n: 5 };
  const expected = (await store.list(R, { limit: 1000 })).records.filter((r) => r.owner === 'ann' && (r.data.n as number) >= 2 && (r.data.n as number) < 8 && ['k1', 'k2', 'k3', 'k5'].includes(r.data.s as string) && r.data.m !== 3 && r.data.n === 5);
  for (const sort of [[], [{ field: 'm', direction: 'asc' }], [{ field: 'm', direction: 'desc' }, { field: 'n', direction: 'asc' }]] as SortKey[][]) {
    const want = ids([...expected].sort(comparator(sort)));
    assert.ok(want.length >= 2);
    assert.deepEqual(ids(await walk(store, sort, 1, { filters, filter, owner: 'ann' })), want);
    assert.deepEqual(await listIds(store, { filters, filter, owner: 'ann', sort }), want);
  }
});

it('filter and sort field names are single keys, dots and quotes included', async (store) => {
  await store.insert(R, { id: 'a', data: { 'a.b': 1, 'we"ird': 'z', "it's": 2, 'back\\slash': 1, a: { b: 2 } } });
  await store.insert(R, { id: 'b', data: { 'a.b': 2, 'we"ird': 'y', "it's": 1, 'back\\slash': 2, a: { b: 1 } } });
  assert.deepEqual(await listIds(store, { filter: { 'a.b': 1 } }), ['a']);
  assert.deepEqual(await listIds(store, { filter: { 'we"ird': 'y' } }), ['b']);
  assert.deepEqual(await listIds(store, { filter: { "it's": 2 } }), ['a']);
  assert.deepEqual(await listIds(store, { filter: { 'back\\slash': 2 } }), ['b']);
  assert.deepEqual(await listIds(store, { sort: [{ field: 'we"ird', direction: 'asc' }] }), ['b', 'a']);
  assert.deepEqual(await listIds(store, { sort: [{ field: 'a.b', direction: 'desc' }] }), ['b', 'a']);
  assert.deepEqual(await listIds(store, { filter: { 'x"; DROP TABLE things; --': 1 } }), []);
});

// ---------------------------------------------------------------------------------------
// list: order

it('list without a sort returns insertion order', async (store) => {
  await store.insert(R, { id: 'z', data: {} });
  await store.insert(R, { id: 'a', data: {} });
  await store.insert(R, { id: 'm', data: {} });
  assert.deepEqual(await listIds(store, {}), ['z', 'a', 'm']);
});

it('list sorts ascending and descending on one field, ties in insertion order', async (store) => {
  await store.insert(R, { id: 'a', data: { n: 2 } });
  await store.insert(R, { id: 'b', data: { n: 1 } });
  await store.insert(R, { id: 'c', data: { n: 2 } });
  await store.insert(R, { id: 'd', data: { n: 10 } });
  await store.insert(R, { id: 'e', data: { n: 1 } });
  assert.deepEqual(await listIds(store, { sort: [{ field: 'n', direction: 'asc' }] }), ['b', 'e', 'a', 'c', 'd']);
  assert.deepEqual(await listIds(store, { sort: [{ field: 'n', direction: 'desc' }] }), ['d', 'a', 'c', 'b', 'e']);
});

it('list sorts strings by code point, numbers numerically', async (store) => {
  await store.insert(R, { id: 'a', data: { s: 'b', n: 9 } });
  await store.insert(R, { id: 'b', data: { s: 'B', n: 10 } });
  await store.insert(R, { id: 'c', data: { s: 'a', n: -1 } });
  await store.insert(R, { id: 'd', data: { s: 'ab', n: 2.5 } });
  assert.deepEqual(await listIds(store, { sort: [{ field: 's', direction: 'asc' }] }), ['b', 'c', 'd', 'a']);
  assert.deepEqual(await listIds(store, { sort: [{ field: 'n', direction: 'asc' }] }), ['c', 'd', 'a', 'b']);
});

it('list sorts on two fields with mixed directions', async (store) => {
  await store.insert(R, { id: 'a', data: { g: 'x', n: 1 } });
  await store.insert(R, { id: 'b', data: { g: 'y', n: 2 } });
  await store.insert(R, { id: 'c', data: { g: 'x', n: 3 } });
  await store.insert(R, { id: 'd', data: { g: 'y', n: 1 } });
  await store.insert(R, { id: 'e', data: { g: 'x', n: 3 } });
  const g = (direction: 'asc' | 'desc'): SortKey => ({ field: 'g', direction });
  const n = (direction: 'asc' | 'desc'): SortKey => ({ field: 'n', direction });
  assert.deepEqual(await listIds(store, { sort: [g('asc'), n('asc')] }), ['a', 'c', 'e', 'd', 'b']);
  assert.deepEqual(await listIds(store, { sort: [g('asc'), n('desc')] }), ['c', 'e', 'a', 'b', 'd']);
  assert.deepEqual(await listIds(store, { sort: [g('desc'), n('asc')] }), ['d', 'b', 'a', 'c', 'e']);
  assert.deepEqual(await listIds(store, { sort: [n('desc'), g('desc')] }), ['c', 'e', 'b', 'd', 'a']);
});

it('list sorts NULLs (null or absent) first ascending and last descending', async (store) => {
  await store.insert(R, { id: 'two', data: { n: 2 } });
  await store.insert(R, { id: 'null', data: { n: null } });
  await store.insert(R, { id: 'one', data: { n: 1 } });
  await store.insert(R, { id: 'absent', data: {} });
  assert.deepEqual(await listIds(store, { sort: [{ field: 'n', direction: 'asc' }] }), ['null', 'absent', 'one', 'two']);
  assert.deepEqual(await listIds(store, { sort: [{ field: 'n', direction: 'desc' }] }), ['two', 'one', 'null', 'absent']);
});

it('list sorts booleans false before true', async (store) => {
  await store.insert(R, { id: 't', data: { b: true } });
  await store.insert(R, { id: 'f', data: { b: false } });
  assert.deepEqual(await listIds(store, { sort: [{ field: 'b', direction: 'asc' }] }), ['f', 't']);
  assert.deepEqual(await listIds(store, { sort: [{ field: 'b', direction: 'desc' }] }), ['t', 'f']);
});

// ---------------------------------------------------------------------------------------
// list: pages

it('list offset and limit page through insertion order', async (store) => {
  await insertAll(store, Array.from({ length: 7 }, (_, i) => ({ i })));
  const page = async (offset: number, limit: number) => (await store.list(R, { offset, limit })).records.map((r) => r.data.i);
  assert.deepEqual(await page(0, 3), [0, 1, 2]);
  assert.deepEqual(await page(3, 3), [3, 4, 5]);
  assert.deepEqual(await page(6, 3), [6]);
  assert.deepEqual(await page(7, 3), []);
  assert.deepEqual(await page(100, 3), []);
  const sorted = await store.list(R, { sort: [{ field: 'i', direction: 'desc' }], offset: 2, limit: 2 });
  assert.deepEqual(sorted.records.map((r) => r.data.i), [4, 3]);
});

it('list hasMore is exact at the boundary', async (store) => {
  await insertAll(store, Array.from({ length: 6 }, (_, i) => ({ i })));
  assert.equal((await store.list(R, { limit: 5 })).hasMore, true);
  assert.equal((await store.list(R, { limit: 6 })).hasMore, false);
  assert.equal((await store.list(R, { limit: 7 })).hasMore, false);
  assert.equal((await store.list(R, { limit: 3, offset: 3 })).hasMore, false);
  assert.equal((await store.list(R, { limit: 2, offset: 3 })).hasMore, true);
  assert.equal((await store.list(R, { limit: 2, filter: { i: 5 } })).hasMore, false);
  const empty = await store.list(R, { limit: 0 });
  assert.deepEqual([empty.records, empty.hasMore], [[], true]);
});

it('list of an empty resource is empty', async (store) => {
  // Records and hasMore; an adapter may add `plain` (store.ts ListResult).
  const pageOf = ({ records, hasMore }: { records: readonly unknown[]; hasMore: boolean }) => ({ records, hasMore });
  assert.deepEqual(pageOf(await store.list(R, { limit: 10 })), { records: [], hasMore: false });
  assert.deepEqual(pageOf(await store.list(R, { limit: 10, sort: [{ field: 'x', direction: 'asc' }], after: { values: [null], seq: 0 } })), { records: [], hasMore: false });
});

it('keyset walks return every record once, in order, for every sort and page size', async (store) => {
  const all = await insertAll(store, keysetData());
  for (const { label, sort } of SORTS) {
    const expected = ids([...all].sort(comparator(sort)));
    const listed = await listIds(store, { sort });
    assert.deepEqual(listed, expected, `one list, sort ${label}`);
    for (const limit of [1, 2, 3, 5, 23, 50]) {
      assert.deepEqual(ids(await walk(store, sort, limit)), expected, `walk, sort ${label}, limit ${limit}`);
    }
  }
});

it('keyset walks see every record that existed before them once while records are inserted between pages', async (store) => {
  const before = await insertAll(store, keysetData());
  for (const { label, sort } of SORTS) {
    let k = 0;
    let pages = 0;
    const seen = await walk(store, sort, 4, {}, async () => {
      // New records land before, at and after the cursor: ties, nulls, extremes. Only
      // between the first pages: more records after the cursor than a page holds, every
      // page, and the walk would never end.
      if (++pages > 4) return;
      for (const data of [{ rank: -1, name: 'a' }, { rank: 99, name: 'z' }, { rank: null }, {}, { rank: 2, name: 'b' }]) {
        await store.insert(R, { data: { ...data, added: k++ } });
      }
    });
    const seenIds = ids(seen);
    assert.equal(new Set(seenIds).size, seenIds.length, `sort ${label}: a record seen twice`);
    const seenSet = new Set(seenIds);
    for (const r of before) assert.ok(seenSet.has(r.id), `sort ${label}: record ${r.id} ${JSON.stringify(r.data)} missed`);
    const cmp = comparator(sort);
    for (let i = 1; i < seen.length; i++) assert.ok(cmp(seen[i - 1], seen[i]) < 0, `sort ${label}: out of order at ${i}`);
    const beforeIds = new Set(ids(before));
    assert.deepEqual(seenIds.filter((id) => beforeIds.has(id)), ids([...before].sort(cmp)), `sort ${label}: pre-existing records in order`);
    // The next sort starts again from the original records alone.
    for (const r of (await store.list(R, { limit: 1000 })).records) if (!beforeIds.has(r.id)) await store.remove(R, r.id);
  }
});

it('keyset walks combine with filters and the owner', async (store) => {
  const data = keysetData();
  for (const [i, d] of data.entries()) await store.insert(R, { data: { ...d, even: i % 2 === 0 }, owner: i % 3 === 0 ? 'ann' : 'bob' });
  const sort: SortKey[] = [{ field: 'rank', direction: 'desc' }, { field: 'name', direction: 'asc' }];
  const expected = await listIds(store, { sort, filter: { even: true }, owner: 'bob' });
  assert.ok(expected.length > 3);
  assert.deepEqual(ids(await walk(store, sort, 2, { filter: { even: true }, owner: 'bob' })), expected);
});

it('keyset after a position whose record is gone continues from that position', async (store) => {
  await insertAll(store, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
  const sort: SortKey[] = [{ field: 'n', direction: 'asc' }];
  const first = await store.list(R, { sort, limit: 2 });
  const last = first.records[1];
  await store.remove(R, last.id);
  const next = await store.list(R, { sort, limit: 2, after: { values: [2], seq: last.seq } });
  assert.deepEqual(next.records.map((r) => r.data.n), [3, 4]);
  assert.equal(next.hasMore, false);
});
