/** Part 7 at run time: unexpected faults, the declared custom shape, and the request log. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import type { Store } from '../../src/store/store.ts';
import { mustLoad } from '../support/spec.ts';
import { exampleSpec, freshStore } from './support/open-app.ts';

const NOTES = readFileSync(new URL('./fixtures/notes.yaml', import.meta.url), 'utf8');

/** A store whose reads fail as a disk or driver fault would. */
function failingReads(store: Store): Store {
  const bound = (f: Function) => f.bind(store);
  return {
    kind: store.kind,
    migrate: bound(store.migrate), insert: bound(store.insert), insertMany: bound(store.insertMany), changeMany: bound(store.changeMany), update: bound(store.update), remove: bound(store.remove), list: bound(store.list), count: bound(store.count),
    getIdempotent: bound(store.getIdempotent), putIdempotent: bound(store.putIdempotent), expireIdempotent: bound(store.expireIdempotent), close: bound(store.close),
    credentials: store.credentials,
    events: store.events,
    get: async () => {
      throw new Error('disk I/O error at /var/secret/path.db');
    },
  };
}

function captureLog(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); done(); } });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('an unexpected fault is a 500 in the declared shape, logged, with no stack or internals in the body', async (t) => {
  const store = failingReads(await freshStore());
  const log = captureLog();
  const app = await createApp({ spec: mustLoad(NOTES), store, logger: { level: 'info', stream: log.stream } });
  t.after(async () => { await app.close(); await store.close(); });
  const r = await app.inject({ method: 'GET', url: '/notes/abc' });
  assert.equal(r.statusCode, 500);
  assert.match(r.headers['content-type'] as string, /^application\/problem\+json/);
  const body = r.json() as Record<string, unknown>;
  assert.equal(body.code, 'internal');
  assert.equal(body.status, 500);
  assert.doesNotMatch(r.body, /disk I\/O|secret|at .*\.ts:\d+/, 'nothing of the fault leaks to the client');
  const errorLine = log.lines().find((l) => l.msg === 'unexpected fault');
  assert.ok(errorLine, 'the fault is logged');
  assert.match(JSON.stringify(errorLine), /disk I\/O error/);
});

test('a custom error shape is used for every failure (orders.yaml: error/message/violations)', async (t) => {
  const spec = await exampleSpec('orders.yaml');
  const store = await freshStore();
  const app = await createApp({ spec, store });
  t.after(async () => { await app.close(); await store.close(); });
  const r = await app.inject({ method: 'GET', url: '/nowhere' });
  assert.equal(r.statusCode, 404);
  assert.match(r.headers['content-type'] as string, /^application\/json/);
  const body = r.json() as Record<string, unknown>;
  assert.equal(typeof body.error, 'string', 'the code is in the member the spec names');
  assert.equal(typeof body.message, 'string', 'the title is in the member the spec names');
  assert.equal(body.code, undefined, 'no problem+json members beside the declared ones');
  assert.equal(body.type, undefined);
});

test('one structured log line per request', async (t) => {
  const log = captureLog();
  const store = await freshStore();
  const app = await createApp({ spec: mustLoad(NOTES), store, logger: { level: 'info', stream: log.stream } });
  t.after(async () => { await app.close(); await store.close(); });
  await app.inject({ method: 'POST', url: '/notes', payload: { text: 'hello' } });
  await app.inject({ method: 'GET', url: '/notes' });
  await app.inject({ method: 'GET', url: '/nope' });
  const lines = log.lines().filter((l) => l.msg === 'request');
  assert.deepEqual(lines.map((l) => [l.method, l.url, l.status]), [['POST', '/notes', 201], ['GET', '/notes', 200], ['GET', '/nope', 404]]);
  assert.ok(lines.every((l) => typeof l.ms === 'number' && typeof l.reqId === 'string'));
  assert.equal(log.lines().length, 3, 'exactly one line per request');
});

test('a spec that answers undeclared methods as not found, in a one-member error body: 404 {"error": …}, no Allow, nothing else', async (t) => {
  const text = NOTES.replace(/errors:\n  shape: problem\n  catalog:\n/, 'errors:\n  shape: { mediaType: application/json, members: { title: error } }\n  catalog:\n')
    .replace('    not-found: { status: 404, title: Not found }\n', '    not-found: { status: 404, title: Not Found, for: [not-found, method-not-allowed] }\n')
    .replace('    method-not-allowed: { status: 405, title: Method not allowed }\n', '');
  const spec = mustLoad(text);
  assert.deepEqual(spec.errors.catalog.find((e) => e.code === 'not-found')?.situations, ['not-found', 'method-not-allowed']);
  const store = await freshStore();
  const app = await createApp({ spec, store });
  t.after(async () => { await app.close(); await store.close(); });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  for (const [method, path] of [['PUT', '/notes'], ['DELETE', '/notes'], ['POST', '/notes/x'], ['GET', '/nowhere']]) {
    const r = await fetch(`${base}${path}`, { method, ...(method === 'PUT' || method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) });
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.headers.get('allow'), null, `${method} ${path}: Allow goes with 405 only`);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await r.json(), { error: 'Not Found' }, `${method} ${path}`);
  }
  // Validation errors keep the one member too: the shape names no code, errors or detail member.
  const bad = await fetch(`${base}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text": ""}' });
  assert.equal(bad.status, 422);
  assert.deepEqual(await bad.json(), { error: 'Validation failed' });
});
