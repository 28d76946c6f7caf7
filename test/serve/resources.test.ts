/**
 * Part 2 at run time: create (ids, defaults, the initial state, Location, ETag), read
 * (404, If-None-Match), update (merge patch), replace, delete, conditional writes with
 * If-Match and compare-and-set, and writeOnly fields never leaving the service. Through
 * inject(), and a round over a real socket at the end.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { exampleSpec, serve } from './support/open-app.ts';
import { send, violationAt } from './support/requests.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ETAG = /^"[0-9a-z]+\.[0-9a-z]+"$/;

const TASKS = `
svcspec: 1
purpose: {name: Tasks, summary: Keeps tasks., users: [{name: worker, tasks: [track tasks]}]}
resources:
  task:
    plural: tasks
    id: {field: code, assigned: client}
    fields:
      code: {type: string, pattern: '^[a-z]+$'}
      title: {type: string, required: true}
      owner: {type: string, required: true, nullable: true}
      note: {type: string}
      stage: {type: string, enum: [open, done]}
      priority: {type: integer, default: 3}
      secret: {type: string, writeOnly: true}
      createdBy: {type: string, readOnly: true}
      meta: {type: object, properties: {a: {type: integer}, b: {type: integer}}}
states:
  task:
    field: stage
    initial: open
    transitions:
      finish: {from: open, to: done}
endpoints:
  task: [create, read, update, replace, delete, list, finish]
authentication: {none: Open.}
events: {none: None.}
errors: {shape: problem, catalog: {validation-failed: {status: 422, title: Validation failed}}}
limits: {pagination: {style: cursor, defaultSize: 10, maxSize: 10, overMax: clamp}}
versioning: {none: One version.}
`;

const library = () => exampleSpec('library.yaml');
const DUNE = { title: 'Dune', authors: ['Frank Herbert'] };
const ANN = { name: 'Ann', email: 'ann@example.org', pin: '1234', address: { street: 'Main 1', city: 'Leiden', postalCode: '2311 AB' } };

async function created(app: FastifyInstance, url: string, body: unknown): Promise<{ id: string; etag: string; body: any }> {
  const r = await send(app, 'POST', url, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { id: String(r.body.id ?? r.body.code), etag: String(r.headers.etag), body: r.body };
}

describe('create', () => {
  test('a uuid id, Location and ETag, the spec defaults, and no invented values', async (t) => {
    const { app } = await serve(t, await library());
    const r = await send(app, 'POST', '/books', DUNE);
    assert.equal(r.status, 201);
    assert.match(r.body.id, UUID);
    assert.equal(r.headers.location, `/books/${r.body.id}`);
    assert.match(String(r.headers.etag), ETAG);
    // language and copies have defaults; createdAt, updatedAt and available are managed (the
    // spec gives their sources); nothing else is set: replacementCost, with neither, stays absent.
    assert.equal(r.body.createdAt, r.body.updatedAt);
    assert.match(r.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(r.body, { id: r.body.id, ...DUNE, language: 'en', copies: 1, available: 1, createdAt: r.body.createdAt, updatedAt: r.body.updatedAt });
    const read = await send(app, 'GET', String(r.headers.location));
    assert.deepEqual(read.body, r.body);
    assert.equal(read.headers.etag, r.headers.etag);
  });

  test('sequence ids are integers; the state starts at the initial one; nested defaults apply', async (t) => {
    const { app } = await serve(t, await library());
    const first = await send(app, 'POST', '/members', { ...ANN, contact: { phone: null } });
    const second = await send(app, 'POST', '/members', { ...ANN, name: 'Bo', email: 'bo@example.org' });
    assert.equal(first.status, 201);
    assert.equal(first.body.id, 1);
    assert.equal(second.body.id, 2);
    assert.equal(first.headers.location, '/members/1');
    assert.equal(first.body.status, 'pending');
    assert.deepEqual(first.body.address, { ...ANN.address, country: 'NL' });
    assert.deepEqual(first.body.contact, { phone: null, channel: 'email' });
    assert.equal(first.body.maxLoans, 5);
  });

  test('client ids: required, checked, and a taken one refused on its pointer', async (t) => {
    const { app } = await serve(t, TASKS);
    const r = await send(app, 'POST', '/tasks', { code: 'wash', title: 'Wash', owner: null });
    assert.equal(r.status, 201);
    assert.equal(r.headers.location, '/tasks/wash');
    assert.deepEqual(r.body, { code: 'wash', title: 'Wash', owner: null, stage: 'open', priority: 3 });
    assert.match(violationAt(await send(app, 'POST', '/tasks', { code: 'wash', title: 'Again', owner: 'x' }), '/code'), /^is taken: a task with this id exists$/);
    assert.match(violationAt(await send(app, 'POST', '/tasks', { title: 'No code', owner: 'x' }), '/code'), /^is required$/);
    assert.match(violationAt(await send(app, 'POST', '/tasks', { code: 'Bad1', title: 'x', owner: 'x' }), '/code'), /^must match the pattern/);
  });

  test('the state field is refused even where the spec forgot readOnly, naming the transitions', async (t) => {
    const { app } = await serve(t, TASKS);
    const message = violationAt(await send(app, 'POST', '/tasks', { code: 'a', title: 'A', owner: null, stage: 'done' }), '/stage');
    assert.equal(message, 'is the state of the task; it changes only through its transitions (POST /tasks/{id}/finish)');
    await created(app, '/tasks', { code: 'a', title: 'A', owner: null });
    assert.equal(violationAt(await send(app, 'PATCH', '/tasks/a', { stage: 'done' }), '/stage'), message);
    assert.equal(violationAt(await send(app, 'PUT', '/tasks/a', { title: 'A', owner: null, stage: 'done' }), '/stage'), message);
  });
});

describe('read', () => {
  test('404 for a missing record', async (t) => {
    const { app } = await serve(t, await library());
    const r = await send(app, 'GET', '/books/6f1c1c55-1b7a-4a43-9f1e-3f7c6f0f8a11');
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'not-found');
    assert.equal((await send(app, 'GET', '/members/1')).status, 404);
  });

  test('If-None-Match: 304 with the ETag when the copy is current (weak comparison), 200 otherwise', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', DUNE);
    for (const tag of [book.etag, `W/${book.etag}`, `"0-x", ${book.etag}`, '*']) {
      const r = await send(app, 'GET', `/books/${book.id}`, undefined, { 'if-none-match': tag });
      assert.equal(r.status, 304, tag);
      assert.equal(r.headers.etag, book.etag);
      assert.equal(r.body, undefined);
    }
    const stale = await send(app, 'GET', `/books/${book.id}`, undefined, { 'if-none-match': '"0-stale"' });
    assert.equal(stale.status, 200);
  });
});

describe('update (merge patch)', () => {
  test('changes the fields sent, keeps the rest, and gives a new ETag', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', { ...DUNE, pages: 412 });
    const r = await send(app, 'PATCH', `/books/${book.id}`, { title: 'Dune Messiah' });
    assert.equal(r.status, 200);
    // updatedAt is managed: every write sets it.
    assert.deepEqual(r.body, { ...book.body, title: 'Dune Messiah', updatedAt: r.body.updatedAt });
    assert.ok(r.body.updatedAt >= book.body.updatedAt);
    assert.notEqual(r.headers.etag, book.etag);
    assert.match(String(r.headers.etag), /^"[0-9a-z]+\.2"$/);
  });

  test('application/merge-patch+json is accepted', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', DUNE);
    const r = await app.inject({ method: 'PATCH', url: `/books/${book.id}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: '{"pages": 9}' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().pages, 9);
  });

  test('null removes an optional field; one with a default takes its default again', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', { ...DUNE, pages: 412, language: 'nl' });
    const r = await send(app, 'PATCH', `/books/${book.id}`, { pages: null, language: null });
    assert.equal(r.status, 200);
    assert.equal('pages' in r.body, false);
    assert.equal(r.body.language, 'en');
  });

  test('a required field cannot be removed; a required nullable one takes null', async (t) => {
    const { app } = await serve(t, TASKS);
    await created(app, '/tasks', { code: 'a', title: 'A', owner: 'me' });
    assert.match(violationAt(await send(app, 'PATCH', '/tasks/a', { title: null }), '/title'), /^is required and cannot be removed/);
    const r = await send(app, 'PATCH', '/tasks/a', { owner: null });
    assert.equal(r.status, 200);
    assert.equal(r.body.owner, null);
  });

  test('nested objects merge member by member; removing a nested required member is refused', async (t) => {
    const { app } = await serve(t, await library());
    const member = await created(app, '/members', ANN);
    const r = await send(app, 'PATCH', `/members/${member.id}`, { address: { city: 'Delft' } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.address, { ...ANN.address, city: 'Delft', country: 'NL' });
    assert.match(violationAt(await send(app, 'PATCH', `/members/${member.id}`, { address: { street: null } }), '/address/street'), /^is required and cannot be removed/);
    // An object that was absent is merged into {}: its required members must then be sent.
    const t2 = await created(app, '/members', { ...ANN, email: 'second@example.org', address: undefined });
    assert.match(violationAt(await send(app, 'PATCH', `/members/${t2.id}`, { address: { city: 'Delft' } }), '/address/street'), /^is required$/);
  });

  test('readOnly fields, unknown fields and the state are refused; a missing record is 404', async (t) => {
    const { app } = await serve(t, await library());
    const member = await created(app, '/members', ANN);
    assert.match(violationAt(await send(app, 'PATCH', `/members/${member.id}`, { createdAt: '2026-01-01T00:00:00Z' }), '/createdAt'), /set by the service/);
    assert.match(violationAt(await send(app, 'PATCH', `/members/${member.id}`, { nickname: 'A' }), '/nickname'), /^is not a field of member/);
    assert.match(violationAt(await send(app, 'PATCH', `/members/${member.id}`, { status: 'active' }), '/status'), /POST \/members\/\{id\}\/verify/);
    assert.equal((await send(app, 'PATCH', '/members/99', { name: 'X' })).status, 404);
  });
});

describe('replace', () => {
  test('the writable fields in full; readOnly fields and the state keep their values', async (t) => {
    const { app, store } = await serve(t, TASKS);
    await created(app, '/tasks', { code: 'a', title: 'A', owner: 'me', note: 'n', priority: 1 });
    // As a transition would have: the state moves on, and the service set a readOnly field.
    const stored = (await store.get('task', 'a'))!;
    await store.update('task', 'a', { ...stored.data, stage: 'done', createdBy: 'system' });
    const r = await send(app, 'PUT', '/tasks/a', { title: 'B', owner: null, secret: 's' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { code: 'a', title: 'B', owner: null, stage: 'done', priority: 3, createdBy: 'system' });
    assert.equal('secret' in r.body, false);
  });

  test('required fields must be sent; the id cannot be changed', async (t) => {
    const { app } = await serve(t, TASKS);
    await created(app, '/tasks', { code: 'a', title: 'A', owner: 'me' });
    assert.match(violationAt(await send(app, 'PUT', '/tasks/a', { owner: 'me' }), '/title'), /^is required$/);
    assert.match(violationAt(await send(app, 'PUT', '/tasks/a', { code: 'b', title: 'A', owner: 'me' }), '/code'), /given in the path; it cannot be changed/);
    assert.equal((await send(app, 'PUT', '/tasks/zz', { title: 'A', owner: 'me' })).status, 404);
  });
});

describe('delete', () => {
  test('204 without a body, then 404', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', DUNE);
    const r = await send(app, 'DELETE', `/books/${book.id}`);
    assert.equal(r.status, 204);
    assert.equal(r.body, undefined);
    assert.equal((await send(app, 'GET', `/books/${book.id}`)).status, 404);
    assert.equal((await send(app, 'DELETE', `/books/${book.id}`)).status, 404);
  });

  test('If-Match: a stale tag is 412 and the record stays; the current tag or * deletes', async (t) => {
    const { app } = await serve(t, await library());
    const a = await created(app, '/books', DUNE);
    const b = await created(app, '/books', DUNE);
    const stale = await send(app, 'DELETE', `/books/${a.id}`, undefined, { 'if-match': '"9-stale"' });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.code, 'precondition-failed');
    assert.equal((await send(app, 'GET', `/books/${a.id}`)).status, 200);
    assert.equal((await send(app, 'DELETE', `/books/${a.id}`, undefined, { 'if-match': a.etag })).status, 204);
    assert.equal((await send(app, 'DELETE', `/books/${b.id}`, undefined, { 'if-match': '*' })).status, 204);
  });
});

describe('If-Match and compare-and-set', () => {
  test('a stale tag is 412 (before the body is looked at), a weak one never matches, the current one or * succeeds', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', DUNE);
    const changed = await send(app, 'PATCH', `/books/${book.id}`, { pages: 1 }, { 'if-match': book.etag });
    assert.equal(changed.status, 200);
    const stale = await send(app, 'PATCH', `/books/${book.id}`, { pages: 'two' }, { 'if-match': book.etag });
    assert.equal(stale.status, 412);
    assert.equal(stale.headers.etag, changed.headers.etag, 'the 412 carries the current ETag');
    assert.equal((await send(app, 'PATCH', `/books/${book.id}`, { pages: 2 }, { 'if-match': `W/${String(changed.headers.etag)}` })).status, 412);
    assert.equal((await send(app, 'PATCH', `/books/${book.id}`, { pages: 3 }, { 'if-match': '*' })).status, 200);
    assert.equal((await send(app, 'GET', `/books/${book.id}`)).body.pages, 3);
    assert.equal((await send(app, 'PATCH', '/books/6f1c1c55-1b7a-4a43-9f1e-3f7c6f0f8a11', { pages: 3 }, { 'if-match': '*' })).status, 404);
  });

  test('concurrent updates with the same If-Match: exactly one succeeds', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', DUNE);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(app, 'PATCH', `/books/${book.id}`, { pages: i + 1 }, { 'if-match': book.etag })));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [200, ...Array(9).fill(412)]);
    const winner = answers.find((a) => a.status === 200)!;
    assert.equal((await send(app, 'GET', `/books/${book.id}`)).body.pages, winner.body.pages);
  });

  test('concurrent updates without If-Match are not lost: each merges into the latest record', async (t) => {
    const { app } = await serve(t, await library());
    const book = await created(app, '/books', DUNE);
    const patches = [{ pages: 10 }, { subjects: ['sf'] }, { publishedOn: '1965-08-01' }, { replacementCost: 12.5 }];
    const answers = await Promise.all(patches.map((p) => send(app, 'PATCH', `/books/${book.id}`, p)));
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200]);
    const final = (await send(app, 'GET', `/books/${book.id}`)).body;
    for (const p of patches) for (const [k, v] of Object.entries(p)) assert.deepEqual(final[k], v);
  });
});

describe('writeOnly fields never leave the service', () => {
  test('not on create, read, update, replace or list', async (t) => {
    const { app } = await serve(t, await library());
    const m = await send(app, 'POST', '/members', ANN);
    const answers = [
      m,
      await send(app, 'GET', '/members/1'),
      await send(app, 'PATCH', '/members/1', { pin: '9876' }),
    ];
    for (const a of answers) assert.equal(JSON.stringify(a.body).includes('pin'), false, JSON.stringify(a.body));
    const list = await send(app, 'GET', '/members');
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
    assert.equal('pin' in list.body.items[0], false);
  });
});

describe('over a real socket', () => {
  test('create, conditional read, conditional update', async (t) => {
    const { app, auth } = await serve(t, await library());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const json = { 'content-type': 'application/json', ...auth };
    const post = await fetch(`${base}/books`, { method: 'POST', headers: json, body: JSON.stringify(DUNE) });
    assert.equal(post.status, 201);
    const etag = post.headers.get('etag')!;
    const location = post.headers.get('location')!;
    assert.match(etag, ETAG);
    const cached = await fetch(`${base}${location}`, { headers: { ...auth, 'if-none-match': etag } });
    assert.equal(cached.status, 304);
    const patched = await fetch(`${base}${location}`, { method: 'PATCH', headers: { ...json, 'if-match': etag }, body: JSON.stringify({ pages: 5 }) });
    assert.equal(patched.status, 200);
    assert.equal(((await patched.json()) as { pages: number }).pages, 5);
    const again = await fetch(`${base}${location}`, { method: 'PATCH', headers: { ...json, 'if-match': etag }, body: JSON.stringify({ pages: 6 }) });
    assert.equal(again.status, 412);
    assert.match(again.headers.get('content-type')!, /^application\/problem\+json/);
    await again.body?.cancel();
  });
});
