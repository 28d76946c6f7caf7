/**
 * The list operation: page sizes (default, maximum, clamp or reject), cursor and offset
 * pages, the Link header, keyset stability under inserts, filters and sorts, and cursors
 * that were tampered with. Records are seeded through the store, so these tests stand on
 * their own beside the create endpoint.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../src/store/store.ts';
import { SAFETY } from '../../src/spec/defaults.ts';
import { nextLink } from '../../src/serve/pagination.ts';
import { exampleSpec, serve } from './support/open-app.ts';

const shelf = (pagination: string, extra = '') => `
svcspec: 1
purpose: {name: Shelf, summary: Keeps items., users: [{name: keeper, tasks: [keep items]}]}
resources:
  person:
    plural: people
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      name: {type: string, required: true}
  item:
    plural: items
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      title: {type: string, required: true}
      rank: {type: integer}
      score: {type: number}
      done: {type: boolean}
      kind: {type: string, enum: [a, b, c]}
      person: {type: ref, resource: person, nullable: true}
      secret: {type: string, writeOnly: true}
      tags: {type: array, items: {type: string}}
states: {none: No life cycle.}
endpoints:
  item: [list]
  person: [list]
authentication: {none: Open.}
events: {none: None.}
errors: {shape: problem, catalog: {validation-failed: {status: 422, title: Validation failed}}}
limits: {${pagination}}
versioning: {none: One version.}
${extra}`;

const REJECT = shelf('pagination: {style: cursor, defaultSize: 3, maxSize: 5, overMax: reject}');
const CLAMP = shelf('pagination: {style: cursor, defaultSize: 3, maxSize: 5, overMax: clamp}');
const SILENT = shelf('');

interface Page { items: Record<string, unknown>[]; next: string | null; offset?: number }
interface Problem { code: string; status: number; errors?: { pointer: string; message: string }[] }

async function seed(store: Store, n: number, make: (i: number) => Record<string, unknown> = (i) => ({ title: `t${i}` })): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await store.insert('item', { data: make(i) })).id);
  return ids;
}

async function get(app: FastifyInstance, url: string) {
  const r = await app.inject({ method: 'GET', url });
  return { status: r.statusCode, headers: r.headers, body: r.json() as Page & Problem };
}

/** The target of `Link: <...>; rel="next"`, or undefined. */
function nextOf(link: unknown): string | undefined {
  if (typeof link !== 'string') return undefined;
  return /^<([^>]*)>; rel="next"$/.exec(link)?.[1];
}

async function walk(app: FastifyInstance, first: string, between?: (page: number) => Promise<void>): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  let url: string | undefined = first;
  for (let page = 0; url; page++) {
    const r = await get(app, url);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    seen.push(...r.body.items);
    url = nextOf(r.headers.link);
    assert.equal(url === undefined, r.body.next === null, 'Link next and body next agree');
    if (between) await between(page);
    assert.ok(page < 1000, 'the walk ends');
  }
  return seen;
}

function violation(body: Problem, pointer: string): string {
  assert.equal(body.code, 'validation-failed', JSON.stringify(body));
  const v = body.errors?.find((e) => e.pointer === pointer);
  assert.ok(v, `a violation at ${pointer}: ${JSON.stringify(body.errors)}`);
  return v.message;
}

