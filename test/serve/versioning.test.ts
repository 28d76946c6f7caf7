/**
 * Part 9 at run time: selection by header, query and path; the default, and none declared;
 * unknown and retired versions in the declared shape; the deprecation header fields; one
 * stored record seen through every live version with that version's fields, validated by
 * that version's rules, its other-version members kept by replace and update; lists,
 * entity tags and idempotency keys per version. Inline specs with no authentication, so
 * nothing but versioning decides the answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { send, violationAt } from './support/requests.ts';
import { serve } from './support/open-app.ts';

interface SpecOptions {
  readonly select?: string;
  /** The `default:` line, or '' for none. */
  readonly fallback?: string;
  readonly errors?: string;
  readonly versions?: string;
}

const V0 = `"0": {status: retired, released: "2023-01-01"}`;
const V1 = `"1": {status: deprecated, released: "2024-01-01", deprecated: "2026-06-01", sunset: "2027-06-30", docs: "https://example.test/v1-to-v2"}`;
const V2 = `"2": {status: current, released: "2026-06-01"}`;

/** A shelf of books: `isbn10` is version 1's (required there), `isbn` and `shelf.row` version 2's. */
const shelf = (o: SpecOptions = {}) => `
svcspec: 1
purpose: {name: Shelf, summary: Keeps books., users: [{name: keeper, tasks: [keep books]}]}
resources:
  book:
    plural: books
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      title: {type: string, required: true}
      isbn10: {type: string, pattern: '^[0-9]{9}[0-9X]$', required: true, until: "1"}
      isbn: {type: string, pattern: '^97[89][0-9]{10}$', since: "2"}
      pages: {type: integer, minimum: 1}
      shelf:
        type: object
        properties:
          room: {type: string, required: true}
          row: {type: integer, since: "2"}
states: {none: Books have no life cycle.}
endpoints:
  book: [create, read, update, replace, delete, list]
authentication: {none: Open shelves.}
events: {none: None.}
errors: ${o.errors ?? '{shape: problem, catalog: {validation-failed: {status: 422, title: Validation failed}}}'}
limits: {pagination: {style: cursor, defaultSize: 10, maxSize: 50, overMax: clamp}}
versioning:
  select: ${o.select ?? '{header: API-Version}'}
  ${o.fallback ?? 'default: "2"'}
  versions:
    ${(o.versions ?? [V0, V1, V2].join('\n    '))}
`;

const IN = (version: string) => ({ 'api-version': version });
const DEPRECATION_V1 = {
  deprecation: `@${Date.UTC(2026, 5, 1) / 1000}`, // 2026-06-01T00:00:00Z, RFC 9745 §2
  sunset: 'Wed, 30 Jun 2027 00:00:00 GMT', // RFC 8594, IMF-fixdate
  link: '<https://example.test/v1-to-v2>; rel="deprecation"', // RFC 9745 §3
};

