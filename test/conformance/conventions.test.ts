/**
 * Conventions a service svcspec did not design may state (issue #13, item 8), held by the
 * tester as the spec states them: an undeclared method answered as not found (no 405, no
 * Allow), an error body of one member, no rate limit and no time-out as statements.
 * The reference service serves such a spec and the tester finds nothing to fault.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const NOTES = readFileSync(new URL('../serve/fixtures/notes.yaml', import.meta.url), 'utf8');

/** notes.yaml, as a service that sends no 405 and answers every error as `{"error": title}`. */
export const FOREIGN_NOTES = NOTES.replace(/errors:\n  shape: problem\n  catalog:\n/, 'errors:\n  shape: { mediaType: application/json, members: { title: error } }\n  catalog:\n')
  .replace('    not-found: { status: 404, title: Not found }\n', '    not-found: { status: 404, title: Not Found, for: [not-found, method-not-allowed] }\n')
  .replace('    method-not-allowed: { status: 405, title: Method not allowed }\n', '')
  .replace('  rate: { limit: 1000000, window: 1s, scope: address }\n', '  rate: { none: "Requests are not limited." }\n')
  .replace('  timeouts: { request: 10s, status: 503 }\n', '  timeouts: { none: "Requests run to completion." }\n');

test('conformance: undeclared methods answered 404 and one-member error bodies, as stated, pass against svcspec serve', async (t) => {
  assert.notEqual(FOREIGN_NOTES, NOTES);
  const spec = mustLoad(FOREIGN_NOTES);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const methods = report.results.filter((r) => r.part === 'endpoints' && r.id.startsWith('405 '));
  assert.ok(methods.length >= 4, 'undeclared methods were tried');
  assert.ok(methods.every((r) => r.outcome === 'pass' && /404 \(not-found\), as the spec answers an undeclared method/.test(r.title)), methods.map((r) => r.title).join('\n'));
  assert.ok(report.results.some((r) => r.part === 'resources' && r.outcome === 'pass'));
  const rate = report.results.find((r) => r.id === 'rate-limit');
  assert.match(rate?.message ?? '', /states there is no rate limit \(Requests are not limited\.\)/);
});

test('conformance: a service that sends 405 where the spec says an undeclared method is not found is caught', async (t) => {
  const spec = mustLoad(FOREIGN_NOTES);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(NOTES));
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['endpoints'] });
  const methods = report.results.filter((r) => r.id.startsWith('405 '));
  assert.ok(methods.length >= 4, formatHuman(report));
  for (const r of methods) {
    assert.equal(r.outcome, 'fail', r.title);
    assert.match(r.message ?? '', /expected 404 \(not-found, the method-not-allowed situation\), got 405/);
  }
});
