/**
 * Webhooks through the proxy (part 6): given the client's receiver, the proxy makes a
 * subscription to that receiver one to its relay address, judges each delivery the service
 * sends there (signature, envelope, payload against the change that caused it) and relays it
 * to the receiver. The reference service's deliveries find nothing; a forged one is reported.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { RELAY_PATH, startProxy } from '../../src/proxy/index.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from '../conformance/support.ts';

test('proxy: webhook deliveries of svcspec serve, relayed through the proxy to the receiver, are judged and find nothing; a forged one is reported', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals } = await serveForTester(t, spec);
  const arrived: { headers: Record<string, unknown>; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => (arrived.push({ headers: req.headers, body }), res.writeHead(204).end()));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => receiver.close(resolve)));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const proxy = await startProxy({ spec, upstream: baseUrl, receiver: receiverUrl });
  t.after(() => proxy.close());
  const ann = { ...principals[0].headers, 'content-type': 'application/json' };

  const subscribed = await fetch(`${proxy.url}/webhooks`, { method: 'POST', headers: ann, body: JSON.stringify({ url: receiverUrl, events: ['book.added'] }) });
  assert.equal(subscribed.status, 201, await subscribed.clone().text());
  assert.equal(((await subscribed.json()) as { url: string }).url, receiverUrl, 'the client sees the receiver it subscribed (the service, the relay address)');
  const created = await fetch(`${proxy.url}/books`, { method: 'POST', headers: ann, body: JSON.stringify({ title: 'Dune', isbn: '9780441172719', authors: ['Frank Herbert'] }) });
  assert.equal(created.status, 201, await created.clone().text());
  const book = (await created.json()) as { id: string };
  for (let i = 0; i < 100 && !arrived.length; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(arrived.length, 1, 'the delivery reached the receiver through the proxy');
  assert.equal((JSON.parse(arrived[0].body) as { data: { id: string } }).data.id, book.id);
  assert.ok(arrived[0].headers['webhook-signature'], 'signed as it was sent');
  assert.equal(proxy.judge.counts.deliveries, 1, 'the delivery came through the proxy, which judged it');
  assert.deepEqual(proxy.findings.map((f) => `${f.part}/${f.id}: ${f.message}`), []);

  const forged = await fetch(`${proxy.url}${RELAY_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' }, body: JSON.stringify({ type: 'book.burned', timestamp: new Date().toISOString(), data: {} }) });
  assert.equal(forged.status, 204, "relayed all the same: the receiver's answer comes back");
  assert.deepEqual(proxy.findings.map((f) => `${f.part}/${f.id}`), ['events/delivery-signature', 'events/delivery-type-undeclared']);
  assert.match(proxy.findings[1].rule.location?.file ?? '', /library\.yaml$/);

  // A member beside the convention's three (src/spec/conventions/events.ts): the tester refuses it, and so does the proxy.
  const before = proxy.findings.length;
  const padded = await fetch(`${proxy.url}${RELAY_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': 'evt_2', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' }, body: JSON.stringify({ type: 'book.added', timestamp: new Date().toISOString(), data: JSON.parse(arrived[0].body).data, id: 'evt_2' }) });
  assert.equal(padded.status, 204);
  const envelope = proxy.findings.slice(before).filter((f) => f.id === 'delivery-envelope');
  assert.deepEqual(envelope.map((f) => f.message), ["the delivery body has 'id' beside type, timestamp, data"]);
});
