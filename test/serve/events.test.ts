/**
 * Part 6 at run time, over real loopback HTTP: the outbox, webhook subscriptions, signed
 * at-least-once delivery with retries, dead letters, replay, 410, time-outs, rotation, the
 * SSRF guard, bounded delivery concurrency, and the server-sent event stream with
 * Last-Event-ID. (The SIGKILL test of pending deliveries is events-durability.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { createApp } from '../../src/serve/app.ts';
import type { Spec } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { mustLoad } from '../support/spec.ts';
import { signatureValid, startReceiver, type Receiver } from '../support/receiver.ts';
import { credentialHeaders } from './support/credentials.ts';

const TASKS = readFileSync(new URL('./fixtures/tasks-events.yaml', import.meta.url), 'utf8');

interface Service {
  readonly base: string;
  readonly spec: Spec;
  readonly store: Store;
  /** Headers of two principals holding every scope, and of one holding only tasks:read. */
  readonly alice: Record<string, string>;
  readonly bob: Record<string, string>;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }>;
}

async function start(t: TestContext, options: { allowPrivate?: boolean; text?: string; concurrency?: number; pollMs?: number } = {}): Promise<Service> {
  const spec = mustLoad(options.text ?? TASKS);
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store, events: { allowPrivateWebhooks: options.allowPrivate ?? true, deliveryPollMs: options.pollMs ?? 50, random: () => 1, ...(options.concurrency ? { deliveryConcurrency: options.concurrency } : {}) } });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });

  t.after(async () => {
    await app.close();
    await store.close();
  });
  const alice = await credentialHeaders(spec, store, { principal: 'alice' });
  const bob = await credentialHeaders(spec, store, { principal: 'bob' });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = alice) => {
    const r = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
  };
  return { base, spec, store, alice, bob, call };
}

async function subscribe(s: Service, receiver: Receiver, body: Record<string, unknown> = {}, headers = s.alice): Promise<{ id: string; secret: string }> {
  const r = await s.call('POST', '/webhooks', { url: receiver.url, ...body }, headers);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

async function receiverFor(t: TestContext): Promise<Receiver> {
  const r = await startReceiver();
  t.after(() => r.close());
  return r;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the outbox: a write and its event commit together; refused writes leave no event', async (t) => {
  const s = await start(t);
  const created = await s.call('POST', '/tasks', { title: 'Write tests', pin: '1234' });
  assert.equal(created.status, 201);
  assert.equal((await s.call('POST', '/tasks', { title: 7 })).status, 422);
  assert.equal((await s.call('POST', `/tasks/${created.body.id}/finish`)).status, 200);
  assert.equal((await s.call('POST', `/tasks/${created.body.id}/finish`)).status, 409, 'an illegal transition');
  assert.equal((await s.call('DELETE', `/tasks/${created.body.id}`)).status, 204);
  const log = await s.store.events.after(0, 100);
  assert.deepEqual(log.map((e) => e.name), ['task.created', 'task.finished', 'task.deleted']);
  assert.deepEqual(log[0].payloads, { '': { id: created.body.id, title: 'Write tests', status: 'open' } }, 'as a read shows it: the writeOnly pin left out');
  assert.deepEqual(log[1].payloads, { '': { id: created.body.id, title: 'Write tests', status: 'done' } }, 'only the listed fields');
  assert.deepEqual(log[2].payloads, { '': { id: created.body.id } });
  assert.equal(log[0].owner, 'alice');
});

