/**
 * Idempotency-Key on POST, over a real socket: the first response replayed for a repeat
 * (one record, `Idempotency-Replayed: true`), 422 for the key with another body, the key's
 * syntax, refused requests not remembered, concurrent repeats, expiry by the clock and by
 * the periodic sweep.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import Fastify from 'fastify';
import { createApp } from '../../src/serve/app.ts';
import { createContext } from '../../src/serve/context.ts';
import { canonicalJson, fingerprintOf, parseIdempotencyKey, startIdempotencySweep } from '../../src/serve/idempotency.ts';
import { SAFETY } from '../../src/spec/defaults.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { credentialHeaders } from './support/credentials.ts';
import { exampleSpec } from './support/open-app.ts';

const DUNE = { title: 'Dune', authors: ['Frank Herbert'] };

interface Served {
  readonly base: string;
  readonly store: Store;
  /** A client holding every scope of the spec. */
  readonly auth: Readonly<Record<string, string>>;
  /** Moves the app's clock. */
  advance(ms: number): void;
}

async function listen(t: TestContext): Promise<Served> {
  const spec = await exampleSpec('library.yaml');
  const store = await openSqliteStore({ path: ':memory:' });
  let now = Date.UTC(2026, 0, 1);
  const app = await createApp({ spec, store, now: () => now });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { base, store, auth: await credentialHeaders(spec, store), advance: (ms) => (now += ms) };
}

async function post({ base, auth }: Served, path: string, body: unknown, key?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', ...(key !== undefined ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: r.status, headers: r.headers, body: await r.json() };
}

async function count({ base, auth }: Served, path: string): Promise<number> {
  const r = await fetch(`${base}${path}?limit=100`, { headers: auth });
  return ((await r.json()) as { items: unknown[] }).items.length;
}

describe('Idempotency-Key', () => {
  test('a repeat is replayed: the same status, headers and body, marked, and one record', async (t) => {
    const srv = await listen(t);
    const first = await post(srv, '/books', DUNE, 'key-1');
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotency-replayed'), null);
    // The same body with its members in another order is the same request.
    const again = await post(srv, '/books', { authors: ['Frank Herbert'], title: 'Dune' }, 'key-1');
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    assert.match(again.headers.get('content-type')!, /^application\/json/);
    assert.equal(await count(srv, '/books'), 1);
  });

  test('the same key with another body is 422 idempotency-key-reused', async (t) => {
    const srv = await listen(t);
    assert.equal((await post(srv, '/books', DUNE, 'key-2')).status, 201);
    const other = await post(srv, '/books', { ...DUNE, title: 'Emma' }, 'key-2');
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'idempotency-key-reused');
    assert.equal(await count(srv, '/books'), 1);
  });

  test('keys are scoped by path: the same key on another collection is another request', async (t) => {
    const srv = await listen(t);
    assert.equal((await post(srv, '/books', DUNE, 'key-3')).status, 201);
    const list = await post(srv, '/reading-lists', { name: 'Later' }, 'key-3');
    assert.equal(list.status, 201);
    assert.equal(list.headers.get('idempotency-replayed'), null);
  });

  test('without a key every POST creates', async (t) => {
    const srv = await listen(t);
    await post(srv, '/books', DUNE);
    await post(srv, '/books', DUNE);
    assert.equal(await count(srv, '/books'), 2);
  });

  test('a refused request is not remembered: its retry with the same key runs', async (t) => {
    const srv = await listen(t);
    assert.equal((await post(srv, '/books', { title: 'Dune' }, 'key-4')).status, 422);
    const fixed = await post(srv, '/books', DUNE, 'key-4');
    assert.equal(fixed.status, 201);
    assert.equal(fixed.headers.get('idempotency-replayed'), null);
  });

  test('concurrent repeats: one record, every answer the same', async (t) => {
    const srv = await listen(t);
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(srv, '/books', DUNE, 'key-5')));
    assert.deepEqual(answers.map((a) => a.status), Array(8).fill(201));
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
    assert.equal(answers.filter((a) => a.headers.get('idempotency-replayed') === null).length, 1);
    assert.equal(await count(srv, '/books'), 1);
  });

  test('a key expires after the time-to-live: then it is a new request', async (t) => {
    const srv = await listen(t);
    const { advance } = srv;
    const first = await post(srv, '/books', DUNE, 'key-6');
    advance(SAFETY.idempotencyKeyTtlMs - 1);
    assert.equal((await post(srv, '/books', DUNE, 'key-6')).headers.get('idempotency-replayed'), 'true');
    advance(1);
    const later = await post(srv, '/books', { ...DUNE, title: 'Emma' }, 'key-6');
    assert.equal(later.status, 201);
    assert.notEqual(later.body.id, first.body.id);
    assert.equal(await count(srv, '/books'), 2);
  });

  for (const [what, key] of [['empty', ''], ['too long', 'k'.repeat(256)], ['with a space', 'a b'], ['not ASCII', 'clé'], ['an empty sf-string', '""']] as const) {
    test(`a key that is ${what} is a validation error on the header`, async (t) => {
      const srv = await listen(t);
      const r = await post(srv, '/books', DUNE, key);
      assert.equal(r.status, 422);
      assert.equal(r.body.code, 'validation-failed');
      assert.equal(r.body.errors[0].pointer, '/headers/idempotency-key');
      assert.equal(await count(srv, '/books'), 0);
    });
  }
});

