/**
 * The reference service under attack (issue #15), over real loopback HTTP: what the HTTP
 * parser and the router refuse is answered in the declared shape and logged; every method on
 * every served path; I-JSON bodies; a deeply nested body with an Idempotency-Key; the
 * database file deleted under the running service; the health checks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/serve/app.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { mustLoad } from '../support/spec.ts';
import { exampleSpec } from './support/open-app.ts';

const NOTES = readFileSync(new URL('./fixtures/notes.yaml', import.meta.url), 'utf8');
const TASKS = readFileSync(new URL('./fixtures/tasks-events.yaml', import.meta.url), 'utf8');

interface Running {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly base: string;
  readonly port: number;
  /** The request log, parsed. */
  lines(): Record<string, unknown>[];
}

async function run(t: TestContext, text = NOTES, db = ':memory:'): Promise<Running> {
  const chunks: string[] = [];
  const store = await openSqliteStore({ path: db });
  const app = await createApp({ spec: mustLoad(text), store, logger: { level: 'info', stream: { write: (l: string) => void chunks.push(l) } } });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const lines = () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { app, store, base, port: Number(new URL(base).port), lines };
}

/** Sends raw bytes and reads until the server closes: status line, headers and body. */
function raw(port: number, bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (out += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = out.split('\r\n\r\n');
      const [statusLine, ...fields] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const f of fields) headers[f.slice(0, f.indexOf(':')).toLowerCase()] = f.slice(f.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(bytes);
  });
}

function assertProblem(r: { status: number; headers: Record<string, string> | Headers; body: string }, status: number, code: string): Record<string, unknown> {
  const type = r.headers instanceof Headers ? r.headers.get('content-type') : r.headers['content-type'];
  assert.equal(r.status, status, r.body);
  assert.match(String(type), /^application\/problem\+json/, r.body);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assert.equal(body.code, code, r.body);
  assert.equal(body.status, status);
  assert.equal(body.type, `urn:svcspec:problem:${code}`);
  assert.doesNotMatch(r.body, /FST_|statusCode/, "none of Fastify's own codes or members");
  return body;
}

