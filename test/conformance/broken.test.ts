/**
 * The tester against deliberately broken implementations: the reference service with one
 * fault slipped in by a hook. Each fault is caught, and the report names the broken rule.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, type CheckResult } from '../../src/conformance/index.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';
import { SERVICE_FAULTS as FAULTS } from './fakes/service-faults.ts';

for (const fault of FAULTS) {
  test(`conformance catches a service that ${fault.name}`, async (t) => {
    const spec = await exampleSpec('library.yaml');
    const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, fault.tweak);
    const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: [fault.part], events: { timeoutMs: 2000 } });
    const failed = report.results.filter((r: CheckResult) => r.outcome === 'fail');
    assert.ok(failed.length > 0, `nothing failed in ${fault.part}`);
    assert.ok(failed.some((r) => r.rule && fault.rule.test(r.rule.text) && r.rule.location), `no failure names the rule ${fault.rule}: ${failed.map((r) => `${r.title} [${r.rule?.text}]`).join('; ')}`);
    assert.ok(failed.every((r) => r.message), 'every failure says why');
  });
}