describe('the parts', () => {
  test('key syntax: a bare token or an sf-string, 1 to 255 visible ASCII characters', () => {
    assert.equal(parseIdempotencyKey(undefined), undefined);
    assert.equal(parseIdempotencyKey('abc'), 'abc');
    assert.equal(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"'), '8e03978e-40d5-43e8-bc93-6894a57f9324');
    assert.equal(parseIdempotencyKey('k'.repeat(255)), 'k'.repeat(255));
    assert.throws(() => parseIdempotencyKey(['a', 'b']));
    assert.throws(() => parseIdempotencyKey('"a\\"b"'));
  });

  test('fingerprints: canonical bodies, and every part counts', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: null }] }), '{"a":[{"c":null,"d":2}],"b":1}');
    const fp = fingerprintOf('POST', '/books', { a: 1, b: 2 }, undefined);
    assert.equal(fingerprintOf('POST', '/books', { b: 2, a: 1 }, undefined), fp);
    assert.notEqual(fingerprintOf('POST', '/books', { a: 1, b: 3 }, undefined), fp);
    assert.notEqual(fingerprintOf('POST', '/loans', { a: 1, b: 2 }, undefined), fp);
    assert.notEqual(fingerprintOf('POST', '/books', { a: 1, b: 2 }, 'ann'), fp);
  });

  test('the sweep forgets expired keys periodically and stops when the app closes', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const spec = await exampleSpec('library.yaml');
    const store = await openSqliteStore({ path: ':memory:' });
    t.after(() => store.close());
    let now = 10 * SAFETY.idempotencyKeyTtlMs;
    const expired: number[] = [];
    const spy: Store = Object.assign(Object.create(store) as Store, {
      expireIdempotent: async (before: number) => {
        expired.push(before);
        return store.expireIdempotent(before);
      },
    });
    const app = Fastify();
    startIdempotencySweep(app, createContext(spec, spy, () => now), { everyMs: 1000 });
    await store.putIdempotent('s', 'old', { fingerprint: 'f', status: 201, headers: {}, body: '{}', createdAt: now - SAFETY.idempotencyKeyTtlMs - 1 });
    await store.putIdempotent('s', 'new', { fingerprint: 'f', status: 201, headers: {}, body: '{}', createdAt: now });
    t.mock.timers.tick(1000);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(expired, [now - SAFETY.idempotencyKeyTtlMs]);
    assert.equal(await store.getIdempotent('s', 'old'), undefined);
    assert.ok(await store.getIdempotent('s', 'new'));
    await app.close();
    now += 1;
    t.mock.timers.tick(5000);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(expired.length, 1, 'no sweep after close');
  });
});
