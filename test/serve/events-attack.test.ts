/**
 * Part 6 under attack (issue #15), over real loopback HTTP and real child processes: a
 * revoked credential's stream and subscriptions, webhook URLs that hide an internal IPv4
 * address in IPv6, and deliveries in flight at SIGTERM.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import { issueCredential, revokeCredential } from '../../src/serve/auth/credentials.ts';
import type { Spec } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { cli, specInTempDir, startServe } from '../support/child-server.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { mustLoad } from '../support/spec.ts';

const TASKS = readFileSync(new URL('./fixtures/tasks-events.yaml', import.meta.url), 'utf8');

interface Service {
  readonly base: string;
  readonly spec: Spec;
  readonly store: Store;
  /** A fresh API key of the principal, with its credential id. */
  key(principal: string): Promise<{ id: string; headers: Record<string, string> }>;
}

async function start(t: TestContext, allowPrivate: boolean): Promise<Service> {
  const spec = mustLoad(TASKS);
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store, events: { allowPrivateWebhooks: allowPrivate, deliveryPollMs: 50, random: () => 1 } });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const key = async (principal: string) => {
    const r = await issueCredential(spec, store.credentials, { scheme: 'key', scopes: ['tasks:read', 'tasks:write'], principal });
    assert.ok(r.ok);
    return { id: r.issued.credential.id, headers: { ...r.issued.headers } };
  };
  return { base, spec, store, key };
}

async function receiverFor(t: TestContext): Promise<Receiver> {
  const r = await startReceiver();
  t.after(() => r.close());
  return r;
}

const json = { 'content-type': 'application/json' };

test("a revoked credential's event stream ends within a second and its webhook subscriptions are disabled; another credential of the same principal goes on", async (t) => {
  const s = await start(t, true);
  const receiver = await receiverFor(t);
  const revoked = await s.key('ann');
  const kept = await s.key('ann');
  const sub = (headers: Record<string, string>) => fetch(`${s.base}/webhooks`, { method: 'POST', headers: { ...headers, ...json }, body: JSON.stringify({ url: receiver.url }) }).then((r) => r.json() as Promise<{ id: string }>);
  const doomed = await sub(revoked.headers);
  const alive = await sub(kept.headers);
  const create = (title: string) => fetch(`${s.base}/tasks`, { method: 'POST', headers: { ...kept.headers, ...json }, body: JSON.stringify({ title }) });

  const stream = await fetch(`${s.base}/events`, { headers: revoked.headers });
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  let text = '';
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Date.now();
      text += new TextDecoder().decode(value);
    }
  })();
  assert.equal((await create('before')).status, 201);
  await receiver.waitFor(2);
  while (!text.includes('task.created')) await new Promise((r) => setTimeout(r, 20));

  const revokedAt = Date.now();
  assert.ok((await revokeCredential(s.store.credentials, revoked.id)).ok);
  // Bounded, so a stream that never ends fails the test rather than hangs it.
  const endedAt = await Promise.race([ended, new Promise<number>((r) => setTimeout(() => r(Number.POSITIVE_INFINITY), 3_000).unref())]);
  if (endedAt === Number.POSITIVE_INFINITY) await reader.cancel();
  assert.ok(endedAt - revokedAt <= 1_500, `the stream ended ${endedAt - revokedAt} ms after the revocation`);
  assert.match(text, /: the credential has been revoked/);
  // With no event to deliver, the subscription made with it reads disabled within a second too.
  let disabledAt = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 60 && disabledAt === Number.POSITIVE_INFINITY; i++) {
    if ((await s.store.events.getSubscription(doomed.id))?.status === 'disabled') disabledAt = Date.now();
    else await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(disabledAt - revokedAt <= 1_500, `the subscription was disabled ${disabledAt - revokedAt} ms after the revocation`);
  const again = await fetch(`${s.base}/events`, { headers: revoked.headers });
  assert.equal(again.status, 401, 'reconnecting is refused');
  await again.text();

  await new Promise((r) => setTimeout(r, 200));
  const received = receiver.received.length;
  assert.equal((await create('after')).status, 201);
  await receiver.waitFor(received + 1);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(receiver.received.length, received + 1, "only the kept credential's subscription got the later event");
  const listed = await s.store.events.getSubscription(doomed.id);
  assert.equal(listed?.status, 'disabled');
  assert.match(listed?.disabledReason ?? '', /credential .* was revoked/);
  assert.equal((await s.store.events.getSubscription(alive.id))?.status, 'enabled');
});

