/**
 * Part 8 at run time: rate limits (policies, partitions, windows, the RateLimit fields, the
 * 429 in the declared shape, a concurrent burst over real sockets) and the request time-out
 * (the declared status, the safety default when the spec is silent, and abandoned work that
 * writes nothing and answers only once).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { describe, test, type TestContext } from 'node:test';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { checkSpec } from '../../src/check/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { rateKey, ratePolicies, sweepClosed } from '../../src/serve/limits/rate.ts';
import { InFlight, type Work } from '../../src/serve/limits/timeout.ts';
import type { Principal } from '../../src/serve/principal.ts';
import type { LeanListQuery, ListQuery, Store } from '../../src/store/store.ts';
import { mustLoad } from '../support/spec.ts';
import { freshStore } from './support/open-app.ts';

const PROBLEM_ERRORS = `{shape: problem, catalog: {validation-failed: {status: 422, title: Validation failed}, rate-limited: {status: 429, title: Too many requests}}}`;

/** Notes that may name a person; `limits` and `errors` are the test's. */
const notes = (limits: string, errors = PROBLEM_ERRORS) => `
svcspec: 1
purpose: {name: Notes, summary: Keeps notes., users: [{name: writer, tasks: [keep notes]}]}
resources:
  person:
    plural: people
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      name: {type: string, required: true}
  note:
    plural: notes
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      title: {type: string, required: true}
      person: {type: ref, resource: person}
states: {none: No life cycle.}
endpoints:
  note: [create, read, update, list]
  person: [create, read]
authentication: {none: Open to anyone on the network (a test).}
events: {none: None.}
errors: ${errors}
limits: ${limits}
versioning: {none: One version.}
`;

interface Opened {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly logs: () => Record<string, unknown>[];
}

/** An app over a fresh store (or the one given), with a clock and the log captured at warn and above. */
async function open(t: TestContext, text: string, options: { now?: () => number; store?: Store } = {}): Promise<Opened> {
  const store = options.store ?? (await freshStore());
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); done(); } });
  const app = await createApp({ spec: mustLoad(text), store, ...(options.now ? { now: options.now } : {}), logger: { level: 'warn', stream } });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  return { app, store, logs: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

async function get(app: FastifyInstance, url: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') {
  return app.inject({ method: 'GET', url, headers, remoteAddress });
}

async function post(app: FastifyInstance, url: string, body: unknown, remoteAddress = '127.0.0.1') {
  return app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body), remoteAddress });
}

// ---- rate limits --------------------------------------------------------------------

