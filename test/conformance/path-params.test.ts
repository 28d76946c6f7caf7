/**
 * The tester on shaped path parameters: against the reference service every check passes;
 * against a service that lets any value through, each broken constraint is caught.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const SPEC = readFileSync(new URL('../serve/fixtures/notes-days.yaml', import.meta.url), 'utf8');

test('conformance: shaped path parameters are refused when they break their shape, and served when they fit', async (t) => {
  const spec = mustLoad(SPEC);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 3, sleep, now, only: ['endpoints'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const ids = report.results.filter((r) => r.outcome === 'pass').map((r) => r.id);
  for (const id of ['note.byDay.path.day.format-date', 'note.onPage.path.n.minimum', 'note.onPage.path.n.maximum', 'note.onPage.path.n.type-integer', 'note.byDay.path-params', 'note.onPage.path-params',
    // Beside the record's id: on a note the run makes.
    'note.revision.path.rev.minimum', 'note.revision.path.rev.type-integer', 'note.revision.path-params']) {
    assert.ok(ids.includes(id), `${id} passed; passed: ${ids.filter((x) => x.includes('path')).join(', ')}`);
  }
});

test('conformance: a service that takes any path value is caught, naming the parameter', async (t) => {
  const spec = mustLoad(SPEC);
  // A service that serves whatever it is given: every path value is taken for a fitting one.
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => app.addHook('onRequest', async (request) => {
    const params = request.params as Record<string, string>;
    if ('n' in params) params.n = '1';
    if ('day' in params) params.day = '2026-01-01';
  }));
  const report = await runConformance({ spec, baseUrl, principals, seed: 3, sleep, now, only: ['endpoints'] });
  const failed = report.results.filter((r) => r.outcome === 'fail');
  assert.ok(failed.some((r) => r.id === 'note.onPage.path.n.minimum' && /\{n\}: minimum/.test(r.rule?.text ?? '')), formatHuman(report));
  assert.ok(failed.some((r) => r.id === 'note.byDay.path.day.format-date'), formatHuman(report));
});
