/**
 * `svcspec webhooks`: subscriptions the operator configures (`subscriptions: config`), picked
 * up by a running `svcspec serve` (a child process) from the shared database; CloudEvents
 * deliveries; dead letters listed and replayed from the command line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { cli, specInTempDir, startServe } from '../support/child-server.ts';
import { signatureValid, startReceiver } from '../support/receiver.ts';

const SPEC = readFileSync(new URL('../serve/fixtures/tasks-events.yaml', import.meta.url), 'utf8')
  .replace('webhooks: { subscriptions: api, path: /webhooks, signing: standard-webhooks, timeout: 300ms }', 'webhooks: { subscriptions: config, signing: standard-webhooks, cloudEvents: true, timeout: 300ms }');

test('svcspec webhooks: add, list, deliveries, replay against a running service', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const { spec, children } = specInTempDir(t, SPEC, 'tasks.yaml');

  const refused = cli(['webhooks', 'add', '--spec', spec, '--url', receiver.url]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /loopback address/, 'a loopback URL needs --allow-private');
  const unknown = cli(['webhooks', 'add', '--spec', spec, '--url', receiver.url, '--allow-private', '--events', 'task.nope']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /'task\.nope' is not an event of the spec \(events: task\.created, task\.finished, task\.deleted\)/);
  assert.equal(cli(['webhooks', 'deliveries', '--spec', spec]).status, 2, 'an id is needed');

  const added = cli(['webhooks', 'add', '--spec', spec, '--url', receiver.url, '--allow-private', '--events', 'task.created', '--format', 'json']);
  assert.equal(added.status, 0, added.stderr);
  const sub = JSON.parse(added.stdout) as { id: string; secret: string; events: string[] };
  assert.match(sub.secret, /^whsec_/);
  assert.deepEqual(sub.events, ['task.created']);
  const listed = JSON.parse(cli(['webhooks', 'list', '--spec', spec, '--format', 'json']).stdout) as { id: string; secret?: string }[];
  assert.deepEqual(listed.map((s) => s.id), [sub.id]);
  assert.equal(listed[0].secret, undefined, 'never listed');

  const key = cli(['credentials', 'create', '--spec', spec, '--scheme', 'key', '--scopes', 'tasks:read,tasks:write']);
  const headers = { 'x-api-key': (/^X-API-Key: (\S+)$/m.exec(key.stdout) as RegExpExecArray)[1], 'content-type': 'application/json' };
  const server = await startServe([spec, '--port', '0', '--quiet', '--allow-private-webhooks']);
  children.push(server.child);
  const task = await (await fetch(`${server.url}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'Ship it' }) })).json() as { id: number };
  const [got] = await receiver.waitFor(1);
  assert.equal(got.headers['content-type'], 'application/cloudevents+json');
  assert.ok(signatureValid(sub.secret, got));
  const ce = JSON.parse(got.body);
  assert.deepEqual({ ...ce, time: undefined }, { specversion: '1.0', id: 'evt_1', source: '/tasks', type: 'task.created', subject: String(task.id), time: undefined, datacontenttype: 'application/json', data: { id: task.id, title: 'Ship it', status: 'open' } });

  // A receiver that fails every attempt: the delivery dies, is listed, and is replayed from the CLI.
  receiver.always({ status: 500 });
  await fetch(`${server.url}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'Doomed' }) });
  await receiver.waitFor(4);
  let dead: { id: string; attempts: number }[] = [];
  for (let i = 0; i < 100 && dead.length === 0; i++) {
    dead = JSON.parse(cli(['webhooks', 'deliveries', sub.id, '--spec', spec, '--status', 'dead', '--format', 'json']).stdout);
    if (!dead.length) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(dead.length, 1);
  assert.equal(dead[0].attempts, 3);
  receiver.always(undefined);
  const replayed = cli(['webhooks', 'replay', dead[0].id, '--spec', spec]);
  assert.equal(replayed.status, 0, replayed.stderr);
  const all = await receiver.waitFor(5);
  assert.equal(all[4].headers['webhook-id'], all[1].headers['webhook-id'], 'the replay keeps the webhook-id');
  assert.equal(cli(['webhooks', 'replay', 'dlv_nope', '--spec', spec]).status, 1);
  assert.equal(cli(['webhooks', 'remove', sub.id, '--spec', spec]).status, 0);
  assert.match(cli(['webhooks', 'list', '--spec', spec]).stdout, /No webhook subscriptions/);
});
