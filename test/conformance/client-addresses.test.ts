/**
 * Limits counted per client address (src/conformance/sources.ts, quota.ts): against a service
 * on 127.0.0.1 the tester sends from several loopback addresses, each held to its own limit,
 * so helpdesk's 5 ticket creates a minute per address do not make a run wait minutes; with
 * `none` it sends from one and waits (here the service's clock is moved instead). And a
 * principal whose window runs low has its reads and deletes of everyone's records made by
 * another with the same scopes (TestContext.standIn), so the run waits for no credential's window;
 * never a principal a check made up, nor where an owner, visibility or a parent decides who sees it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { TestContext } from '../../src/conformance/context.ts';
import { QuotaLedger } from '../../src/conformance/quota.ts';
import { parentParams } from '../../src/spec/conventions/paths.ts';
import { mustLoad } from '../support/spec.ts';
import { clientSources } from '../../src/conformance/sources.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';

/** Whether this machine's loopback answers from 127.0.0.2 (Linux does; macOS, for one, does not). */
async function loopbackHasMore(): Promise<boolean> {
  const server = createServer((s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const ok = await new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
  server.close();
  return ok;
}

const MORE = await loopbackHasMore();
const NO_MORE = 'SKIPPED: this machine answers on 127.0.0.1 alone, so a run cannot send from several loopback addresses (Linux CI runs it)';

test('auto: helpdesk on 127.0.0.1: ticket creates come from several addresses, none over its 5 a minute, and the run waits for nothing', { skip: MORE ? false : NO_MORE }, async (t) => {
  const spec = await exampleSpec('helpdesk.yaml');
  const creates = new Map<string, number>();
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) =>
    app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'POST' && request.url.startsWith('/tickets?') && reply.statusCode !== 429) creates.set(request.ip, (creates.get(request.ip) ?? 0) + 1);
    }),
  );
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.deepEqual(report.waited, { count: 0, ms: 0 }, formatHuman(report));
  assert.deepEqual(report.sources, ['127.0.0.2', '127.0.0.3', '127.0.0.4']);
  assert.match(formatHuman(report), /Limits counted per client address were spent from 4 addresses: the default and 127\.0\.0\.2, 127\.0\.0\.3, 127\.0\.0\.4/);
  assert.ok(creates.size > 1, `ticket creates came from ${[...creates.keys()].join(', ')}`);
  // The service's clock never moved (nothing was waited for): every create fell in one window of each address.
  for (const [ip, n] of creates) assert.ok(n <= 5, `${n} ticket creates from ${ip}: the limit is 5 a minute per address`);
});

test('none: one address; the same run waits for ticket.create windows (the service clock moved), and passes', async (t) => {
  const spec = await exampleSpec('helpdesk.yaml');
  const ips = new Set<string>();
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => app.addHook('onRequest', async (request) => void ips.add(request.ip)));
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, clientAddresses: 'none' });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.ok(report.waited.count > 0, 'one address has 5 ticket creates a minute, fewer than the run needs');
  assert.equal(report.sources, undefined);
  assert.deepEqual([...ips], ['127.0.0.1']);
});

test('auto sends from one address where no limit is counted per address, or the service is not on 127.0.0.1', async () => {
  const library = await exampleSpec('library.yaml');
  assert.deepEqual(await clientSources(library, 'http://127.0.0.1:9'), [undefined]);
  const helpdesk = await exampleSpec('helpdesk.yaml');
  assert.deepEqual(await clientSources(helpdesk, 'http://example.com:8080'), [undefined]);
  assert.deepEqual(await clientSources(helpdesk, 'http://127.0.0.1:9', 'none'), [undefined]);
  // Addresses given by name must reach the service: else the run stops at once, naming them.
  await assert.rejects(clientSources(helpdesk, 'http://127.0.0.1:9', ['192.0.2.7']), /the client address 192\.0\.2\.7 cannot reach 127\.0\.0\.1:9/);
  const server = createServer((s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as { port: number }).port;
    assert.deepEqual(await clientSources(helpdesk, `http://127.0.0.1:${port}`, ['127.0.0.1']), ['127.0.0.1']);
  } finally {
    server.close();
  }
  // Nothing listens on port 9: no address reaches it, so the run sends from the default one.
  assert.deepEqual(await clientSources(helpdesk, 'http://127.0.0.1:9'), [undefined]);
});

