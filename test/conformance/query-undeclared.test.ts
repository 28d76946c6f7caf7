/**
 * `query.undeclared`: a query parameter a list does not declare is refused (the default),
 * ignored, or either, as the service chooses. An OpenAPI document lists the parameters an
 * operation takes and says nothing of others, and most services ignore them; import writes
 * `either`, so an implementation of an imported API that ignores them no longer fails
 * "a filter the query does not declare is refused", a default of svcspec's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const NOTES = readFileSync(new URL('../serve/fixtures/notes.yaml', import.meta.url), 'utf8');
const withQuery = (undeclared?: string) =>
  NOTES.replace('note: [create, read, update, delete, list]', `note: {create: {}, read: {}, update: {}, delete: {}, list: {query: {filters: {n: [eq]}${undeclared ? `, undeclared: ${undeclared}` : ''}}}}`);

test('serve: a list with undeclared: ignore (or either) serves the page without a parameter it does not declare; refuse refuses it', async (t) => {
  assert.notEqual(withQuery(), NOTES);
  for (const [undeclared, status] of [[undefined, 422], ['ignore', 200], ['either', 200]] as const) {
    const spec = mustLoad(withQuery(undeclared));
    assert.equal(spec.endpoints.find((e) => e.operation === 'list')?.query?.undeclared, undeclared ?? 'refuse');
    const { baseUrl } = await serveForTester(t, spec);
    const r = await fetch(`${baseUrl}/notes?colour=red`);
    assert.equal(r.status, status, `${undeclared}: ${await r.text()}`);
    // Given twice, an undeclared parameter is ignored all the same; a declared one given twice is refused.
    assert.equal((await fetch(`${baseUrl}/notes?tag=a&tag=b`)).status, status, String(undeclared));
    assert.equal((await fetch(`${baseUrl}/notes?n=1&n=2`)).status, 422, String(undeclared));
    // A declared filter is still read, and a bad value of it still refused.
    assert.equal((await fetch(`${baseUrl}/notes?n=x`)).status, 422, String(undeclared));
  }
});

test('conformance: undeclared: either takes a list that refuses an undeclared parameter and one that ignores it; ignore catches one that refuses', async (t) => {
  const either = mustLoad(withQuery('either'));
  for (const served of [withQuery(), withQuery('ignore')]) {
    const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(served));
    const report = await runConformance({ spec: either, baseUrl, principals, seed: 7, sleep, now, only: ['endpoints'] });
    const check = report.results.find((x) => x.id === 'note.list.filter.undeclared');
    assert.equal(check?.outcome, 'pass', formatHuman(report));
    assert.match(check?.title ?? '', /is refused, or ignored \(undeclared: either\)/);
  }
  const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(withQuery()));
  const report = await runConformance({ spec: mustLoad(withQuery('ignore')), baseUrl, principals, seed: 7, sleep, now, only: ['endpoints'] });
  const check = report.results.find((x) => x.id === 'note.list.filter.undeclared');
  assert.equal(check?.outcome, 'fail', formatHuman(report));
});