test('subscriptions: created with a secret shown once, listed and read by their owner only, removed', async (t) => {
  const s = await start(t);
  const receiver = await receiverFor(t);
  const r = await s.call('POST', '/webhooks', { url: receiver.url, events: ['task.created'], description: 'CI' });
  assert.equal(r.status, 201);
  assert.match(r.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.equal(r.headers.get('location'), `/webhooks/${r.body.id}`);
  assert.deepEqual({ ...r.body, id: undefined, secret: undefined, createdAt: undefined }, { id: undefined, url: receiver.url, events: ['task.created'], description: 'CI', status: 'enabled', secret: undefined, createdAt: undefined });
  const read = await s.call('GET', `/webhooks/${r.body.id}`);
  assert.equal(read.status, 200);
  assert.equal(read.body.secret, undefined, 'the secret is not shown again');
  assert.deepEqual((await s.call('GET', '/webhooks')).body.items.map((x: { id: string }) => x.id), [r.body.id]);
  assert.deepEqual((await s.call('GET', '/webhooks', undefined, s.bob)).body.items, [], "another principal's list is its own");
  assert.equal((await s.call('GET', `/webhooks/${r.body.id}`, undefined, s.bob)).status, 404);
  assert.equal((await s.call('DELETE', `/webhooks/${r.body.id}`, undefined, s.bob)).status, 404);
  assert.equal((await s.call('GET', '/webhooks', undefined, {})).status, 401, 'credentials are needed');
  assert.equal((await s.call('DELETE', `/webhooks/${r.body.id}`)).status, 204);
  assert.equal((await s.call('GET', `/webhooks/${r.body.id}`)).status, 404);
});

test('subscriptions: bad bodies are refused in the declared shape with pointers; internal URLs are refused (SSRF)', async (t) => {
  const strict = await start(t, { allowPrivate: false });
  const bad = await strict.call('POST', '/webhooks', { url: 'ftp://example.com/x', events: ['task.nope'], extra: 1 });
  assert.equal(bad.status, 422);
  assert.equal(bad.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  const pointers = bad.body.errors.map((e: { pointer: string }) => e.pointer).sort();
  assert.ok(pointers.includes('/events/0'), JSON.stringify(bad.body));
  assert.ok(pointers.includes('/extra') || pointers.includes(''), JSON.stringify(bad.body));
  for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://169.254.169.254/latest/meta-data', 'http://10.1.2.3/', 'http://[::1]/', 'http://[::ffff:192.168.0.1]/', 'ftp://example.com/']) {
    const r = await strict.call('POST', '/webhooks', { url });
    assert.equal(r.status, 422, url);
    assert.equal(r.body.errors[0].pointer, '/url', url);
  }
  assert.equal((await strict.call('POST', '/webhooks', { url: 'https://hooks.example.com/in' })).status, 201, 'a public URL is fine');
});

test('deliveries are signed per Standard Webhooks and carry the declared payload', async (t) => {
  const s = await start(t);
  const receiver = await receiverFor(t);
  const sub = await subscribe(s, receiver);
  const created = await s.call('POST', '/tasks', { title: 'Hear about me', pin: '9' });
  const [got] = await receiver.waitFor(1);
  assert.equal(got.headers['content-type'], 'application/json');
  assert.match(String(got.headers['webhook-id']), /^evt_\d+$/);
  assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
  assert.ok(signatureValid(sub.secret, got), 'the signature verifies with the subscription secret');
  assert.ok(!signatureValid(`whsec_${Buffer.alloc(24).toString('base64')}`, got), 'and not with another');
  const body = JSON.parse(got.body);
  assert.equal(body.type, 'task.created');
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  assert.deepEqual(body.data, { id: created.body.id, title: 'Hear about me', status: 'open' });
  const deliveries = await until('the delivery to settle', async () => {
    const list = (await s.call('GET', `/webhooks/${sub.id}/deliveries`)).body.items;
    return list[0]?.status === 'delivered' ? list : undefined;
  });
  assert.equal(deliveries[0].attempts, 1);
  assert.match(deliveries[0].id, /^dlv_[0-9a-f]{12}[\w-]{16}$/, 'the time in hex (ordered as text), then 12 random bytes');
  assert.ok(Math.abs(parseInt(deliveries[0].id.slice(4, 16), 16) - Date.now()) < 60_000);
  assert.equal(deliveries[0].eventId, got.headers['webhook-id']);
  assert.equal(deliveries[0].type, 'task.created', 'a listed delivery names its event (docs/events.md)');
});

test('a subscription made through the API wakes the delivery worker: with the poll a minute away it gets the next event at once, and none from before it', async (t) => {
  // A poll a minute away: only the subscription's own wake can start the delivery in time.
  const s = await start(t, { pollMs: 60_000 });
  const receiver = await receiverFor(t);
  await s.call('POST', '/tasks', { title: 'Before anyone listened' });
  await new Promise((r) => setTimeout(r, 50));
  await subscribe(s, receiver);
  const created = await s.call('POST', '/tasks', { title: 'Heard' });
  const [got] = await receiver.waitFor(1);
  assert.equal(JSON.parse(got.body).data.id, created.body.id, 'only the events after it');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(receiver.received.length, 1);
});

test('a subscription another process added to the store is found by the poll, with every event after it', async (t) => {
  const s = await start(t, { pollMs: 200 });
  const receiver = await receiverFor(t);
  await s.call('POST', '/tasks', { title: 'Before' });
  // As `svcspec webhooks add` does it: straight into the store, no wake of this service.
  await s.store.events.addSubscription({ id: 'sub_operator', url: receiver.url, events: [], status: 'enabled', secrets: [{ secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` }], createdAt: Date.now() });
  const created = await s.call('POST', '/tasks', { title: 'After' });
  const [got] = await receiver.waitFor(1);
  assert.equal(JSON.parse(got.body).data.id, created.body.id);
});

test('a subscriber gets only the events it asked for and may see', async (t) => {
  const s = await start(t);
  const forAlice = await receiverFor(t);
  const forBob = await receiverFor(t);
  await subscribe(s, forAlice, { events: ['task.finished'] });
  await subscribe(s, forBob, {}, s.bob);
  const task = await s.call('POST', '/tasks', { title: "Alice's" });
  await s.call('POST', `/tasks/${task.body.id}/finish`);
  await s.call('POST', '/tasks', { title: "Bob's" }, s.bob);
  const [got] = await forAlice.waitFor(1);
  assert.equal(JSON.parse(got.body).type, 'task.finished');
  const [bobs] = await forBob.waitFor(1);
  assert.equal(JSON.parse(bobs.body).data.title, "Bob's");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(forAlice.received.length, 1, 'task.created was not asked for');
  assert.equal(forBob.received.length, 1, "Alice's tasks are not Bob's to see");
});

test('failures are retried with the same webhook-id until delivered; Retry-After is honoured', async (t) => {
  const s = await start(t);
  const receiver = await receiverFor(t);
  const sub = await subscribe(s, receiver);
  receiver.script({ status: 500 }, { status: 503, retryAfter: '1' });
  await s.call('POST', '/tasks', { title: 'Flaky receiver' });
  const got = await receiver.waitFor(3);
  assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 1, 'one webhook-id across retries');
  assert.ok(got[2].at - got[1].at >= 900, `Retry-After: 1 asked for a second, waited ${got[2].at - got[1].at} ms`);
  for (const r of got) assert.ok(signatureValid(sub.secret, r));
  const [d] = await until('delivered', async () => {
    const list = (await s.call('GET', `/webhooks/${sub.id}/deliveries?status=delivered`)).body.items;
    return list.length ? list : undefined;
  });
  assert.equal(d.attempts, 3);
  assert.equal(d.lastStatus, 204);
});

test('after the last attempt a delivery is dead; it is listed and can be replayed', async (t) => {
  const s = await start(t);
  const receiver = await receiverFor(t);
  const sub = await subscribe(s, receiver);
  receiver.always({ status: 500 });
  await s.call('POST', '/tasks', { title: 'Doomed' });
  await receiver.waitFor(3);
  const [dead] = await until('dead', async () => {
    const list = (await s.call('GET', `/webhooks/${sub.id}/deliveries?status=dead`)).body.items;
    return list.length ? list : undefined;
  });
  assert.equal(dead.attempts, 3, 'the policy allows 3 attempts');
  assert.equal(dead.lastStatus, 500);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(receiver.received.length, 3, 'no attempt after the last');
  assert.equal((await s.call('GET', `/webhooks/${sub.id}/deliveries?status=bogus`)).status, 422);
  receiver.always(undefined);
  const replay = await s.call('POST', `/webhooks/${sub.id}/deliveries/${dead.id}/replay`);
  assert.equal(replay.status, 202);
  const got = await receiver.waitFor(4);
  assert.equal(got[3].headers['webhook-id'], got[0].headers['webhook-id'], 'a replay keeps the webhook-id');
  await until('delivered after replay', async () => ((await s.call('GET', `/webhooks/${sub.id}/deliveries?status=delivered`)).body.items.length ? true : undefined));
  assert.equal((await s.call('POST', `/webhooks/${sub.id}/deliveries/dlv_nope/replay`)).status, 404);
});

test('410 Gone disables the subscription; a receiver that does not answer in time is retried', async (t) => {
  const s = await start(t);
  const gone = await receiverFor(t);
  const slow = await receiverFor(t);
  const goneSub = await subscribe(s, gone);
  await subscribe(s, slow);
  gone.script({ status: 410 });
  slow.script({ delayMs: 1_000 });
  await s.call('POST', '/tasks', { title: 'One' });
  await gone.waitFor(1);
  const disabled = await until('disabled', async () => {
    const sub = (await s.call('GET', `/webhooks/${goneSub.id}`)).body;
    return sub.status === 'disabled' ? sub : undefined;
  });
  assert.match(disabled.disabledReason, /410/);
  const got = await slow.waitFor(2);
  assert.equal(got[0].headers['webhook-id'], got[1].headers['webhook-id']);
  await s.call('POST', '/tasks', { title: 'Two' });
  await slow.waitFor(3);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(gone.received.length, 1, 'nothing more goes to a disabled subscription');
});

test('a rotated secret signs beside the new one', async (t) => {
  const s = await start(t);
  const receiver = await receiverFor(t);
  const sub = await subscribe(s, receiver);
  const rotated = await s.call('POST', `/webhooks/${sub.id}/rotate-secret`);
  assert.equal(rotated.status, 200);
  assert.notEqual(rotated.body.secret, sub.secret);
  await s.call('POST', '/tasks', { title: 'Rotated' });
  const [got] = await receiver.waitFor(1);
  assert.equal(String(got.headers['webhook-signature']).split(' ').length, 2);
  assert.ok(signatureValid(sub.secret, got), 'the old secret still verifies');
  assert.ok(signatureValid(rotated.body.secret, got), 'and the new one');
});

test('slow receivers hold at most the delivery slots, never the API', async (t) => {
  const s = await start(t, { concurrency: 3 });
  // One receiver behind five subscriptions: its peak of open connections is the worker's.
  const receiver = await receiverFor(t);
  for (let i = 0; i < 5; i++) await subscribe(s, receiver);
  receiver.always({ delayMs: 150 });
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => s.call('POST', '/tasks', { title: `t${i}` })));
  assert.ok(answers.every((a) => a.status === 201), 'every write was answered while the receiver stalled');
  const got = await receiver.waitFor(40, 20_000);
  assert.ok(receiver.peak() <= 3, `at most 3 deliveries in flight, saw ${receiver.peak()}`);
  assert.ok(receiver.peak() >= 2, `deliveries run side by side, saw ${receiver.peak()}`);
  assert.equal(new Set(got.map((x) => `${x.headers['webhook-id']} ${x.headers['webhook-signature']}`)).size, 40, 'each event once per subscription');
});

/** Reads a server-sent event stream until `count` events came (or the time runs out). */
async function readStream(url: string, headers: Record<string, string>, count: number, timeoutMs = 5_000): Promise<{ status: number; type: string | null; events: EventSourceMessage[]; comments: string[] }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const r = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (events.length >= count) break;
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: r.status, type: r.headers.get('content-type'), events, comments };
}

test('the event stream sends what the listener may see, and resumes after Last-Event-ID', async (t) => {
  const s = await start(t);
  const live = readStream(`${s.base}/events`, s.alice, 3);
  await new Promise((r) => setTimeout(r, 100));
  const a = await s.call('POST', '/tasks', { title: 'A1' });
  await s.call('POST', '/tasks', { title: 'B1' }, s.bob);
  await s.call('POST', `/tasks/${a.body.id}/finish`);
  await s.call('DELETE', `/tasks/${a.body.id}`);
  const got = await live;
  assert.equal(got.status, 200);
  assert.equal(got.type, 'text/event-stream; charset=utf-8');
  assert.deepEqual(got.events.map((e) => e.event), ['task.created', 'task.finished', 'task.deleted'], "Bob's task is not Alice's to see");
  assert.deepEqual(JSON.parse(got.events[0].data), { id: a.body.id, title: 'A1', status: 'open' });
  for (const e of got.events) assert.match(e.id ?? '', /^evt_\d+$/);
  // Resume after the first: exactly the later two come, from the stored log.
  const resumed = await readStream(`${s.base}/events`, { ...s.alice, 'last-event-id': got.events[0].id as string }, 2);
  assert.deepEqual(resumed.events.map((e) => e.id), got.events.slice(1).map((e) => e.id));
  const byQuery = await readStream(`${s.base}/events?lastEventId=${got.events[1].id}`, s.alice, 1);
  assert.deepEqual(byQuery.events.map((e) => e.id), [got.events[2].id]);
  const idle = await readStream(`${s.base}/events`, s.alice, 1, 400);
  assert.ok(idle.comments.some((c) => c.trim() === 'heartbeat'), `heartbeats every 100ms: ${JSON.stringify(idle.comments)}`);
  const bad = await fetch(`${s.base}/events`, { headers: { ...s.alice, 'last-event-id': 'yesterday' } });
  assert.equal(bad.status, 422);
  await bad.text();
  const anon = await fetch(`${s.base}/events`);
  assert.equal(anon.status, 401);
  await anon.text();
});
