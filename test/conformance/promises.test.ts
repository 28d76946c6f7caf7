/**
 * The tester against a service that breaks one protocol promise of its spec (issue #16):
 * the reference service with one fault per family of promise (fakes/promise-faults.ts). Each
 * fault is caught, and a failure names the statement it breaks, with its place in the spec.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, type CheckResult } from '../../src/conformance/index.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { PROMISE_FAULTS } from './fakes/promise-faults.ts';
import { serveForTester } from './support.ts';

for (const fault of PROMISE_FAULTS) {
  test(`conformance catches a service that ${fault.name}`, async (t) => {
    const spec = await exampleSpec('library.yaml');
    const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, fault.tweak);
    const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: [fault.part], events: { timeoutMs: 2000 } });
    const failed = report.results.filter((r: CheckResult) => r.outcome === 'fail');
    assert.ok(failed.length > 0, `nothing failed in ${fault.part}`);
    assert.ok(failed.some((r) => r.rule && fault.rule.test(r.rule.text) && r.rule.location), `no failure names the rule ${fault.rule}: ${failed.map((r) => `${r.title} [${r.rule?.text}]`).join('; ')}`);
    assert.ok(failed.every((r) => r.message), 'every failure says why');
    t.diagnostic(failed.filter((r) => r.rule && fault.rule.test(r.rule.text)).map((r) => `${r.id}: ${r.message}`).join('\n'));
  });
}

test('the tester demands no promise the spec does not state: without limits.conditional and idempotency a service that keeps neither passes', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const silent = { ...spec, limits: { ...spec.limits, conditional: undefined, idempotency: undefined } };
  const { baseUrl, principals, sleep, now } = await serveForTester(t, silent, (app) => {
    app.addHook('onRequest', async (request) => {
      delete request.headers['if-match'];
      delete request.headers['idempotency-key'];
    });
  });
  const report = await runConformance({ spec: silent, baseUrl, principals, seed: 7, sleep, now, only: ['endpoints'] });
  assert.equal(report.results.filter((r) => r.outcome === 'fail').length, 0, report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.title}: ${r.message}`).join('\n'));
  for (const id of ['conditional', 'idempotency']) assert.equal(report.results.find((r) => r.id === id)?.outcome, 'skip', `${id} is skipped as unstated`);
});