describe('page size', () => {
  test('the default size, a cursor and a Link to the next page', async (t) => {
    const { app, store } = await serve(t, REJECT);
    await seed(store, 7);
    const r = await get(app, '/items');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['items', 'next']);
    assert.deepEqual(r.body.items.map((i) => i.id), [1, 2, 3]);
    assert.equal(typeof r.body.next, 'string');
    assert.equal(r.headers.link, `</items?limit=3&cursor=${r.body.next}>; rel="next"`);
  });

  test('the maximum is served; above it is refused when the spec says reject', async (t) => {
    const { app, store } = await serve(t, REJECT);
    await seed(store, 7);
    assert.equal((await get(app, '/items?limit=5')).body.items.length, 5);
    const r = await get(app, '/items?limit=6');
    assert.equal(r.status, 422);
    assert.match(violation(r.body, '/query/limit'), /at most 5/);
  });

  test('above the maximum is clamped when the spec says clamp', async (t) => {
    const { app, store } = await serve(t, CLAMP);
    await seed(store, 7);
    const r = await get(app, '/items?limit=1000000000000000000000');
    assert.equal(r.status, 200);
    assert.equal(r.body.items.length, 5);
    assert.match(String(r.headers.link), /limit=5&/, 'the link carries the size actually used');
  });

  for (const bad of ['0', '-1', '1.5', 'abc', '', '+3', ' 3', '0x3']) {
    test(`size '${bad}' is refused`, async (t) => {
      const { app } = await serve(t, CLAMP);
      const r = await get(app, `/items?limit=${encodeURIComponent(bad)}`);
      assert.equal(r.status, 422);
      violation(r.body, '/query/limit');
    });
  }

  test('a silent spec pages by the safety default, cursor style, clamped', async (t) => {
    const { app, store } = await serve(t, SILENT);
    await seed(store, SAFETY.pageSize + 5);
    const first = await get(app, '/items');
    assert.equal(first.body.items.length, SAFETY.pageSize);
    assert.equal(typeof first.body.next, 'string');
    const big = await get(app, `/items?limit=${SAFETY.pageSize * 10}`);
    assert.equal(big.status, 200);
    assert.equal(big.body.items.length, SAFETY.pageSize);
    const rest = await get(app, `/items?cursor=${first.body.next}`);
    assert.equal(rest.body.items.length, 5);
    assert.equal(rest.body.next, null);
    assert.equal(rest.headers.link, undefined);
  });

  test('an empty collection and an exact last page', async (t) => {
    const { app, store } = await serve(t, REJECT);
    assert.deepEqual((await get(app, '/items')).body, { items: [], next: null });
    await seed(store, 6);
    const first = await get(app, '/items');
    const second = await get(app, `/items?cursor=${first.body.next}`);
    assert.equal(second.body.items.length, 3);
    assert.equal(second.body.next, null, 'no empty third page is promised');
  });
});

describe('cursor walks', () => {
  test('every record once, in insertion order', async (t) => {
    const { app, store } = await serve(t, REJECT);
    const ids = await seed(store, 17);
    const seen = await walk(app, '/items?limit=4');
    assert.deepEqual(seen.map((i) => String(i.id)), ids);
  });

  for (const sort of ['', 'rank', '-rank', 'kind,-score', '-done,title']) {
    test(`inserting between pages neither repeats nor skips a record (sort '${sort}')`, async (t) => {
      const { app, store } = await serve(t, REJECT);
      // Ties, nulls and gaps in the sort values, so new records land before, between and after.
      const make = (i: number) => ({ title: `t${i % 7}`, rank: i % 4 === 0 ? null : (i * 37) % 11, score: (i * 13) % 5, kind: ['a', 'b', 'c'][i % 3], done: i % 2 === 0 });
      const before = await seed(store, 30, make);
      let n = 1000;
      const seen = await walk(app, `/items?limit=4${sort ? `&sort=${sort}` : ''}`, async () => {
        await seed(store, 3, () => make(n++));
      });
      const ids = seen.map((i) => String(i.id));
      assert.equal(new Set(ids).size, ids.length, 'no record twice');
      for (const id of before) assert.ok(ids.includes(id), `record ${id} is not skipped`);
    });
  }

  test('the Link repeats filters, sort and size', async (t) => {
    const { app, store } = await serve(t, REJECT);
    await seed(store, 12, (i) => ({ title: `t${i}`, kind: i % 2 ? 'a' : 'b', rank: i % 3 }));
    const r = await get(app, '/items?kind=a&sort=-rank,title&limit=2');
    const next = nextOf(r.headers.link);
    assert.ok(next);
    const url = new URL(next, 'http://x');
    assert.equal(url.pathname, '/items');
    assert.deepEqual([...url.searchParams.keys()], ['kind', 'sort', 'limit', 'cursor']);
    assert.equal(url.searchParams.get('sort'), '-rank,title');
    const all = await walk(app, '/items?kind=a&sort=-rank,title&limit=2');
    assert.equal(all.length, 6);
    assert.ok(all.every((i) => i.kind === 'a'));
    const ranks = all.map((i) => i.rank as number);
    assert.deepEqual(ranks, [...ranks].sort((a, b) => b - a));
  });

  test('over a real socket, following Link headers with fetch', async (t) => {
    const { app, store } = await serve(t, REJECT);
    const ids = await seed(store, 11);
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const seen: unknown[] = [];
    let url: string | undefined = `${base}/items?limit=5`;
    while (url) {
      const r = await fetch(url);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      seen.push(...((await r.json()) as Page).items.map((i) => String(i.id)));
      const link = nextOf(r.headers.get('link'));
      url = link ? new URL(link, base).href : undefined;
    }
    assert.deepEqual(seen, ids);
  });
});

