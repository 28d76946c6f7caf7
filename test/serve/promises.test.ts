/**
 * The reference service keeps the protocol promises its spec states (limits.conditional,
 * limits.idempotency, pagination.links, rate.headers; issue #16), and where the spec says
 * `none` it keeps none: no validators sent, preconditions and keys ignored, no links, no
 * quota fields. Through inject over a real SQLite store.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serve } from './support/open-app.ts';

const spec = (limits: string) => `svcspec: 1
resources:
  note: { plural: notes, id: { field: id, assigned: uuid }, fields: { id: { type: string, readOnly: true }, text: { type: string, required: true } } }
endpoints:
  note: [create, read, update, list]
errors:
  shape: problem
  catalog:
    precondition-failed: { status: 412, title: Precondition failed }
    idempotency-key-reused: { status: 422, title: Key reused }
    validation-failed: { status: 422, title: Invalid }
limits:
  rate: { limit: 100, window: 1m, scope: address${limits.includes('headers: none') ? ', headers: none' : ''} }
  pagination: { style: cursor, defaultSize: 1, maxSize: 10, overMax: clamp${limits.includes('links: []') ? ', links: []' : ''} }
${limits.split('\n').filter((l) => l.startsWith('  conditional') || l.startsWith('  idempotency')).join('\n')}
`;

test('conditional: { none } sends no ETag and ignores If-Match and If-None-Match', async (t) => {
  const { app } = await serve(t, spec('  conditional: { none: Records carry no validators. }\n'));
  const made = await app.inject({ method: 'POST', url: '/notes', payload: { text: 'a' } });
  assert.equal(made.statusCode, 201);
  assert.equal(made.headers.etag, undefined);
  const id = made.json().id;
  const read = await app.inject({ method: 'GET', url: `/notes/${id}`, headers: { 'if-none-match': '*' } });
  assert.equal(read.statusCode, 200);
  assert.equal(read.headers.etag, undefined);
  const write = await app.inject({ method: 'PATCH', url: `/notes/${id}`, headers: { 'if-match': '"stale"', 'content-type': 'application/merge-patch+json' }, payload: { text: 'b' } });
  assert.equal(write.statusCode, 200);
});

test('conditional: { validators: [etag] } keeps the strong ETag, 412 on a stale If-Match and 304 on a current If-None-Match', async (t) => {
  const { app } = await serve(t, spec('  conditional: { validators: [etag], writes: true, reads: true }\n'));
  const made = await app.inject({ method: 'POST', url: '/notes', payload: { text: 'a' } });
  const tag = made.headers.etag as string;
  assert.match(tag, /^"[^"]+"$/);
  assert.equal((await app.inject({ method: 'GET', url: `/notes/${made.json().id}`, headers: { 'if-none-match': tag } })).statusCode, 304);
  assert.equal((await app.inject({ method: 'PATCH', url: `/notes/${made.json().id}`, headers: { 'if-match': '"stale"', 'content-type': 'application/merge-patch+json' }, payload: { text: 'b' } })).statusCode, 412);
});

test('writes: false ignores If-Match; reads: false ignores If-None-Match; the ETag is still sent', async (t) => {
  const { app } = await serve(t, spec('  conditional: { validators: [etag], writes: false, reads: false }\n'));
  const made = await app.inject({ method: 'POST', url: '/notes', payload: { text: 'a' } });
  const tag = made.headers.etag as string;
  assert.ok(tag);
  assert.equal((await app.inject({ method: 'GET', url: `/notes/${made.json().id}`, headers: { 'if-none-match': tag } })).statusCode, 200);
  assert.equal((await app.inject({ method: 'PATCH', url: `/notes/${made.json().id}`, headers: { 'if-match': '"stale"', 'content-type': 'application/merge-patch+json' }, payload: { text: 'b' } })).statusCode, 200);
});

test('idempotency: the stated header is the key; another header is not', async (t) => {
  const { app } = await serve(t, spec('  idempotency: { header: X-Request-Key, lifetime: 1h, scope: credential }\n'));
  const one = await app.inject({ method: 'POST', url: '/notes', headers: { 'x-request-key': 'k1' }, payload: { text: 'a' } });
  const two = await app.inject({ method: 'POST', url: '/notes', headers: { 'x-request-key': 'k1' }, payload: { text: 'a' } });
  assert.equal(two.json().id, one.json().id);
  assert.equal(two.headers['idempotency-replayed'], 'true');
  assert.equal((await app.inject({ method: 'POST', url: '/notes', headers: { 'x-request-key': 'k1' }, payload: { text: 'other' } })).statusCode, 422);
  const a = await app.inject({ method: 'POST', url: '/notes', headers: { 'idempotency-key': 'k2' }, payload: { text: 'a' } });
  const b = await app.inject({ method: 'POST', url: '/notes', headers: { 'idempotency-key': 'k2' }, payload: { text: 'a' } });
  assert.notEqual(a.json().id, b.json().id, 'Idempotency-Key is not the stated header: each request makes a record');
});

test('idempotency: { none } makes every repeat a new request', async (t) => {
  const { app } = await serve(t, spec('  idempotency: { none: Retried creates make new records. }\n'));
  const one = await app.inject({ method: 'POST', url: '/notes', headers: { 'idempotency-key': 'k1' }, payload: { text: 'a' } });
  const two = await app.inject({ method: 'POST', url: '/notes', headers: { 'idempotency-key': 'k1' }, payload: { text: 'a' } });
  assert.notEqual(two.json().id, one.json().id);
});

test('links: [] sends no Link on a page; headers: none sends no RateLimit fields; stated or not, the defaults send both', async (t) => {
  const quiet = await serve(t, spec('links: []\nheaders: none\n'));
  for (const text of ['a', 'b']) await quiet.app.inject({ method: 'POST', url: '/notes', payload: { text } });
  const page = await quiet.app.inject({ method: 'GET', url: '/notes' });
  assert.notEqual(page.json().next, null);
  assert.equal(page.headers.link, undefined);
  assert.equal(page.headers.ratelimit, undefined);
  assert.equal(page.headers['ratelimit-policy'], undefined);
  const loud = await serve(t, spec(''));
  for (const text of ['a', 'b']) await loud.app.inject({ method: 'POST', url: '/notes', payload: { text } });
  const linked = await loud.app.inject({ method: 'GET', url: '/notes' });
  assert.match(String(linked.headers.link), /rel="next"/);
  assert.ok(linked.headers.ratelimit);
});