describe('selection by header', () => {
  test('the same stored record through version 1 and version 2: each sees its own fields', async (t) => {
    const { app, store } = await serve(t, shelf());
    const made = await send(app, 'POST', '/books', { title: 'Dune', isbn: '9780441013593', shelf: { room: 'A', row: 3 } }, IN('2'));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    // A version 1 client fills in its own field on the same record.
    const patched = await send(app, 'PATCH', `/books/${id}`, { isbn10: '0441013597' }, IN('1'));
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual((await store.get('book', String(id)))?.data, { title: 'Dune', isbn: '9780441013593', shelf: { room: 'A', row: 3 }, isbn10: '0441013597' }, 'one record holds both');
    const v1 = await send(app, 'GET', `/books/${id}`, undefined, IN('1'));
    const v2 = await send(app, 'GET', `/books/${id}`, undefined, IN('2'));
    assert.deepEqual(v1.body, { id, title: 'Dune', isbn10: '0441013597', shelf: { room: 'A' } });
    assert.deepEqual(v2.body, { id, title: 'Dune', isbn: '9780441013593', shelf: { room: 'A', row: 3 } });
    assert.equal(v1.headers['api-version'], '1', 'the version served is named');
    assert.equal(v2.headers['api-version'], '2');
    assert.equal(v1.headers.vary, 'API-Version', 'caches keep the versions apart (RFC 9110 §12.5.5)');
    assert.equal(v2.headers.vary, 'API-Version');
  });

  test('no header: the declared default', async (t) => {
    const { app } = await serve(t, shelf());
    const made = await send(app, 'POST', '/books', { title: 'Dune', isbn: '9780441013593' });
    assert.equal(made.status, 201, 'version 2 rules: isbn accepted, isbn10 not required');
    assert.equal(made.headers['api-version'], '2');
    assert.equal(made.headers.deprecation, undefined);
    assert.deepEqual((await send(app, 'GET', `/books/${made.body.id}`)).body, { id: made.body.id, title: 'Dune', isbn: '9780441013593' });
  });

  test('no default declared: a request naming no version is refused, listing the versions; /docs (and under it) and OPTIONS still answer', async (t) => {
    const { app } = await serve(t, shelf({ fallback: '' }));
    const r = await send(app, 'GET', '/books');
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'unknown-version');
    assert.match(r.body.detail, /names no version, and the API has no default; the versions served are '1' and '2', named in the API-Version header\./);
    assert.equal((await send(app, 'GET', '/books', undefined, IN('2'))).status, 200, 'naming one works');
    for (const url of ['/docs', '/docs/spec']) {
      const docs = await app.inject({ method: 'GET', url });
      assert.equal(docs.statusCode, 200, url);
      assert.match(docs.headers['content-type'] as string, /^text\/html/);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/docs/scalar.js' })).statusCode, 200);
    const options = await app.inject({ method: 'OPTIONS', url: '/books' });
    assert.equal(options.statusCode, 204);
    assert.equal(options.headers.allow, 'POST, GET, HEAD, OPTIONS');
    const wrong = await send(app, 'DELETE', '/books');
    assert.equal(wrong.status, 405, 'a wrong method is 405 whatever the version');
    assert.equal((await send(app, 'GET', '/nowhere')).status, 404, 'an unknown path is 404 whatever the version');
  });

  test('an unknown version is 400 unknown-version; a retired one 410 version-retired', async (t) => {
    const { app } = await serve(t, shelf());
    const unknown = await send(app, 'GET', '/books', undefined, IN('9'));
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'unknown-version');
    assert.match(unknown.body.detail, /^'9' is not a version of this API; the versions served are '1' and '2', named in the API-Version header\.$/);
    const retired = await send(app, 'GET', '/books', undefined, IN('0'));
    assert.equal(retired.status, 410);
    assert.equal(retired.body.code, 'version-retired');
    assert.match(retired.headers['content-type'] as string, /^application\/problem\+json/);
    assert.match(retired.body.detail, /^Version '0' is retired and no longer served/);
    const twice = await app.inject({ method: 'GET', url: '/books', headers: { 'api-version': ['1', '2'] } });
    assert.equal(twice.statusCode, 400, 'two versions at once are no version');
  });

  test('the errors in a custom shape, with the catalog codes mapped by `for:`', async (t) => {
    const errors = `
  shape: {mediaType: application/json, members: {code: error, title: message, detail: explanation}}
  catalog:
    bad-api-version: {status: 400, title: No such API version, for: unknown-version}
    api-version-gone: {status: 410, title: This API version is gone, for: version-retired}`;
    const { app } = await serve(t, shelf({ errors }));
    const unknown = await send(app, 'GET', '/books', undefined, IN('3'));
    assert.equal(unknown.status, 400);
    assert.match(unknown.headers['content-type'] as string, /^application\/json/);
    assert.equal(unknown.body.error, 'bad-api-version');
    assert.equal(unknown.body.message, 'No such API version');
    assert.match(unknown.body.explanation, /'3' is not a version/);
    assert.equal(unknown.body.code, undefined, 'nothing of problem+json beside the declared members');
    const gone = await send(app, 'POST', '/books', { title: 'x' }, IN('0'));
    assert.equal(gone.status, 410);
    assert.deepEqual(Object.keys(gone.body).sort(), ['error', 'explanation', 'message']);
    assert.equal(gone.body.error, 'api-version-gone');
  });

  test('a deprecated version: Deprecation, Sunset and Link, exactly, on successes and errors alike', async (t) => {
    const { app } = await serve(t, shelf());
    const ok = await send(app, 'GET', '/books', undefined, IN('1'));
    assert.equal(ok.status, 200);
    for (const [name, value] of Object.entries(DEPRECATION_V1)) assert.equal(ok.headers[name], value, name);
    const refused = await send(app, 'POST', '/books', { title: 'No isbn10' }, IN('1'));
    assert.equal(refused.status, 422);
    for (const [name, value] of Object.entries(DEPRECATION_V1)) assert.equal(refused.headers[name], value, `${name} on an error`);
    const missing = await send(app, 'GET', '/books/404', undefined, IN('1'));
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.deprecation, DEPRECATION_V1.deprecation);
    const current = await send(app, 'GET', '/books', undefined, IN('2'));
    for (const name of ['deprecation', 'sunset', 'link']) assert.equal(current.headers[name], undefined, `no ${name} on the current version`);
  });

  test('a deprecated version without dates or docs: only what the spec gives, nothing invented', async (t) => {
    const versions = [`"1": {status: deprecated, sunset: "2027-01-31"}`, V2].join('\n    ');
    const { app } = await serve(t, shelf({ versions }));
    const r = await send(app, 'GET', '/books', undefined, IN('1'));
    assert.equal(r.status, 200);
    assert.equal(r.headers.sunset, 'Sun, 31 Jan 2027 00:00:00 GMT');
    assert.equal(r.headers.deprecation, undefined, 'RFC 9745 needs a date; none is made up');
    assert.equal(r.headers.link, undefined, 'no docs, no link');
  });

  test('validation follows the version: a field of another version is unknown, a requirement of another version does not apply', async (t) => {
    const { app } = await serve(t, shelf());
    const v1 = await send(app, 'POST', '/books', { title: 'Dune', isbn10: '0441013597', isbn: '9780441013593', shelf: { room: 'A', row: 1 } }, IN('1'));
    assert.equal(v1.status, 422);
    assert.deepEqual(v1.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/isbn', '/shelf/row']);
    assert.equal(violationAt(v1, '/isbn'), 'is a field of book in version 2 and later, not in version 1');
    assert.equal(violationAt(v1, '/shelf/row'), "is not a field of 'shelf'");
    assert.match(violationAt(await send(app, 'POST', '/books', { title: 'Dune' }, IN('1')), '/isbn10'), /required/);
    // Version 2: isbn10 is not required, and sending it is sending an unknown field.
    assert.equal((await send(app, 'POST', '/books', { title: 'Dune' }, IN('2'))).status, 201);
    const v2 = await send(app, 'POST', '/books', { title: 'Dune', isbn10: '0441013597' }, IN('2'));
    assert.equal(v2.status, 422);
    assert.equal(violationAt(v2, '/isbn10'), 'is a field of book in versions up to 1, not in version 2');
    // Each version's own constraints still apply.
    assert.match(violationAt(await send(app, 'POST', '/books', { title: 'Dune', isbn: '123' }, IN('2')), '/isbn'), /pattern|match|form/i);
  });

  test('replace (PUT) in version 1 keeps what version 2 wrote, at any depth; update (PATCH) too', async (t) => {
    const { app, store } = await serve(t, shelf());
    const made = await send(app, 'POST', '/books', { title: 'Dune', isbn: '9780441013593', pages: 412, shelf: { room: 'A', row: 3 } }, IN('2'));
    const id = String(made.body.id);
    const put = await send(app, 'PUT', `/books/${id}`, { title: 'Dune (1965)', isbn10: '0441013597', shelf: { room: 'B' } }, IN('1'));
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body, { id: made.body.id, title: 'Dune (1965)', isbn10: '0441013597', shelf: { room: 'B' } }, 'pages, not sent, is gone: a replace');
    assert.deepEqual((await store.get('book', id))?.data, { title: 'Dune (1965)', isbn10: '0441013597', shelf: { room: 'B', row: 3 }, isbn: '9780441013593' });
    // A merge patch in version 1 of a record holding a nested member of version 2 is judged by version 1's rules only.
    const patch = await send(app, 'PATCH', `/books/${id}`, { shelf: { room: 'C' } }, IN('1'));
    assert.equal(patch.status, 200, JSON.stringify(patch.body));
    const v2 = await send(app, 'GET', `/books/${id}`, undefined, IN('2'));
    assert.deepEqual(v2.body, { id: made.body.id, title: 'Dune (1965)', isbn: '9780441013593', shelf: { room: 'C', row: 3 } });
  });

  test('lists per version: the items, the filters and the sorts of that version', async (t) => {
    const { app } = await serve(t, shelf());
    await send(app, 'POST', '/books', { title: 'B', isbn10: '0441013597' }, IN('1'));
    await send(app, 'POST', '/books', { title: 'A', isbn: '9780441013593' }, IN('2'));
    const v1 = await send(app, 'GET', '/books?sort=title', undefined, IN('1'));
    assert.equal(v1.status, 200);
    assert.deepEqual(v1.body.items, [{ id: 2, title: 'A' }, { id: 1, title: 'B', isbn10: '0441013597' }]);
    const v2 = await send(app, 'GET', '/books?isbn=9780441013593', undefined, IN('2'));
    assert.deepEqual(v2.body.items, [{ id: 2, title: 'A', isbn: '9780441013593' }]);
    assert.match(violationAt(await send(app, 'GET', '/books?isbn=9780441013593', undefined, IN('1')), '/query/isbn'), /not a query parameter/);
    assert.match(violationAt(await send(app, 'GET', '/books?sort=isbn10', undefined, IN('2')), '/query/sort'), /'isbn10' is not a field of book/);
    assert.equal((await send(app, 'GET', '/books?isbn10=0441013597', undefined, IN('1'))).body.items.length, 1);
  });

  test('entity tags differ by version; a tag of one version matches nothing in another', async (t) => {
    const { app } = await serve(t, shelf());
    const made = await send(app, 'POST', '/books', { title: 'Dune', isbn10: '0441013597' }, IN('1'));
    const id = made.body.id;
    const v1 = await send(app, 'GET', `/books/${id}`, undefined, IN('1'));
    const v2 = await send(app, 'GET', `/books/${id}`, undefined, IN('2'));
    assert.equal(v1.headers.etag, made.headers.etag);
    assert.match(String(v1.headers.etag), /^"[0-9a-z]+\.[0-9a-z]+@1"$/);
    assert.match(String(v2.headers.etag), /^"[0-9a-z]+\.[0-9a-z]+"$/, "the default version's tags are the record's own");
    assert.equal((await send(app, 'GET', `/books/${id}`, undefined, { ...IN('1'), 'if-none-match': String(v1.headers.etag) })).status, 304);
    const cross = await send(app, 'GET', `/books/${id}`, undefined, { ...IN('2'), 'if-none-match': String(v1.headers.etag) });
    assert.equal(cross.status, 200, "version 1's copy is not version 2's");
    assert.equal((await send(app, 'GET', `/books/${id}`, undefined, { ...IN('1'), 'if-none-match': String(v2.headers.etag) })).status, 200);
    assert.equal((await send(app, 'PATCH', `/books/${id}`, { pages: 9 }, { ...IN('1'), 'if-match': String(v2.headers.etag) })).status, 412);
    const ok = await send(app, 'PATCH', `/books/${id}`, { pages: 9 }, { ...IN('1'), 'if-match': String(v1.headers.etag) });
    assert.equal(ok.status, 200);
    assert.match(String(ok.headers.etag), /@1"$/);
  });

  test('an Idempotency-Key replays in its version, and is refused in another', async (t) => {
    const { app, store } = await serve(t, shelf());
    const key = { 'idempotency-key': 'k-1' };
    const first = await send(app, 'POST', '/books', { title: 'Dune' }, { ...IN('2'), ...key });
    assert.equal(first.status, 201);
    const again = await send(app, 'POST', '/books', { title: 'Dune' }, { ...IN('2'), ...key });
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    const other = await send(app, 'POST', '/books', { title: 'Dune' }, { ...IN('1'), ...key });
    // The body is the same, but version 1 would answer another representation: not a repeat.
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'idempotency-key-reused');
    assert.equal((await store.list('book', { filter: {}, sort: [], limit: 10 })).records.length, 1);
  });

  test('one version and no default: it is the version of every request', async (t) => {
    const { app } = await serve(t, shelf({ fallback: '', versions: `"1": {status: current}` }));
    assert.match(violationAt(await send(app, 'POST', '/books', { title: 'Dune' }), '/isbn10'), /required/, "version 1's rules");
    const r = await send(app, 'POST', '/books', { title: 'Dune', isbn10: '0441013597' });
    assert.equal(r.status, 201);
    assert.equal(r.headers['api-version'], '1');
    assert.equal((await send(app, 'GET', '/books', undefined, IN('2'))).status, 400, 'a version it does not have is still unknown');
  });
});