describe('the next link', () => {
  test('repeats the carried query in order, encoded where it must be (commas kept), then the size and the position', () => {
    const q = { size: 20, filter: {}, filters: [], sort: [], carried: [['kind', 'a b'], ['sort', 'title,-year'], ['tag', 'é&=?#'], ['page[size]', 'x']] as const } as unknown as Parameters<typeof nextLink>[1];
    assert.equal(nextLink('/items', q, 'limit', 'cursor', '2abc_-'), '</items?kind=a%20b&sort=title,-year&tag=%C3%A9%26%3D%3F%23&page%5Bsize%5D=x&limit=20&cursor=2abc_->; rel="next"');
    const plain = { ...q, carried: [] } as Parameters<typeof nextLink>[1];
    assert.equal(nextLink('/items', plain, 'page size', 'at,', 'a/b'), '</items?page%20size=20&at,=a%2Fb>; rel="next"');
  });
});

describe('cursors that were not issued as they are', () => {
  test('tampered, garbage, or for another sort or resource: refused on the cursor parameter', async (t) => {
    const { app, store } = await serve(t, REJECT);
    await seed(store, 10);
    await store.insert('person', { data: { name: 'p' } });
    const cursor = (await get(app, '/items')).body.next as string;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const bad = [flip(cursor, 0), flip(cursor, 7), flip(cursor, cursor.length - 2), cursor.slice(0, -3), `${cursor}x`, 'abc', 'not a cursor', '%00', Buffer.from('{"s":1,"v":[]}').toString('base64url')];
    for (const c of bad) {
      const r = await get(app, `/items?cursor=${encodeURIComponent(c)}`);
      assert.equal(r.status, 422, `cursor ${c}`);
      violation(r.body, '/query/cursor');
    }
    const sorted = await get(app, `/items?sort=title&cursor=${cursor}`);
    assert.match(violation(sorted.body, '/query/cursor'), /another sort order/);
    const other = await get(app, `/people?cursor=${cursor}`);
    assert.match(violation(other.body, '/query/cursor'), /another collection/);
  });

  test('another spelling of the same bytes is refused: only the canonical base64url is a cursor (RFC 4648 §3.5)', async (t) => {
    const { app, store } = await serve(t, REJECT);
    await seed(store, 10);
    // Pages of 3 from the 1st record: the first page's cursor is the position of the 3rd record.
    const cursor = (await get(app, '/items')).body.next as string;
    const body = cursor.slice(9);
    const tail = body.length % 4;
    assert.notEqual(tail, 0, `the cursor of a short position ends in a partial group: ${cursor}`);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(body.at(-1)!);
    // Bits of the last character past the last byte: a lenient decoder reads the same bytes.
    const alias = `${cursor.slice(0, -1)}${alphabet[last | (tail === 2 ? 0x0f : 0x03)]}`;
    assert.notEqual(alias, cursor);
    assert.deepEqual(Buffer.from(alias.slice(9), 'base64url'), Buffer.from(body, 'base64url'));
    assert.equal((await get(app, `/items?cursor=${cursor}`)).status, 200);
    const r = await get(app, `/items?cursor=${alias}`);
    assert.equal(r.status, 422);
    violation(r.body, '/query/cursor');
  });
});

