/**
 * A list's declared query (#13, queries): each operator returns every matching record and
 * no other, in each spelling style; what the query does not declare is refused with
 * did-you-mean; sorts are limited to the declared fields; the filters carry into the next
 * page's link. Over real HTTP, against the real SQLite store.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import { mustLoad } from '../support/spec.ts';
import { freshStore } from './support/open-app.ts';

const shelf = (query: string) => `
svcspec: 1
purpose: {name: Shelf, summary: Keeps books., users: [{name: keeper, tasks: [keep books]}]}
resources:
  book:
    plural: books
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      title: {type: string, required: true}
      year: {type: integer}
      on: {type: string, format: date}
      at: {type: string, format: date-time}
      lang: {type: string}
      cover: {type: string, nullable: true}
states: {none: No life cycle.}
endpoints:
  book:
    create: {}
    list:
      query: ${query}
authentication: {none: Open.}
events: {none: None.}
errors: {shape: problem, catalog: {validation-failed: {status: 422, title: Validation failed}}}
limits: {pagination: {style: cursor, defaultSize: 2, maxSize: 50, overMax: clamp}}
versioning: {none: One version.}
`;

const BOOKS = [
  { title: 'Dune', year: 1965, on: '1965-08-01', at: '2026-11-28T09:00:00Z', lang: 'en', cover: 'dune.png' },
  { title: 'Dune Messiah', year: 1969, on: '1969-10-15', at: '2026-11-28T11:48:37.205Z', lang: 'en', cover: null },
  { title: 'Solaris', year: 1961, on: '1961-06-01', at: '2026-11-28T17:00:00Z', lang: 'pl' },
  { title: 'Neuromancer', year: 1984, on: '1984-07-01', lang: 'en', cover: 'n.png' },
  { title: 'La Nuit des temps', year: 1968, on: '1968-01-01', lang: 'fr' },
];

async function serveBooks(t: TestContext, query: string) {
  const store = await freshStore();
  const app = await createApp({ spec: mustLoad(shelf(query)), store });
  t.after(async () => { await app.close(); await store.close(); });
  for (const b of BOOKS) await store.insert('book', { data: b });
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** Every title the list answers for a query, walking its pages by their Link header. */
async function titles(base: string, query: string): Promise<string[]> {
  const out: string[] = [];
  let url: string | undefined = `${base}/books?${query}`;
  while (url) {
    const r: Response = await fetch(url);
    assert.equal(r.status, 200, `${url}: ${await r.clone().text()}`);
    out.push(...((await r.json()) as { items: { title: string }[] }).items.map((b) => b.title));
    const next = /^<([^>]+)>; rel="next"$/.exec(r.headers.get('link') ?? '')?.[1];
    url = next ? `${base}${next}` : undefined;
  }
  return out.sort();
}

const DECLARED = '{filters: {title: [eq, prefix, contains], year: [gte, lte, lt, gt, ne, in], on: [gte, lte], at: [eq, gte, lte, lt, gt], lang: [eq, in], cover: [exists]}, sort: [year, title]}';

test('declared filters: every operator returns every matching record and no other, across pages', async (t) => {
  const base = await serveBooks(t, DECLARED);
  const expect = (pred: (b: (typeof BOOKS)[number]) => boolean) => BOOKS.filter(pred).map((b) => b.title).sort();
  const cases: [string, (b: (typeof BOOKS)[number]) => boolean][] = [
    ['title=Dune', (b) => b.title === 'Dune'],
    ['title[prefix]=Dune', (b) => b.title.startsWith('Dune')],
    ['title[contains]=ui', (b) => b.title.includes('ui')],
    ['year[gte]=1965&year[lte]=1969', (b) => b.year >= 1965 && b.year <= 1969],
    ['year[gt]=1965', (b) => b.year > 1965],
    ['year[lt]=1965', (b) => b.year < 1965],
    ['year[ne]=1984', (b) => b.year !== 1984],
    ['year[in]=1961,1984', (b) => [1961, 1984].includes(b.year)],
    ['on[gte]=1966-01-01', (b) => b.on >= '1966-01-01'],
    // An instant with an offset is compared as that instant (12:00+02:00 is 10:00 UTC), not as text.
    ['at[gte]=2026-11-28T12:00:00%2B02:00', (b) => b.at !== undefined && Date.parse(b.at) >= Date.parse('2026-11-28T10:00:00Z')],
    ['at[lt]=2026-11-28T11:00:00-05:00', (b) => b.at !== undefined && Date.parse(b.at) < Date.parse('2026-11-28T16:00:00Z')],
    // A bound equal to a value, both without a fraction (as the tester writes them): lte takes it, gt does not.
    ['at[lte]=2026-11-28T09:00:00Z', (b) => b.at !== undefined && Date.parse(b.at) <= Date.parse('2026-11-28T09:00:00Z')],
    ['at[gt]=2026-11-28T09:00:00Z', (b) => b.at !== undefined && Date.parse(b.at) > Date.parse('2026-11-28T09:00:00Z')],
    // Equality: the instant, in UTC as written.
    ['at=2026-11-28T11:00:00%2B02:00', (b) => b.at === '2026-11-28T09:00:00Z'],
    ['lang[in]=fr,pl', (b) => ['fr', 'pl'].includes(b.lang)],
    ['cover[exists]=true', (b) => b.cover !== undefined && b.cover !== null],
    ['cover[exists]=false', (b) => b.cover === undefined || b.cover === null],
    ['lang=en&title[prefix]=Dune&sort=-year', (b) => b.lang === 'en' && b.title.startsWith('Dune')],
  ];
  for (const [query, pred] of cases) assert.deepEqual(await titles(base, query), expect(pred), query);
});

