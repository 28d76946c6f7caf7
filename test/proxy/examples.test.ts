/**
 * The proxy in front of the reference service, for every example spec, while the tester
 * drives every endpoint through it (its runner is the scripted client: valid requests,
 * invalid ones, other principals, other versions, page walks, rate limits): the service
 * keeps the spec, so the proxy finds nothing, though it judged thousands of exchanges and
 * saw the tester's deliberately refused requests for what they are.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { findingLine, startProxy } from '../../src/proxy/index.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from '../conformance/support.ts';
import { freePort } from '../support/child-server.ts';

for (const file of ['library.yaml', 'helpdesk.yaml', 'orders.yaml', 'json-server.yaml']) {
  test(`proxy: svcspec serve ${file} driven through the proxy has no findings`, async (t) => {
    const spec = await exampleSpec(file);
    const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
    // The tester's webhook receiver on a port known beforehand, so the proxy relays its deliveries (and judges them) too.
    const callbackPort = await freePort();
    const proxy = await startProxy({ spec, upstream: baseUrl, now, receiver: `http://127.0.0.1:${callbackPort}/` });
    t.after(() => proxy.close());
    const report = await runConformance({ spec, baseUrl: proxy.url, principals, seed: 20261124, sleep, now, events: { callbackPort } });
    t.diagnostic(`${proxy.judge.counts.deliveries} deliveries, ${proxy.judge.counts.exchanges} exchanges, ${proxy.judge.counts.outside} outside the spec, ${report.counts.pass} checks passed`);
    assert.deepEqual(proxy.findings.map(findingLine), []);
    assert.equal(report.counts.fail, 0, 'the tester through the proxy passes as it does directly');
    assert.equal(proxy.judge.counts.exchanges, report.requests, 'every request of the tester went through the proxy and was judged');
    if (spec.events.webhooks?.subscriptions === 'api') assert.ok(proxy.judge.counts.deliveries > 0, 'webhook deliveries came through the proxy and were judged');
    assert.ok(proxy.judge.counts.outside > 10, `the tester's refused requests were seen as outside the spec (${proxy.judge.counts.outside})`);
  });
}