describe('filters', () => {
  async function filtered(t: TestContext, query: string): Promise<{ status: number; body: Page & Problem }> {
    const { app, store } = await serve(t, CLAMP);
    await seed(store, 5, (i) => ({ title: `t${i}`, rank: i, score: i / 2, done: i % 2 === 0, kind: ['a', 'b', 'c'][i % 3], person: i < 2 ? null : i, secret: 's', tags: ['x'] }));
    return get(app, `/items?limit=5&${query}`);
  }
  const cases: [string, string[]][] = [
    ['kind=a', ['t0', 't3']],
    ['done=true', ['t0', 't2', 't4']],
    ['done=false&kind=b', ['t1']],
    ['rank=3', ['t3']],
    ['rank=-3', []],
    ['score=1.5', ['t3']],
    ['score=2', ['t4']],
    ['person=null', ['t0', 't1']],
    ['person=4', ['t4']],
    ['title=t2', ['t2']],
    ['title=nothing', []],
  ];
  for (const [query, titles] of cases) {
    test(`?${query}`, async (t) => {
      const r = await filtered(t, query);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.items.map((i) => i.title), titles);
      for (const i of r.body.items) assert.ok(!('secret' in i), 'writeOnly fields are never listed');
    });
  }
  const refused: [string, string, RegExp][] = [
    ['rank=abc', '/query/rank', /whole number/],
    ['rank=1.0', '/query/rank', /whole number/],
    ['score=1e', '/query/score', /number/],
    ['done=yes', '/query/done', /true or false/],
    ['kind=z', '/query/kind', /'a', 'b', 'c'/],
    ['person=bob', '/query/person', /whole number/],
    ['secret=s', '/query/secret', /write-only/],
    ['tags=x', '/query/tags', /array/],
    ['id=1', '/query/id', /the id/],
    ['titel=t1', '/query/titel', /did you mean 'title'/],
    ['colour=red', '/query/colour', /is not a query parameter/],
    ['kind=a&kind=b', '/query/kind', /more than once/],
  ];
  for (const [query, pointer, message] of refused) {
    test(`?${query} is refused`, async (t) => {
      const r = await filtered(t, query);
      assert.equal(r.status, 422);
      assert.match(violation(r.body, pointer), message);
    });
  }
  test('every problem of a query is listed at once', async (t) => {
    const r = await filtered(t, 'rank=x&colour=red&sort=nope&limit=0');
    assert.deepEqual(r.body.errors?.map((e) => e.pointer).sort(), ['/query/colour', '/query/limit', '/query/rank', '/query/sort']);
  });
});

describe('sorts', () => {
  async function sorted(t: TestContext, sort: string) {
    const { app, store } = await serve(t, CLAMP);
    const rows = [
      { title: 'b', rank: 2, kind: 'a' },
      { title: 'a', rank: 1, kind: 'b' },
      { title: 'c', rank: 2, kind: 'b' },
      { title: 'a', rank: 3, kind: 'a' },
      { title: 'd', kind: 'c' },
    ];
    for (const data of rows) await store.insert('item', { data });
    return get(app, `/items?limit=5&sort=${sort}`);
  }
  const cases: [string, number[]][] = [
    ['title', [2, 4, 1, 3, 5]],
    ['-title', [5, 3, 1, 2, 4]],
    ['rank', [5, 2, 1, 3, 4]],
    ['-rank', [4, 1, 3, 2, 5]],
    ['kind,-rank', [4, 1, 3, 2, 5]],
    ['title,-rank', [4, 2, 1, 3, 5]],
  ];
  for (const [sort, ids] of cases) {
    test(`?sort=${sort} (ties by insertion, nulls first)`, async (t) => {
      const r = await sorted(t, sort);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.items.map((i) => i.id), ids);
    });
  }
  const refused: [string, RegExp][] = [
    ['titel', /'titel' is not a field of item \(did you mean 'title'\?\)/],
    ['-secret', /write-only/],
    ['tags', /array/],
    ['', /empty sort key/],
    ['title,', /empty sort key/],
    ['title,-title', /twice/],
  ];
  for (const [sort, message] of refused) {
    test(`?sort=${sort} is refused`, async (t) => {
      const r = await sorted(t, sort);
      assert.equal(r.status, 422);
      assert.match(violation(r.body, '/query/sort'), message);
    });
  }
});

describe('offset pages (helpdesk.yaml)', () => {
  test('{ items, offset, next }, Link with the next offset, the version query parameter accepted', async (t) => {
    const { app, store } = await serve(t, await exampleSpec('helpdesk.yaml'));
    for (let i = 0; i < 45; i++) await store.insert('ticket', { data: { subject: `ticket ${i}`, status: i % 2 ? 'open' : 'closed', description: 'x', requesterEmail: 'a@b.example' } });
    const first = await get(app, '/tickets?version=2');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(Object.keys(first.body), ['items', 'offset', 'next']);
    assert.equal(first.body.items.length, 20);
    assert.equal(first.body.offset, 0);
    assert.equal(first.body.next, 20);
    assert.equal(first.headers.link, '</tickets?version=2&limit=20&offset=20>; rel="next"');
    const last = await get(app, '/tickets?offset=40&limit=20');
    assert.equal(last.body.items.length, 5);
    assert.equal(last.body.next, null);
    assert.equal(last.headers.link, undefined);
    assert.equal((await get(app, '/tickets?limit=500')).status, 200, 'clamped, not refused');
    const open = await walk(app, '/tickets?status=open&limit=7');
    assert.equal(open.length, 22);
    const bad = await get(app, '/tickets?offset=-1');
    assert.match(violation(bad.body, '/query/offset'), /whole number/);
    const cursor = await get(app, '/tickets?cursor=abc');
    assert.match(violation(cursor.body, '/query/cursor'), /is not a query parameter/);
  });
});