test('a date-time written with an offset is kept as the same instant in UTC, so lists order and filter it by time', async (t) => {
  const base = await serveBooks(t, DECLARED);
  const made = await fetch(`${base}/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Offset', at: '2026-11-28T12:30:00+02:00' }) });
  assert.equal(made.status, 201, await made.clone().text());
  assert.equal(((await made.json()) as { at: string }).at, '2026-11-28T10:30:00Z');
  // 10:30Z: before 11:00Z, after 10:00Z (as text, 12:30:00+02:00 was after both).
  assert.ok(!(await titles(base, 'at[gte]=2026-11-28T11:00:00Z')).includes('Offset'));
  assert.ok((await titles(base, 'at[gte]=2026-11-28T10:00:00Z&at[lt]=2026-11-28T11:00:00Z')).includes('Offset'));
  // An offset beyond a day, or a year out of range once moved to UTC, is no date-time.
  assert.equal((await fetch(`${base}/books?at[gte]=2026-11-28T10:00:00%2B99:99`)).status, 422);
  assert.equal((await fetch(`${base}/books?at[gte]=0000-01-01T00:30:00%2B01:00`)).status, 422);
});

test('declared filters refuse what they do not declare, with did-you-mean, in the declared shape', async (t) => {
  const base = await serveBooks(t, DECLARED);
  const refused = async (query: string) => {
    const r = await fetch(`${base}/books?${query}`);
    assert.equal(r.status, 422, query);
    return ((await r.json()) as { errors: { pointer: string; message: string }[] }).errors;
  };
  assert.match((await refused('lang[inn]=fr'))[0].message, /is not a query parameter of this list \(did you mean 'lang\[in\]'\?\)/);
  assert.match((await refused('year=1965'))[0].message, /is not a filter of this list; it filters by title \(title, title\[prefix\]/);
  assert.match((await refused('year[gte]=soon'))[0].message, /must be a whole number, not 'soon'/);
  assert.match((await refused('year[in]=1961,x'))[0].message, /each value must be a whole number, not 'x'/);
  assert.match((await refused('cover[exists]=maybe'))[0].message, /must be true \(present\) or false \(absent\)/);
  assert.match((await refused('sort=lang'))[0].message, /cannot sort by 'lang'; it sorts by 'year', 'title'$/);
  assert.match((await refused('sort=colour'))[0].message, /'colour' is not a field of book; it sorts by 'year', 'title'$/);
  // A date or an instant is refused as one when it is not one; never compared as text.
  assert.match((await refused('on[gte]=yesterday'))[0].message, /must be a date \(RFC 3339, e\.g\. 2026-06-01\), not 'yesterday'/);
  assert.match((await refused('on[lte]=2026-02-30'))[0].message, /must be a date/);
  assert.match((await refused('at[gte]=0'))[0].message, /must be a date and time with an offset \(RFC 3339/);
  assert.match((await refused('at[lt]=2026-11-28T10:00:00'))[0].message, /must be a date and time with an offset/);
  // The '+' of an offset sent unencoded reads as a space: said so.
  assert.match((await refused('at[gte]=2026-11-28T12:00:00+02:00'))[0].message, /a '\+' in a query string reads as a space: write it %2B/);
  // A field with an operator the list does not declare: what it filters by, as for the bare field.
  assert.match((await refused('title[gte]=A'))[0].message, /^is not a filter of this list; it filters by title \(title, title\[prefix\]/);
});

test('the colon and suffix styles spell the same filters (json-server writes year:gte)', async (t) => {
  for (const [style, query] of [['colon', 'year:gte=1965&title:prefix=Dune'], ['suffix', 'year_gte=1965&title_prefix=Dune']]) {
    const base = await serveBooks(t, `{filters: {title: [prefix], year: [gte]}, style: ${style}}`);
    assert.deepEqual(await titles(base, query), ['Dune', 'Dune Messiah'], style);
    assert.equal((await fetch(`${base}/books?year[gte]=1965`)).status, 422, `${style}: the brackets spelling is not this list's`);
  }
});

test('a declared full-text parameter finds every record whose searched fields hold the text, without case', async (t) => {
  const base = await serveBooks(t, '{filters: {year: [gte]}, search: {param: q, fields: [title, lang]}}');
  assert.deepEqual(await titles(base, 'q=DUNE'), ['Dune', 'Dune Messiah']);
  assert.deepEqual(await titles(base, 'q=fr'), ['La Nuit des temps'], 'any of the fields: lang');
  assert.deepEqual(await titles(base, 'q=dune&year[gte]=1966'), ['Dune Messiah'], 'with the filters');
  assert.deepEqual(await titles(base, 'q=nothing-like-it'), []);
});