test('ledger: a limit counted per address is one window per source; a request goes from the source with most left, and waits only when all are spent', async () => {
  const spec = await exampleSpec('helpdesk.yaml');
  let clock = 1_000_000;
  const ledger = new QuotaLedger(spec, () => clock, 3);
  const create = spec.endpoints.find((e) => e.id === 'ticket.create')!;
  assert.equal(ledger.left(create, 'ann'), 15);
  const used: number[] = [];
  for (let i = 0; i < 15; i++) {
    assert.equal(ledger.waitFor(create, 'ann'), 0);
    const source = ledger.source(create, 'ann');
    used.push(source);
    ledger.spent(create, 'ann', 201, {}, source);
  }
  assert.deepEqual([0, 1, 2].map((s) => used.filter((u) => u === s).length), [5, 5, 5]);
  assert.equal(ledger.left(create, 'ann'), 0);
  assert.equal(ledger.waitFor(create, 'ann'), 60_000);
  clock += 60_000;
  assert.equal(ledger.left(create, 'ann'), 15);
  // A limit counted per credential is one window, whatever the sources.
  const read = spec.endpoints.find((e) => e.id === 'ticket.read')!;
  assert.equal(ledger.left(read, 'ann'), 300);
  assert.equal(ledger.source(read, 'ann'), 0);
});

test('auto, with idempotency keys per client address: every request of a key goes from one address, and the idempotency checks pass', { skip: MORE ? false : NO_MORE }, async (t) => {
  const text = readFileSync(new URL('../../examples/helpdesk.yaml', import.meta.url), 'utf8');
  const spec = mustLoad(text.replace(/idempotency: \{header: Idempotency-Key, lifetime: 24h, scope: credential\}/, 'idempotency: {header: Idempotency-Key, lifetime: 24h, scope: address}'));
  assert.equal(spec.limits.idempotency?.scope, 'address');
  const keyed = new Map<string, Set<string>>();
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) =>
    app.addHook('onRequest', async (request) => {
      const key = request.headers['idempotency-key'];
      if (typeof key === 'string') keyed.set(key, (keyed.get(key) ?? new Set()).add(request.ip));
    }),
  );
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['endpoints'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.ok(report.sources?.length, 'the run sent from several addresses');
  for (const id of ['ticket.create.idempotency.replay', 'ticket.create.idempotency.reuse', 'ticket.create.idempotency.scope']) {
    assert.equal(report.results.find((r) => r.id === id)?.outcome, 'pass', `${id}\n${formatHuman(report)}`);
  }
  for (const [key, ips] of keyed) assert.equal(ips.size, 1, `key ${key} came from ${[...ips].join(', ')}`);
});

test('standIn: a principal past half its window has its reads made by another with the same scopes, only where nothing decides who sees the record', async () => {
  const spec = await exampleSpec('helpdesk.yaml');
  const orders = await exampleSpec('orders.yaml');
  const all = spec.authentication.scopes.map((s) => s.name);
  const ann = { name: 'ann', headers: { 'x-key': 'a' }, scopes: all };
  const bob = { name: 'bob', headers: { 'x-key': 'b' }, scopes: all };
  const carl = { name: 'carl', headers: { 'x-key': 'c' }, scopes: [all[0]] };
  const ctx = new TestContext({ spec, baseUrl: 'http://127.0.0.1:9', principals: [ann, bob, carl], seed: 1 });
  const read = spec.endpoints.find((e) => e.id === 'ticket.read')!;
  const spend = (who: string, n: number) => { for (let i = 0; i < n; i++) ctx.quota.spent(read, who, 200, {}); };
  assert.equal(ctx.standIn(read, ann), ann, 'a full window: its own');
  spend('ann', 151);
  assert.equal(ctx.standIn(read, ann), bob, 'past half: the principal with the same scopes and more left');
  assert.equal(ctx.standIn(read, carl), carl, 'no one else has carl\'s scopes');
  const mangled = { name: 'mangled', headers: { 'x-key': 'nope' } };
  spend('mangled', 151);
  assert.equal(ctx.standIn(read, mangled), mangled, 'a principal a check made up is never replaced');
  spend('bob', 200);
  assert.equal(ctx.standIn(read, ann), ann, 'no one has more left');
  // An owned resource (orders' saved addresses), and a path through a parent, keep their principal.
  const oAll = orders.authentication.scopes.map((s) => s.name);
  const oAnn = { name: 'ann', headers: {}, scopes: oAll };
  const oBob = { name: 'bob', headers: {}, scopes: oAll };
  const octx = new TestContext({ spec: orders, baseUrl: 'http://127.0.0.1:9', principals: [oAnn, oBob], seed: 1 });
  const owned = orders.endpoints.find((e) => e.method === 'GET' && orders.resources.find((r) => r.name === e.resource)?.owned && e.operation === 'read')!;
  const nested = orders.endpoints.find((e) => e.method === 'GET' && parentParams(e).length > 0 && !orders.resources.find((r) => r.name === e.resource)?.owned);
  let held = 0;
  for (const e of [owned, nested].filter((x) => x !== undefined)) {
    const policy = octx.quota.policyOf(e);
    assert.ok(policy, `${e.id} has a rate limit`);
    held++;
    for (let i = 0; i <= policy.limit / 2; i++) octx.quota.spent(e, 'ann', 200, {});
    assert.equal(octx.standIn(e, oAnn), oAnn, `${e.id} keeps its principal`);
  }
  assert.equal(held, nested ? 2 : 1);
});