test('webhook URLs with an internal IPv4 address written in IPv6 are refused when subscribing; an IP literal is checked again at delivery', async (t) => {
  const s = await start(t, false);
  const { headers } = await s.key('ann');
  for (const url of ['http://[::127.0.0.1]/', 'http://[::a9fe:a9fe]/latest/meta-data', 'http://[::7f00:1]:8080/', 'http://[::ffff:7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:7f00:1::]/', 'http://[fe80::1]/', 'http://2130706433/']) {
    const r = await fetch(`${s.base}/webhooks`, { method: 'POST', headers: { ...headers, ...json }, body: JSON.stringify({ url }) });
    const body = (await r.json()) as { errors: { pointer: string; message: string }[] };
    assert.equal(r.status, 422, url);
    assert.equal(body.errors[0].pointer, '/url', url);
  }
  // A subscription to a loopback literal that got into the store anyway (written by hand,
  // or stored before a range was refused): the delivery is refused, never sent.
  const receiver = await receiverFor(t);
  const sub = await s.store.events.addSubscription({ id: 'wh_literal', url: receiver.url, events: [], status: 'enabled', secrets: [{ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }], createdAt: Date.now() });
  assert.equal((await fetch(`${s.base}/tasks`, { method: 'POST', headers: { ...headers, ...json }, body: JSON.stringify({ title: 'x' }) })).status, 201);
  const deadline = Date.now() + 5_000;
  let last: string | undefined;
  while (Date.now() < deadline) {
    const [d] = await s.store.events.listDeliveries(sub.id, { limit: 1 });
    last = d?.lastError;
    if (last) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.match(last ?? '', /refused: 127\.0\.0\.1 is a loopback address/);
  assert.equal(receiver.received.length, 0, 'nothing reached the loopback receiver');
});

// A time-out long enough that the drain's bound (5 s) comes first; attempts enough to retry.
const SLOW = TASKS.replace('timeout: 300ms', 'timeout: 30s').replace('retry: { attempts: 3, backoff: fixed, initialDelay: 60ms }', 'retry: { attempts: 20, backoff: fixed, initialDelay: 100ms }');

async function serveWithSubscription(t: TestContext) {
  const receiver = await receiverFor(t);
  const { dir, spec, children } = specInTempDir(t, SLOW, 'tasks.yaml');
  const db = join(dir, 'tasks.db');
  const key = cli(['credentials', 'create', '--spec', spec, '--db', db, '--scheme', 'key', '--scopes', 'tasks:read,tasks:write', '--principal', 'ann']);
  assert.equal(key.status, 0, key.stderr);
  const headers = { 'x-api-key': (/^X-API-Key: (\S+)$/m.exec(key.stdout) as RegExpExecArray)[1], ...json };
  const args = [spec, '--port', '0', '--db', db, '--quiet', '--allow-private-webhooks'];
  const first = await startServe(args);
  children.push(first.child);
  const sub = (await (await fetch(`${first.url}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url }) })).json()) as { id: string };
  return { receiver, children, args, headers, first, sub };
}

/** SIGTERM, a clean exit, and how long it took, in ms. */
async function terminated(child: ChildProcess): Promise<number> {
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  const termAt = Date.now();
  child.kill('SIGTERM');
  assert.equal(await exited, 0, 'a clean exit');
  return Date.now() - termAt;
}

test('SIGTERM drains: a delivery in flight finishes and is recorded, so it is not sent again after a restart', async (t) => {
  const { receiver, children, args, headers, first, sub } = await serveWithSubscription(t);
  receiver.script({ delayMs: 1_500 });
  assert.equal((await fetch(`${first.url}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'slow' }) })).status, 201);
  await receiver.waitFor(1);
  const took = await terminated(first.child);
  assert.ok(took >= 1_000, `it waited for the receiver's answer (${took} ms)`);

  const second = await startServe(args);
  children.push(second.child);
  const list = (await (await fetch(`${second.url}/webhooks/${sub.id}/deliveries`, { headers })).json()) as { items: { status: string; attempts: number }[] };
  assert.deepEqual(list.items.map((d) => [d.status, d.attempts]), [['delivered', 1]]);
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal(receiver.received.length, 1, 'not sent again after the restart');
});

test('SIGTERM drains within its bound: a delivery still in flight after 5 s is released, and sent again after a restart under the same webhook-id, its attempt not counted', async (t) => {
  const { receiver, children, args, headers, first, sub } = await serveWithSubscription(t);
  receiver.script({ delayMs: 60_000 });
  assert.equal((await fetch(`${first.url}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'stuck' }) })).status, 201);
  await receiver.waitFor(1);
  const took = await terminated(first.child);
  // Without the bound it would wait for the receiver (60 s) or the delivery time-out (30 s).
  assert.ok(took >= 4_500 && took < 15_000, `bounded by the drain (${took} ms)`);

  const second = await startServe(args);
  children.push(second.child);
  const [again] = await receiver.waitFor(2, 10_000).then((all) => all.slice(1));
  assert.equal(again.headers['webhook-id'], receiver.received[0].headers['webhook-id']);
  const deadline = Date.now() + 10_000;
  let items: { status: string; attempts: number }[] = [];
  while (Date.now() < deadline) {
    items = ((await (await fetch(`${second.url}/webhooks/${sub.id}/deliveries`, { headers })).json()) as { items: typeof items }).items;
    if (items[0]?.status === 'delivered') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(items.map((d) => [d.status, d.attempts]), [['delivered', 1]], 'the released attempt was not counted');
});

test('while it shuts down (draining a delivery), a new request is 503 unavailable in the declared shape with Retry-After and Connection: close; /readyz fails', async (t) => {
  const spec = mustLoad(SLOW);
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store, events: { allowPrivateWebhooks: true, deliveryPollMs: 50 } });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(() => store.close());
  const r = await issueCredential(spec, store.credentials, { scheme: 'key', scopes: ['tasks:read', 'tasks:write'] });
  assert.ok(r.ok);
  const headers = { ...r.issued.headers, ...json };
  const receiver = await receiverFor(t);
  receiver.script({ delayMs: 1_500 });
  assert.equal((await fetch(`${base}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url }) })).status, 201);
  assert.equal((await fetch(`${base}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'x' }) })).status, 201);
  await receiver.waitFor(1);
  const closed = app.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const refused = await fetch(`${base}/tasks`, { headers });
  assert.equal(refused.status, 503);
  assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(refused.headers.get('connection'), 'close');
  assert.equal(refused.headers.get('retry-after'), '5');
  const body = (await refused.json()) as Record<string, unknown>;
  assert.equal(body.code, 'unavailable');
  assert.equal((await fetch(`${base}/readyz`)).status, 503);
  await closed;
  const [d] = await store.events.listDeliveries((await store.events.listSubscriptions())[0].id, { limit: 1 });
  assert.equal(d.status, 'delivered', 'the delivery in flight finished before the close');
});