describe('renamed parameters (orders-style pagination)', () => {
  test('pageSize and pageToken, reject over the maximum', async (t) => {
    const { app, store } = await serve(t, shelf('pagination: {style: cursor, defaultSize: 2, maxSize: 4, overMax: reject, params: {size: pageSize, position: pageToken}}'));
    const ids = await seed(store, 9);
    assert.deepEqual((await walk(app, '/items')).map((i) => String(i.id)), ids);
    const over = await get(app, '/items?pageSize=5');
    assert.match(violation(over.body, '/query/pageSize'), /at most 4/);
    const old = await get(app, '/items?limit=2');
    violation(old.body, '/query/limit');
    const first = await get(app, '/items');
    assert.match(String(first.headers.link), /^<\/items\?pageSize=2&pageToken=[A-Za-z0-9_-]+>; rel="next"$/);
  });
});

describe('pages vouched for by the store, and pages that are not (src/store/sqlite-plain.ts)', () => {
  const CODES = `
svcspec: 1
purpose: {name: Codes, summary: Keeps codes., users: [{name: keeper, tasks: [keep codes]}]}
resources:
  code:
    plural: codes
    id: {field: key, assigned: client}
    fields:
      key: {type: string}
      title: {type: string, required: true}
      note: {type: string}
states: {none: No life cycle.}
endpoints:
  code: [create, read, list]
authentication: {none: Open.}
events: {none: None.}
errors: {shape: problem, catalog: {validation-failed: {status: 422, title: Validation failed}}}
limits: {pagination: {style: cursor, defaultSize: 3, maxSize: 10, overMax: clamp}}
versioning: {none: One version.}
`;

  /** Every page over a real socket, its text checked as JSON, and each item what a read of the record gives. */
  async function walk(base: string): Promise<{ key: string }[]> {
    const items: { key: string }[] = [];
    for (let url = `${base}/codes?limit=3`; ;) {
      const r = await fetch(url);
      assert.equal(r.status, 200);
      const text = await r.text();
      const page = JSON.parse(text) as { items: { key: string }[]; next: string | null };
      assert.equal(text, JSON.stringify(page), 'the page is compact JSON with no member twice');
      for (const item of page.items) {
        const read = await fetch(`${base}/codes/${encodeURIComponent(item.key)}`);
        assert.deepEqual(item, await read.json());
      }
      items.push(...page.items);
      if (page.next === null) return items;
      url = `${base}/codes?limit=3&cursor=${encodeURIComponent(page.next)}`;
    }
  }

  test('plain records are vouched for; an id with escapes or an old record holding the id member is not, and every page stays right', async (t) => {
    const { app, store } = await serve(t, CODES, undefined, { anonymous: true });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const post = async (body: unknown) => assert.equal((await fetch(`${base}/codes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status, 201);
    for (const key of ['k1', 'k2', 'k-3.x', 'k4', 'k5']) await post({ key, title: key, note: `"key": ${key}` });
    // The service never writes the id member into a record's data, so the table stays plain.
    assert.equal((await store.list('code', { limit: 10, lean: true })).plain, true);
    assert.deepEqual((await walk(base)).map((i) => i.key), ['k1', 'k2', 'k-3.x', 'k4', 'k5']);
    // An id JSON escapes, created over HTTP: the table is no longer vouched for, and its pages are still right.
    await post({ key: 'a"b\\c\u0001d', title: 'odd' });
    assert.equal((await store.list('code', { limit: 10, lean: true })).plain, false);
    assert.deepEqual((await walk(base)).map((i) => i.key), ['k1', 'k2', 'k-3.x', 'k4', 'k5', 'a"b\\c\u0001d']);
  });

  test('an old record whose data holds the id member is shown as a read shows it, once', async (t) => {
    const { app, store } = await serve(t, CODES, undefined, { anonymous: true });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    await store.insert('code', { id: 'k1', data: { title: 't1' } });
    await store.insert('code', { id: 'k2', data: { key: 'k2', title: 'an old record' } });
    assert.equal((await store.list('code', { limit: 10, lean: true })).plain, false);
    assert.deepEqual((await walk(base)).map((i) => i.key), ['k1', 'k2']);
  });
});