describe('selection by query parameter', () => {
  const spec = () => shelf({ select: '{query: version}' });

  test('?version= selects; no parameter is the default; unknown and retired refused', async (t) => {
    const { app } = await serve(t, spec());
    const made = await send(app, 'POST', '/books?version=1', { title: 'Dune', isbn10: '0441013597' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.headers.deprecation, DEPRECATION_V1.deprecation);
    assert.equal(made.headers.vary, undefined, 'the version is in the URI: nothing to vary on');
    const id = made.body.id;
    assert.deepEqual((await send(app, 'GET', `/books/${id}?version=1`)).body, { id, title: 'Dune', isbn10: '0441013597' });
    assert.deepEqual((await send(app, 'GET', `/books/${id}`)).body, { id, title: 'Dune' }, 'the default, 2');
    assert.equal((await send(app, 'GET', `/books/${id}?version=7`)).body.code, 'unknown-version');
    assert.equal((await send(app, 'GET', `/books/${id}?version=0`)).status, 410);
    assert.equal((await send(app, 'GET', `/books/${id}?version=1&version=2`)).status, 400);
    assert.equal((await send(app, 'GET', '/books', undefined, IN('1'))).headers.deprecation, undefined, 'the header selects nothing here');
  });

  test('a list accepts the parameter and carries it into the next link', async (t) => {
    const { app } = await serve(t, spec());
    for (const title of ['a', 'b', 'c']) await send(app, 'POST', '/books?version=2', { title });
    const page = await send(app, 'GET', '/books?version=1&limit=2');
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.items.length, 2);
    // Version 1 is deprecated: its docs link stays beside the page's next link (RFC 8288 §3, one field, two links).
    assert.match(String(page.headers.link), /^<[^>]+>; rel="deprecation", <\/books\?version=1&limit=2&cursor=[^>]+>; rel="next"$/);
  });
});