test("the HTTP layer's refusals are in the declared shape, never Fastify's, and each is in the request log", async (t) => {
  const s = await run(t);
  const cases: [string, string, number, string][] = [
    ['a bad percent-encoding in the path', 'GET /notes/%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'malformed-request'],
    ['a path parameter over 100 characters', `GET /notes/${'a'.repeat(101)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 414, 'uri-too-long'],
    ['header fields over 16 KiB', `GET /notes HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers-too-large'],
    ['a bad request line', 'GARBAGE\r\n\r\n', 400, 'malformed-request'],
    ['a bad header line', 'GET /notes HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, 'malformed-request'],
    ['no Host (RFC 9112 §3.2)', 'GET /notes HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'malformed-request'],
  ];
  for (const [what, bytes, status, code] of cases) {
    const r = await raw(s.port, bytes);
    assertProblem(r, status, code);
    assert.ok(s.lines().some((l) => l.msg === 'request' && l.status === status), `${what}: logged`);
  }
  // The parser's refusals carry the method and target when the request line could be read.
  assert.ok(s.lines().some((l) => l.msg === 'request' && l.status === 431 && l.url === '/notes' && l.reason === 'HPE_HEADER_OVERFLOW'));
});

test('the HTTP layer answers in the custom shape of a spec that declares one', async (t) => {
  const spec = await exampleSpec('orders.yaml');
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => { await app.close(); await store.close(); });
  const r = await raw(Number(new URL(base).port), `GET /x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assert.equal(r.status, 431);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assert.equal(body.error, 'headers-too-large', r.body);
  assert.equal(body.type, undefined, 'no problem-details member in a custom shape');
});

test('a method a served path does not take is 405 with Allow, for every method the parser reads and every kind of route', async (t) => {
  const s = await run(t, TASKS);
  const cases: [string, string, string][] = [
    ['TRACE', '/tasks', 'POST, GET, HEAD, OPTIONS'],
    ['PURGE', '/tasks', 'POST, GET, HEAD, OPTIONS'],
    ['PROPFIND', '/tasks/1', 'GET'],
    ['QUERY', '/tasks', 'POST, GET, HEAD, OPTIONS'],
    ['PUT', '/events', 'GET, HEAD, OPTIONS'],
    ['PATCH', '/webhooks', 'POST, GET, HEAD, OPTIONS'],
    ['PUT', '/webhooks/wh_1/rotate-secret', 'POST, OPTIONS'],
    ['POST', '/healthz', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/readyz', 'GET, HEAD, OPTIONS'],
  ];
  for (const [method, path, allow] of cases) {
    // A body the route would not read changes nothing: the 405 comes first.
    const r = await raw(s.port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 3\r\nConnection: close\r\n\r\n<a/>`.replace('<a/>', '<a>'));
    assertProblem(r, 405, 'method-not-allowed');
    for (const m of allow.split(', ')) assert.ok(r.headers.allow.split(', ').includes(m), `${method} ${path}: Allow ${r.headers.allow} has ${m}`);
  }
  const options = await fetch(`${s.base}/events`, { method: 'OPTIONS' });
  assert.equal(options.status, 204);
  assert.equal(options.headers.get('allow'), 'GET, HEAD, OPTIONS');
  // An unknown path stays 404 whatever the method.
  assertProblem(await raw(s.port, 'PROPFIND /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404, 'not-found');
});

test('a method a path does not take is answered for the most specific path: /books/bulk, not /books/{id}, whatever the method', async (t) => {
  const s = await run(t, readFileSync(new URL('../../examples/library.yaml', import.meta.url), 'utf8'));
  const allowOf = async (method: string, path: string) => {
    const r = await raw(s.port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    if (method !== 'OPTIONS') assertProblem(r, 405, 'method-not-allowed');
    else assert.equal(r.status, 204);
    // Allow is a set (RFC 9110 §10.2.1): compared in one order.
    return String(r.headers.allow).split(', ').sort().join(', ');
  };
  // Fixed segments win over a parameter at the same depth, for every method without a route.
  assert.equal(await allowOf('PUT', '/books/bulk'), 'OPTIONS, POST');
  assert.equal(await allowOf('OPTIONS', '/books/bulk'), 'OPTIONS, POST');
  assert.equal(await allowOf('PUT', '/books/bulk-delete'), 'OPTIONS, POST');
  assert.equal(await allowOf('PUT', '/books/b1'), 'DELETE, GET, HEAD, OPTIONS, PATCH');
  assert.equal(await allowOf('TRACE', '/books/b1'), 'DELETE, GET, HEAD, OPTIONS, PATCH');
  assert.equal(await allowOf('PUT', '/loans/l1/approve'), 'OPTIONS, POST');
  assert.equal(await allowOf('DELETE', '/members/m1/loans'), 'GET, HEAD, OPTIONS, POST');
  // A fixed path is matched before a templated one (OpenAPI 3.1 §4.8.8.2), whatever the method:
  // GET /books/bulk is /books/bulk's 405, not the read of a book 'bulk' through /books/{id}.
  assert.equal(await allowOf('GET', '/books/bulk'), 'OPTIONS, POST');
  assert.equal(await allowOf('DELETE', '/books/bulk-delete'), 'OPTIONS, POST');
  const head = await raw(s.port, 'HEAD /books/bulk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(head.status, 405);
  assert.equal(head.headers.allow, 'POST, OPTIONS');
  // The templated path keeps its own: the read of a book that is not there.
  const read = await fetch(`${s.base}/books/b1`);
  assert.equal(read.status, 404);
  assert.equal(read.headers.get('allow'), null);
});

test('a 405 or an OPTIONS of a deprecated version carries its Deprecation and Sunset, by header and by path prefix, as every answer of that version does', async (t) => {
  const read = (name: string) => readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');
  const library = await run(t, read('library.yaml'));
  for (const [method, path] of [['OPTIONS', '/books'], ['DELETE', '/books'], ['TRACE', '/books/b1'], ['GET', '/books/bulk']] as const) {
    const r = await raw(library.port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nAPI-Version: 1\r\nConnection: close\r\n\r\n`);
    assert.equal(r.status, method === 'OPTIONS' ? 204 : 405, `${method} ${path}`);
    assert.ok(r.headers.deprecation, `${method} ${path} in version 1: Deprecation`);
    assert.ok(r.headers.sunset, `${method} ${path} in version 1: Sunset`);
    assert.equal(r.headers['api-version'], '1');
    const current = await raw(library.port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.equal(current.headers.deprecation, undefined, `${method} ${path} in the current version: no Deprecation`);
  }
  const orders = await run(t, read('orders.yaml'));
  const old = await raw(orders.port, 'DELETE /v1/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(old.status, 405);
  assert.ok(old.headers.deprecation && old.headers.sunset, 'DELETE /v1/orders: the deprecated version\'s fields');
  assert.equal((await raw(orders.port, 'DELETE /orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status, 405, 'no prefix: the default version\'s path, 405 too');
  assert.equal((await raw(orders.port, 'DELETE /v9/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status, 400, 'an unknown version is refused as such');
});

test('a body that is not I-JSON is 400 malformed-body: bytes that are not UTF-8, lone surrogates escaped or in member names', async (t) => {
  const s = await run(t);
  const post = (body: string | Buffer, type = 'application/json') => fetch(`${s.base}/notes`, { method: 'POST', headers: { 'content-type': type }, body });
  const notUtf8 = Buffer.concat([Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
  const cases: [string, string | Buffer, RegExp][] = [
    ['a Latin-1 byte', notUtf8, /not valid UTF-8.*offset 12 are/],
    ['an overlong encoding', Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), /UTF-8/],
    ['a lone high surrogate', '{"text":"a\\ud800b"}', /unpaired surrogate.*\/text/],
    ['a lone low surrogate', '{"text":"\\udc00"}', /unpaired surrogate/],
    ['a reversed pair', '{"text":"\\udc00\\ud800"}', /unpaired surrogate/],
    ['in a member name', '{"text":"x","\\ud800":1}', /unpaired surrogate at \/\\ud800|unpaired surrogate/],
  ];
  for (const [what, body, detail] of cases) {
    const r = await post(body);
    const problem = assertProblem({ status: r.status, headers: r.headers, body: await r.text() }, 400, 'malformed-body');
    assert.match(String(problem.detail), detail, what);
  }
  // A merge patch is held to the same rule.
  const created = await post('{"text":"ok \\ud83d\\ude00"}');
  assert.equal(created.status, 201, 'a well-formed surrogate pair is fine');
  const note = (await created.json()) as { id: string; text: string };
  assert.equal(note.text, 'ok 😀');
  const patch = await fetch(`${s.base}/notes/${note.id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"text":"\\ud800"}' });
  assertProblem({ status: patch.status, headers: patch.headers, body: await patch.text() }, 400, 'malformed-body');
  assert.equal(((await (await fetch(`${s.base}/notes/${note.id}`)).json()) as { text: string }).text, 'ok 😀', 'nothing was stored');
});

test('a body that is not JSON is 400 malformed-body saying where, in the service\'s words (not the framework\'s), never echoing the body', async (t) => {
  const s = await run(t);
  const cases: [string, string, RegExp][] = [
    ['a cut-off object', '{"text":"x",', /^The body is not well-formed JSON \(RFC 8259\) at line 1, column 13: Expected double-quoted property name\.$/],
    ['a missing colon on line 3', '{\n "text": "x",\n "a" 1}', /at line 3, column 6: Expected ':' after property name/],
    ['trailing text', '{"text":"x"} and more', /at line 1, column 14: Unexpected non-whitespace character after JSON/],
    ['a bare word', '{"text": secret-word-that-is-longer-than-the-echo-v8-keeps-of-it}', /^The body is not well-formed JSON \(RFC 8259\): Unexpected token 's'\.$/],
    ['prototype poisoning', '{"text":"x","__proto__":{"admin":true}}', /"__proto__" member.*prototype poisoning/],
    ['a bare word after a long secret', '{"text":"secret-word-secret-word-secret-word", "x": tru}', /^The body is not well-formed JSON \(RFC 8259\): Unexpected token '}'\.$/],
    ['a bad item deep in an array', `[${'1,'.repeat(40)}secret-word,2]`, /^The body is not well-formed JSON \(RFC 8259\): Unexpected token 's'\.$/],
    ['no JSON value at all', 'NaN', /^The body is not well-formed JSON \(RFC 8259\): it is not a JSON value\.$/],
  ];
  for (const [what, body, detail] of cases) {
    const r = await fetch(`${s.base}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const problem = assertProblem({ status: r.status, headers: r.headers, body: await r.text() }, 400, 'malformed-body');
    assert.match(String(problem.detail), detail, what);
    assert.doesNotMatch(String(problem.detail), /content-type is set|secret-word/, `${what}: neither Fastify's wording nor the body`);
  }
  const empty = await fetch(`${s.base}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' } });
  const problem = assertProblem({ status: empty.status, headers: empty.headers, body: await empty.text() }, 400, 'malformed-body');
  assert.match(String(problem.detail), /empty.*neither a body nor a Content-Type/);
});

test('a body nested 4,000 levels deep with an Idempotency-Key is 400 malformed-body (nesting is bounded at 1,000), not a 500; 1,000 levels are read', async (t) => {
  const s = await run(t);
  const nested = (levels: number) => `{"text":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
  for (const key of ['"k-1"', undefined]) {
    const headers = { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) };
    const deep = await fetch(`${s.base}/notes`, { method: 'POST', headers, body: nested(4000) });
    const problem = assertProblem({ status: deep.status, headers: deep.headers, body: await deep.text() }, 400, 'malformed-body');
    assert.match(String(problem.detail), /deeper than 1000 levels/);
    // One level past the bound, the shortest such body (2,011 bytes) is refused too.
    const over = await fetch(`${s.base}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested(1001) });
    assertProblem({ status: over.status, headers: over.headers, body: await over.text() }, 400, 'malformed-body');
    // At the bound the body is read, and validated like any other.
    const bound = await fetch(`${s.base}/notes`, { method: 'POST', headers, body: nested(1000) });
    const invalid = assertProblem({ status: bound.status, headers: bound.headers, body: await bound.text() }, 422, 'validation-failed');
    assert.equal((invalid.errors as { pointer: string }[])[0].pointer, '/text');
  }
  assert.ok(!s.lines().some((l) => l.msg === 'unexpected fault'), 'no fault logged');
});

test('/healthz and /readyz: health+json, no credentials, never cached; a spec path that matches one keeps it', async (t) => {
  const s = await run(t, TASKS);
  for (const path of ['/healthz', '/readyz']) {
    const r = await fetch(`${s.base}${path}`);
    assert.equal(r.status, 200, path);
    assert.match(r.headers.get('content-type') ?? '', /^application\/health\+json/);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(((await r.json()) as { status: string }).status, 'pass');
  }
  // A spec with GET /{slug} at its root: /healthz is a record's path there, and is not shadowed.
  const rooted = NOTES.replace("note: [create, read, update, delete, list]", "note: { create: {}, list: {}, read: { method: GET, path: \"/{id}\" } }");
  const other = await run(t, rooted);
  const r = await fetch(`${other.base}/healthz`);
  assertProblem({ status: r.status, headers: r.headers, body: await r.text() }, 404, 'not-found');
});

test('the database file deleted under the running service: writes are 503 unavailable, nothing more is acknowledged, /readyz fails, the log says so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-gone-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'notes.db');
  const s = await run(t, NOTES, db);
  const post = (text: string) => fetch(`${s.base}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  assert.equal((await post('before')).status, 201);
  assert.equal((await fetch(`${s.base}/readyz`)).status, 200);
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const refused = await post('after');
  const problem = assertProblem({ status: refused.status, headers: refused.headers, body: await refused.text() }, 503, 'unavailable');
  assert.doesNotMatch(JSON.stringify(problem), /notes\.db/, 'the file is named in the log, not to the client');
  assert.ok(refused.headers.get('retry-after'));
  // Every later write too, and the reads of a database that is not there any more.
  assert.equal((await post('again')).status, 503);
  assert.equal((await fetch(`${s.base}/notes`)).status, 503);
  const ready = await fetch(`${s.base}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal(((await ready.json()) as { status: string }).status, 'fail');
  assert.equal((await fetch(`${s.base}/healthz`)).status, 200, 'the process itself is alive');
  const loud = s.lines().filter((l) => l.level === 50 && /database/.test(String(l.msg)));
  assert.ok(loud.length >= 1, 'logged as an error');
  assert.match(JSON.stringify(loud), /was deleted/);
  // A restart on the path finds a new, empty database: nothing acknowledged after the deletion was lost.
  await s.app.close();
  await s.store.close();
  const reopened = await openSqliteStore({ path: db });
  t.after(() => reopened.close());
  await reopened.migrate(['note']);
  assert.equal((await reopened.list('note', { limit: 10 })).records.length, 0);
});

test('a database file replaced under the running service (a restore copied over it) is noticed within a second without any write', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-swap-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'notes.db');
  const s = await run(t, NOTES, db);
  const other = await openSqliteStore({ path: join(dir, 'other.db') });
  await other.close();
  const { renameSync } = await import('node:fs');
  renameSync(join(dir, 'other.db'), db);
  await new Promise((r) => setTimeout(r, 1_300));
  const logged = s.lines().filter((l) => l.level === 50 && /was replaced/.test(JSON.stringify(l)));
  assert.equal(logged.length, 1, 'one error line, without a write or a probe');
  assert.equal((await fetch(`${s.base}/readyz`)).status, 503);
});
