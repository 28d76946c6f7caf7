/**
 * Pending webhook deliveries survive a SIGKILL. `svcspec serve` runs as a child process; a
 * receiver holds every delivery past the delivery time-out; tasks are created (each
 * acknowledged with 201, so each event is committed with it), the process is killed while
 * deliveries are in flight, the receiver recovers, the service is started again on the same
 * SQLite file, and every event arrives, each under the one webhook-id it had before the kill.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, specInTempDir, startServe } from '../support/child-server.ts';
import { signatureValid, startReceiver } from '../support/receiver.ts';

// The fixture, with a time-out and attempts that leave room for a kill and a restart.
const SPEC = readFileSync(new URL('./fixtures/tasks-events.yaml', import.meta.url), 'utf8')
  .replace('timeout: 300ms', 'timeout: 1s')
  .replace('retry: { attempts: 3, backoff: fixed, initialDelay: 60ms }', 'retry: { attempts: 20, backoff: fixed, initialDelay: 100ms }');

test('pending deliveries survive SIGKILL and arrive after a restart, each webhook-id stable', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const { dir, spec, children } = specInTempDir(t, SPEC, 'tasks.yaml');
  const db = join(dir, 'tasks.db');
  const key = cli(['credentials', 'create', '--spec', spec, '--db', db, '--scheme', 'key', '--scopes', 'tasks:read,tasks:write', '--principal', 'ann']);
  assert.equal(key.status, 0, key.stderr);
  const headers = { 'x-api-key': (/^X-API-Key: (\S+)$/m.exec(key.stdout) as RegExpExecArray)[1], 'content-type': 'application/json' };
  const args = [spec, '--port', '0', '--db', db, '--quiet', '--allow-private-webhooks'];

  const first = await startServe(args);
  children.push(first.child);
  const sub = await (await fetch(`${first.url}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url }) })).json() as { id: string; secret: string };
  assert.match(sub.secret, /^whsec_/);
  // Every delivery is held past the 1 s time-out: none is delivered before the kill.
  receiver.always({ delayMs: 5_000 });
  const created = await Promise.all(Array.from({ length: 12 }, (_, i) => fetch(`${first.url}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: `task ${i}` }) })));
  assert.ok(created.every((r) => r.status === 201));
  await receiver.waitFor(3);
  const before = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  const exited = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGKILL');
  await exited;

  receiver.always(undefined);
  const arrivedBefore = receiver.received.length;
  const second = await startServe(args);
  children.push(second.child);
  // 12 events, each delivered at least once after the restart.
  const deadline = Date.now() + 30_000;
  const after = () => new Set(receiver.received.slice(arrivedBefore).map((r) => String(r.headers['webhook-id'])));
  while (after().size < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const ids = after();
  assert.equal(ids.size, 12, `events delivered after the restart: ${[...ids].join(', ')}`);
  assert.deepEqual([...ids].sort(), Array.from({ length: 12 }, (_, i) => `evt_${i + 1}`).sort());
  for (const id of before) assert.ok(ids.has(id), `${id}, in flight at the kill, came again under the same webhook-id`);
  for (const r of receiver.received) assert.ok(signatureValid(sub.secret, r));
  // And the service knows: every delivery is recorded as delivered.
  let delivered = 0;
  while (Date.now() < deadline) {
    const list = await (await fetch(`${second.url}/webhooks/${sub.id}/deliveries?status=delivered`, { headers })).json() as { items: unknown[] };
    delivered = list.items.length;
    if (delivered === 12) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(delivered, 12);
});