describe('selection by path prefix', () => {
  const spec = (fallback?: string) => shelf({ select: '{path: "/v{version}"}', ...(fallback !== undefined ? { fallback } : {}) });

  test('/v1 and /v2 serve the same records in their own fields; Location keeps the prefix', async (t) => {
    const { app } = await serve(t, spec());
    const made = await send(app, 'POST', '/v1/books', { title: 'Dune', isbn10: '0441013597' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.headers.location, `/v1/books/${made.body.id}`);
    for (const [name, value] of Object.entries(DEPRECATION_V1)) assert.equal(made.headers[name], value, name);
    const v2 = await send(app, 'GET', `/v2/books/${made.body.id}`);
    assert.deepEqual(v2.body, { id: made.body.id, title: 'Dune' });
    assert.equal(v2.headers.deprecation, undefined);
    assert.equal((await send(app, 'POST', '/v2/books', { title: 'Dune', isbn10: '0441013597' })).status, 422, "version 2's rules under /v2");
    const bare = await send(app, 'GET', `/books/${made.body.id}`);
    assert.deepEqual(bare.body, v2.body, 'no prefix: the default version');
    const page = await send(app, 'GET', '/v1/books?limit=1');
    assert.deepEqual(page.body.items, [{ id: made.body.id, title: 'Dune', isbn10: '0441013597' }]);
  });

  test('an unknown version in the prefix is unknown-version, a retired one 410, an unknown path still 404', async (t) => {
    const { app } = await serve(t, spec());
    const unknown = await send(app, 'GET', '/v9/books/1');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'unknown-version');
    assert.match(unknown.body.detail, /named in the path prefix \/v\{version\}/);
    const retired = await send(app, 'POST', '/v0/books', { title: 'x' });
    assert.equal(retired.status, 410);
    assert.equal(retired.body.code, 'version-retired');
    assert.equal((await send(app, 'GET', '/v9/nowhere')).status, 404);
    assert.equal((await send(app, 'GET', '/v2/nowhere')).status, 404);
    const options = await app.inject({ method: 'OPTIONS', url: '/v1/books/1' });
    assert.equal(options.statusCode, 204);
    assert.match(options.headers.allow as string, /PATCH/);
    assert.equal((await send(app, 'POST', '/v1/books/1')).status, 405);
    for (const url of ['/docs', '/docs/spec', '/docs/scalar.js']) assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url);
  });

  test('no default declared: a path without a prefix is refused with the versions listed', async (t) => {
    const { app } = await serve(t, spec(''));
    const r = await send(app, 'GET', '/books');
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'unknown-version');
    assert.match(r.body.detail, /names no version/);
    assert.equal((await send(app, 'GET', '/v2/books')).status, 200);
  });
});