describe('rate limits', () => {
  test('over the limit: 429 in the problem shape, Retry-After, and the fields on every answer', async (t) => {
    const now = 1_000_000;
    const { app } = await open(t, notes('{rate: {limit: 3, window: 1m, scope: address}}'), { now: () => now });
    for (const left of [2, 1, 0]) {
      const r = await get(app, '/notes');
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers['ratelimit-policy'], '"default";q=3;w=60');
      assert.equal(r.headers.ratelimit, `"default";r=${left};t=60`);
      assert.equal(r.headers['retry-after'], undefined, 'Retry-After only on the 429');
    }
    const refused = await get(app, '/notes');
    assert.equal(refused.statusCode, 429);
    assert.match(refused.headers['content-type'] as string, /^application\/problem\+json/);
    const body = refused.json() as Record<string, unknown>;
    assert.equal(body.code, 'rate-limited');
    assert.equal(body.status, 429);
    assert.equal(body.title, 'Too many requests');
    assert.equal(body.type, 'urn:svcspec:problem:rate-limited');
    assert.match(String(body.detail), /3 requests in 1m/);
    assert.equal(refused.headers['retry-after'], '60');
    assert.equal(refused.headers['ratelimit-policy'], '"default";q=3;w=60');
    assert.equal(refused.headers.ratelimit, '"default";r=0;t=60');
  });

  test('a custom error shape, and a catalog code mapped with `for: rate-limited`', async (t) => {
    const errors = `{shape: {mediaType: application/json, members: {code: error, title: message, detail: explanation}}, catalog: {slow-down: {status: 429, title: Slow down, for: rate-limited}}}`;
    const { app } = await open(t, notes('{rate: {limit: 1, window: 30s, scope: address}}', errors));
    assert.equal((await get(app, '/notes')).statusCode, 200);
    const refused = await get(app, '/notes');
    assert.equal(refused.statusCode, 429);
    assert.match(refused.headers['content-type'] as string, /^application\/json/);
    const body = refused.json() as Record<string, unknown>;
    assert.equal(body.error, 'slow-down');
    assert.equal(body.message, 'Slow down');
    assert.match(String(body.explanation), /retry in 30 s/);
    assert.equal(body.code, undefined, 'only the declared members');
    assert.equal(refused.headers['retry-after'], '30');
  });

  test('error answers of a limited endpoint carry the fields too, and count; unlimited routes carry none', async (t) => {
    const { app } = await open(t, notes('{rate: {limit: 10, window: 10s, scope: address}}'));
    const answers = [
      await get(app, '/notes/999'), // 404
      await post(app, '/notes', { title: 7 }), // 422
      await app.inject({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, payload: '{"title":' }), // 400
      await app.inject({ method: 'POST', url: '/notes', headers: { 'content-type': 'text/plain' }, payload: 'hello' }), // 415
    ];
    assert.deepEqual(answers.map((r) => r.statusCode), [404, 422, 400, 415]);
    answers.forEach((r, i) => {
      assert.equal(r.headers['ratelimit-policy'], '"default";q=10;w=10', `${r.statusCode}`);
      assert.equal(r.headers.ratelimit, `"default";r=${9 - i};t=10`, `${r.statusCode}`);
    });
    const unlimited = [
      await get(app, '/nowhere'), // 404: no route
      await app.inject({ method: 'DELETE', url: '/notes' }), // 405
      await app.inject({ method: 'OPTIONS', url: '/notes' }), // 204
      await get(app, '/docs'),
    ];
    assert.deepEqual(unlimited.map((r) => r.statusCode), [404, 405, 204, 200]);
    for (const r of unlimited) {
      assert.equal(r.headers.ratelimit, undefined, String(r.statusCode));
      assert.equal(r.headers['ratelimit-policy'], undefined, String(r.statusCode));
    }
  });

  test('an override is its own policy with its own counter; the default does not count its requests', async (t) => {
    const { app } = await open(t, notes('{rate: {limit: 3, window: 1m, scope: address, overrides: {note.create: {limit: 1, window: 10s}}}}'));
    const created = await post(app, '/notes', { title: 'a' });
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers['ratelimit-policy'], '"note.create";q=1;w=10');
    assert.equal(created.headers.ratelimit, '"note.create";r=0;t=10');
    const refused = await post(app, '/notes', { title: 'b' });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '10');
    // The other endpoints share "default", untouched by the creates.
    const listed = await get(app, '/notes');
    assert.equal(listed.statusCode, 200);
    assert.equal(listed.headers.ratelimit, '"default";r=2;t=60');
    assert.equal((await get(app, '/people/1')).headers.ratelimit, '"default";r=1;t=60', 'one counter for every endpoint of the default policy');
    assert.equal((await get(app, '/notes/1')).headers.ratelimit, '"default";r=0;t=60');
    assert.equal((await get(app, '/notes')).statusCode, 429);
    assert.equal((await get(app, '/notes')).headers['ratelimit-policy'], '"default";q=3;w=60');
  });

  test('scope address: each client address has its own counter', async (t) => {
    const { app } = await open(t, notes('{rate: {limit: 2, window: 1m, scope: address}}'));
    assert.equal((await get(app, '/notes', {}, '10.0.0.1')).statusCode, 200);
    assert.equal((await get(app, '/notes', {}, '10.0.0.1')).statusCode, 200);
    assert.equal((await get(app, '/notes', {}, '10.0.0.1')).statusCode, 429);
    const other = await get(app, '/notes', {}, '10.0.0.2');
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers.ratelimit, '"default";r=1;t=60');
  });

  test('scope credential: counted per credential, and by address when the request is anonymous', async (t) => {
    const { app } = await open(t, notes('{rate: {limit: 2, window: 1m, scope: credential}}'));
    // Authentication is its own part; here a test hook stands in for it and sets the principal.
    app.addHook('onRequest', async (request) => {
      const who = request.headers['x-test-credential'];
      if (typeof who === 'string') request.principal = { id: who, scheme: 'key', scopes: new Set(), credential: who };
    });
    const as = (who: string, address = '10.0.0.1') => get(app, '/notes', { 'x-test-credential': who }, address);
    assert.deepEqual([(await as('alice')).statusCode, (await as('alice', '10.0.0.9')).statusCode, (await as('alice')).statusCode], [200, 200, 429], 'one counter for alice wherever she calls from');
    assert.equal((await as('bob')).statusCode, 200, 'bob, from the same address, has his own');
    const anonymous = (address: string) => get(app, '/notes', {}, address);
    assert.deepEqual([(await anonymous('10.0.0.1')).statusCode, (await anonymous('10.0.0.1')).statusCode, (await anonymous('10.0.0.1')).statusCode], [200, 200, 429]);
    assert.equal((await anonymous('10.0.0.2')).statusCode, 200);
  });

  test('the key: scheme and credential, else the address; never the same for the two', () => {
    const principal: Principal = { id: 'owner-1', scheme: 'apiKey', scopes: new Set(), credential: 'k_123' };
    assert.equal(rateKey('credential', { principal, ip: '10.0.0.1' }), 'apiKey k_123');
    assert.equal(rateKey('credential', { principal: undefined, ip: '10.0.0.1' }), '10.0.0.1');
    assert.equal(rateKey('address', { principal, ip: '10.0.0.1' }), '10.0.0.1');
    const other: Principal = { ...principal, scheme: 'bearer' };
    assert.notEqual(rateKey('credential', { principal: other, ip: '' }), rateKey('credential', { principal, ip: '' }), 'the same credential id under two schemes');
  });

  test('a concurrent burst over real sockets: exactly `limit` pass, and exactly that many records are written', async (t) => {
    const limit = 5;
    const { app, store } = await open(t, notes(`{rate: {limit: 1000, window: 1m, scope: address, overrides: {note.create: {limit: ${limit}, window: 1m}}}}`));
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const answers = await Promise.all(
      Array.from({ length: 3 * limit }, (_, i) =>
        fetch(`${address}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `n${i}` }) }).then(async (r) => ({ status: r.status, remaining: r.headers.get('ratelimit'), body: await r.text() })),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [...Array(limit).fill(201), ...Array(2 * limit).fill(429)]);
    // Each admitted request saw a different count left: none was admitted twice on one slot.
    assert.deepEqual(answers.filter((a) => a.status === 201).map((a) => a.remaining).sort(), [0, 1, 2, 3, 4].map((r) => `"note.create";r=${r};t=60`));
    const written = await store.list('note', { limit: 100 });
    assert.equal(written.records.length, limit);
  });

  test('the window closes: Retry-After counts down on the clock, then a fresh window opens', async (t) => {
    let now = 5_000_000;
    const { app } = await open(t, notes('{rate: {limit: 2, window: 10s, scope: address}}'), { now: () => now });
    assert.equal((await get(app, '/notes')).statusCode, 200);
    now += 1_000;
    assert.equal((await get(app, '/notes')).headers.ratelimit, '"default";r=0;t=9');
    now += 3_500;
    const refused = await get(app, '/notes');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '6', '5.5 s left, rounded up');
    assert.equal(refused.headers.ratelimit, '"default";r=0;t=6');
    now += 5_499;
    assert.equal((await get(app, '/notes')).statusCode, 429, '1 ms before the window closes');
    now += 1;
    const fresh = await get(app, '/notes');
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers.ratelimit, '"default";r=1;t=10');
  });

  test('closed windows are swept, so memory holds only the clients seen lately', () => {
    const policies = ratePolicies(mustLoad(notes('{rate: {limit: 2, window: 10s, scope: address, overrides: {note.create: {limit: 1, window: 1m}}}}')));
    const main = policies.get('note.list');
    const create = policies.get('note.create');
    assert.ok(main && create && main !== create);
    assert.equal(policies.get('person.read'), main, 'endpoints without an override share the default policy');
    main.windows.set('10.0.0.1', { closesAt: 1_000, used: 2 });
    main.windows.set('10.0.0.2', { closesAt: 2_000, used: 1 });
    create.windows.set('10.0.0.1', { closesAt: 1_500, used: 1 });
    sweepClosed([main, create], 1_500);
    assert.deepEqual([...main.windows.keys()], ['10.0.0.2']);
    assert.equal(create.windows.size, 0);
  });

  test('no rate limit declared: nothing is limited and no fields are sent; check lists it as a default', async (t) => {
    const text = notes('{pagination: {style: cursor, defaultSize: 10, maxSize: 10, overMax: clamp}}');
    const { app } = await open(t, text);
    for (let i = 0; i < 50; i++) assert.equal((await get(app, '/notes')).headers.ratelimit, undefined);
    const defaults = checkSpec(mustLoad(text), []).defaults.map((d) => d.key);
    assert.ok(defaults.includes('limits.rate'), defaults.join(', '));
  });
});

// ---- time-outs ----------------------------------------------------------------------

/** A store whose next `get` (or `list`) waits until released: a read slower than the time-out. Counts the writes that reach it. */
function slowReads(inner: Store) {
  let held: { method: 'get' | 'list'; entered: () => void; gate: Promise<void> } | undefined;
  const wait = async (method: 'get' | 'list') => {
    const h = held;
    if (h?.method !== method) return;
    held = undefined;
    h.entered();
    await h.gate;
  };
  const writes = { count: 0 };
  /** The list queries that reached the store, as they came (their `work` mark included). */
  const lists: (ListQuery | LeanListQuery)[] = [];
  const counted = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A) => {
    writes.count++;
    return f(...a);
  };
  const store: Store = {
    kind: inner.kind,
    credentials: inner.credentials,
    events: inner.events,
    migrate: (r) => inner.migrate(r),
    insert: counted((r, rec, o) => inner.insert(r, rec, o)),
    insertMany: counted((r, recs, o) => inner.insertMany(r, recs, o)),
    changeMany: counted((r, cs, o) => inner.changeMany(r, cs, o)),
    update: counted((r, id, d, e, o) => inner.update(r, id, d, e, o)),
    remove: counted((r, id, e, o) => inner.remove(r, id, e, o)),
    putIdempotent: counted((s, k, v) => inner.putIdempotent(s, k, v)),
    // One function for the three overloads of Store.list: it hands the query on as it came.
    list: (async (r: string, q: ListQuery | LeanListQuery) => {
      lists.push(q);
      await wait('list');
      return inner.list(r, q);
    }) as Store['list'],
    count: (r, q) => inner.count(r, q),
    getIdempotent: (s, k) => inner.getIdempotent(s, k),
    expireIdempotent: (b) => inner.expireIdempotent(b),
    close: () => inner.close(),
    get: async (r, id) => {
      await wait('get');
      return inner.get(r, id);
    },
  };
  return {
    store,
    writes,
    lists,
    /** Holds the next read; `started` resolves when it has started, `release` lets it finish. */
    holdNext(method: 'get' | 'list' = 'get') {
      let entered = (): void => {};
      let release = (): void => {};
      const started = new Promise<void>((resolve) => (entered = resolve));
      held = { method, entered, gate: new Promise<void>((resolve) => (release = resolve)) };
      return { started, release };
    },
  };
}

/** Lets every pending callback and promise job run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

/** Log lines at warn or above: "Reply was already sent", "Promise errored", faults. */
const complaints = (logs: Record<string, unknown>[]) => logs.filter((l) => Number(l.level) >= 40);

describe('time-outs', () => {
  test('a create whose ref check outruns the time-out: 504 as declared, and nothing is written after', async (t) => {
    const slow = slowReads(await freshStore());
    const { app, store, logs } = await open(t, notes('{rate: {limit: 100, window: 1m, scope: address}, timeouts: {request: 100ms, status: 504}}'), { store: slow.store });
    const person = await store.insert('person', { data: { name: 'Ada' } });
    slow.writes.count = 0;
    const hold = slow.holdNext();
    const started = Date.now();
    const r = await post(app, '/notes', { title: 'late', person: Number(person.id) });
    const took = Date.now() - started;
    assert.equal(r.statusCode, 504);
    assert.ok(took >= 100, `answered after the time-out, not before (${took} ms)`);
    assert.match(r.headers['content-type'] as string, /^application\/problem\+json/);
    const body = r.json() as Record<string, unknown>;
    assert.equal(body.code, 'timeout');
    assert.equal(body.status, 504);
    assert.match(String(body.detail), /100ms/);
    assert.equal(r.headers.ratelimit, '"default";r=99;t=60', 'the time-out answer keeps the rate-limit fields');
    // The read the request waited on now returns: its work must stop there.
    hold.release();
    await settle();
    assert.equal(slow.writes.count, 0, 'no write started after the time-out');
    assert.equal((await store.list('note', { limit: 10 })).records.length, 0);
    assert.deepEqual(complaints(logs()), [], 'answered once, nothing logged as a fault');
    // The service goes on: the next request is served.
    assert.equal((await post(app, '/notes', { title: 'on time', person: Number(person.id) })).statusCode, 201);
  });

  test('a spec that states "no time-out" gets none: a slow read is answered 200 where a declared 100 ms would be 504, and no ticker runs', async (t) => {
    for (const [limits, status] of [['{timeouts: {request: 100ms, status: 504}, rate: {none: Not limited.}}', 504], ['{timeouts: {none: Requests run to completion.}, rate: {none: Not limited.}}', 200]] as const) {
      const slow = slowReads(await freshStore());
      const { app, store } = await open(t, notes(limits), { store: slow.store });
      const note = await store.insert('note', { data: { title: 'held' } });
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const hold = slow.holdNext();
      const answer = fetch(`${address}/notes/${note.id}`);
      await hold.started;
      // With a time-out, the answer comes while the read is held (however late the machine's
      // timers run); without one, nothing answers until the read is let go, 300 ms on.
      let r: Response;
      if (status === 504) {
        r = await answer;
        hold.release();
      } else {
        const first = await Promise.race([answer.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 300, 'waited'))]);
        assert.equal(first, 'waited', 'nothing answers a held read when the spec states no time-out');
        hold.release();
        r = await answer;
      }
      assert.equal(r.status, status, limits);
      // The time-out machinery is not even installed when the spec states there is none.
      assert.equal(app.hasRequestDecorator('work'), status === 504);
      // "No rate limit" stated: no RateLimit fields on any answer.
      assert.equal(r.headers.get('ratelimit-policy'), null);
    }
  });

  test('over a real socket, an update whose read outruns the time-out leaves the record as it was', async (t) => {
    const slow = slowReads(await freshStore());
    const { app, store, logs } = await open(t, notes('{timeouts: {request: 100ms, status: 504}}'), { store: slow.store });
    const note = await store.insert('note', { data: { title: 'before' } });
    slow.writes.count = 0;
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const hold = slow.holdNext();
    const r = await fetch(`${address}/notes/${note.id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ title: 'after' }) });
    assert.equal(r.status, 504);
    assert.equal(((await r.json()) as Record<string, unknown>).code, 'timeout');
    hold.release();
    await settle();
    assert.equal(slow.writes.count, 0);
    const stored = await store.get('note', note.id);
    assert.equal(stored?.data.title, 'before');
    assert.equal(stored?.version, 1);
    assert.deepEqual(complaints(logs()), []);
  });

  test('over a real socket, a page whose read outruns the time-out: 504, and the store holds the request\'s mark, abandoned (a queued slow read is then dropped)', async (t) => {
    const slow = slowReads(await freshStore());
    const { app, store, logs } = await open(t, notes('{timeouts: {request: 100ms, status: 504}}'), { store: slow.store });
    await store.insert('note', { data: { title: 'one' } });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const hold = slow.holdNext('list');
    const r = await fetch(`${address}/notes?limit=5`);
    assert.equal(r.status, 504);
    assert.equal(((await r.json()) as Record<string, unknown>).code, 'timeout');
    // The reader thread drops a read whose mark is abandoned by its turn (test/store/sqlite-reader.test.ts):
    // the page must hand the store its request's mark, set by the time-out.
    const work = slow.lists.at(-1)?.work;
    assert.ok(work, 'the page handed the store no work mark');
    assert.equal(work.abandoned, true);
    hold.release();
    await settle();
    // A page in time carries a mark that stays unset.
    const ok = await fetch(`${address}/notes?limit=5`);
    assert.equal(ok.status, 200);
    assert.equal(slow.lists.at(-1)?.work?.abandoned, false);
    assert.deepEqual(complaints(logs()), []);
  });

  test('a body that arrives too slowly: answered at the time-out, and the handler never runs', async (t) => {
    const slow = slowReads(await freshStore());
    const { app, store, logs } = await open(t, notes('{timeouts: {request: 100ms, status: 504}}'), { store: slow.store });
    const address = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
    const body = JSON.stringify({ title: 'slowly' });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: address.hostname, port: address.port, path: '/notes', method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          clearTimeout(late);
          resolve({ status: res.statusCode ?? 0, text });
        });
      });
      req.on('error', reject);
      req.flushHeaders();
      // The body would follow long after the time-out, as a slow (or hostile) client sends it.
      const late = setTimeout(() => req.end(body), 1_000);
    });
    assert.equal(answer.status, 504);
    assert.equal((JSON.parse(answer.text) as Record<string, unknown>).code, 'timeout');
    await settle();
    assert.equal(slow.writes.count, 0);
    assert.equal((await store.list('note', { limit: 10 })).records.length, 0);
    assert.deepEqual(complaints(logs()), []);
  });

  test('a hook before the handler that outruns the time-out: answered once, and the request goes no further', async (t) => {
    const { app, store, logs } = await open(t, notes('{timeouts: {request: 100ms, status: 504}}'));
    // Stands for a slow step of authentication (a JWKS fetch, say).
    app.addHook('onRequest', async () => {
      await new Promise((resolve) => setTimeout(resolve, 250));
    });
    const r = await post(app, '/notes', { title: 'never' });
    assert.equal(r.statusCode, 504);
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal((await store.list('note', { limit: 10 })).records.length, 0);
    assert.deepEqual(complaints(logs()), []);
  });

  test('a list that outruns the time-out: 504, and the late page is not sent after it', async (t) => {
    const slow = slowReads(await freshStore());
    const { app, logs } = await open(t, notes('{timeouts: {request: 100ms, status: 504}}'), { store: slow.store });
    const hold = slow.holdNext('list');
    const r = await get(app, '/notes');
    assert.equal(r.statusCode, 504);
    assert.equal((r.json() as Record<string, unknown>).code, 'timeout');
    hold.release();
    await settle();
    assert.deepEqual(complaints(logs()), [], 'no "Reply was already sent"');
  });

  test('a request answered in time leaves the clock when its answer starts, and is never marked abandoned', async (t) => {
    const { app, logs } = await open(t, notes('{timeouts: {request: 100ms, status: 504}}'));
    const works: Work[] = [];
    app.addHook('onResponse', async (request) => {
      if (request.work) works.push(request.work);
    });
    const created = await post(app, '/notes', { title: 'quick' });
    assert.equal(created.statusCode, 201);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const read = await get(app, `/notes/${(created.json() as { id: number }).id}`);
    assert.equal(read.statusCode, 200);
    assert.equal(works.length, 2);
    assert.deepEqual(works.map((w) => [w.linked, w.abandoned]), [[false, false], [false, false]]);
    assert.deepEqual(complaints(logs()), []);
  });

  test('the clock: due after the time-out and at most a tenth later, oldest first, answered ones skipped', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const expired: string[] = [];
    const names = new Map<Work, string>();
    const inFlight = new InFlight(1_000, (w) => expired.push(names.get(w) as string));
    const add = (name: string): Work => {
      const work = inFlight.add({} as FastifyReply);
      names.set(work, name);
      return work;
    };
    add('a');
    const b = add('b');
    t.mock.timers.tick(150);
    add('c');
    inFlight.remove(b); // answered: its answer started
    t.mock.timers.tick(849);
    assert.deepEqual(expired, [], 'nothing before the time-out');
    t.mock.timers.tick(101); // 1100 ms: a (arrived at 0) is due; c (at 150, after the first tick) is not
    assert.deepEqual(expired, ['a']);
    t.mock.timers.tick(100); // 1200 ms: c, 1050 ms after it arrived
    assert.deepEqual(expired, ['a', 'c'], 'b was answered and left the clock');
    t.mock.timers.tick(10_000);
    assert.deepEqual(expired, ['a', 'c']);
    inFlight.stop();
  });

  test('the spec silent: the safety default, 30s answered with 503 (never earlier), and check lists it', async (t) => {
    const text = notes('{pagination: {style: cursor, defaultSize: 10, maxSize: 10, overMax: clamp}}');
    const slow = slowReads(await freshStore());
    const { app, store, logs } = await open(t, text, { store: slow.store });
    const note = await store.insert('note', { data: { title: 'x' } });
    // The time-out's ticker is the only interval a request starts; mocked, 30 s pass at once.
    t.mock.timers.enable({ apis: ['setInterval'] });
    const hold = slow.holdNext();
    let answered = false;
    const pending = get(app, `/notes/${note.id}`).then((r) => {
      answered = true;
      return r;
    });
    await hold.started;
    t.mock.timers.tick(29_999);
    await settle();
    assert.equal(answered, false, 'not answered before 30 s');
    t.mock.timers.tick(3_001); // the ticker is a tenth of the time-out: due by 33 s at the latest
    const r = await pending;
    assert.equal(r.statusCode, 503);
    const body = r.json() as Record<string, unknown>;
    assert.equal(body.code, 'timeout');
    assert.equal(body.status, 503);
    assert.match(String(body.detail), /30s/);
    hold.release();
    await settle();
    assert.deepEqual(complaints(logs()), []);
    const listed = checkSpec(mustLoad(text), []).defaults.find((d) => d.key === 'limits.timeouts.request');
    assert.equal(listed?.value, '30s, answered with 503');
  });
});