describe('no versions', () => {
  test('versioning none: every field served, no version headers, a version header ignored', async (t) => {
    const text = shelf().replace(/versioning:[\s\S]*$/, 'versioning: {none: One version.}\n').replace(/, (since|until): "\d"/g, '');
    const { app } = await serve(t, text);
    assert.doesNotMatch(text, /since|until/);
    const r = await send(app, 'POST', '/books', { title: 'Dune', isbn10: '0441013597', isbn: '9780441013593', shelf: { room: 'A', row: 1 } }, IN('9'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body, { id: 1, title: 'Dune', isbn10: '0441013597', isbn: '9780441013593', shelf: { room: 'A', row: 1 } });
    assert.equal(r.headers['api-version'], undefined);
    assert.equal(r.headers.vary, undefined);
    assert.match(String(r.headers.etag), /^"[0-9a-z]+\.[0-9a-z]+"$/);
  });
});

describe('over a real socket', () => {
  test('header selection, the deprecation fields and Vary as a client receives them', async (t) => {
    const { app } = await serve(t, shelf());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const json = { 'content-type': 'application/json' };
    const made = await fetch(`${base}/books`, { method: 'POST', headers: { ...json, 'API-Version': '1' }, body: JSON.stringify({ title: 'Dune', isbn10: '0441013597' }) });
    assert.equal(made.status, 201);
    assert.equal(made.headers.get('API-Version'), '1');
    assert.equal(made.headers.get('Vary'), 'API-Version');
    assert.equal(made.headers.get('Deprecation'), DEPRECATION_V1.deprecation);
    assert.equal(made.headers.get('Sunset'), DEPRECATION_V1.sunset);
    assert.equal(made.headers.get('Link'), DEPRECATION_V1.link);
    const { id } = (await made.json()) as { id: number };
    const v2 = await fetch(`${base}/books/${id}`, { headers: { 'API-Version': '2' } });
    assert.deepEqual(await v2.json(), { id, title: 'Dune' });
    assert.equal(v2.headers.get('Deprecation'), null);
    const gone = await fetch(`${base}/books/${id}`, { headers: { 'API-Version': '0' } });
    assert.equal(gone.status, 410);
    assert.equal(((await gone.json()) as { code: string }).code, 'version-retired');
  });
});
