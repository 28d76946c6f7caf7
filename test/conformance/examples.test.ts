/**
 * The tester against the reference service, for every example spec: every check passes,
 * no false failures; and the founding document gets "nothing to check".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

for (const file of ['library.yaml', 'helpdesk.yaml', 'orders.yaml']) {
  test(`conformance: svcspec serve ${file} passes every check`, async (t) => {
    const spec = await exampleSpec(file);
    const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
    let waits = 0;
    let exchanges = 0;
    const report = await runConformance({ spec, baseUrl, principals, seed: 20261121, sleep, now, onWait: () => waits++, onExchange: () => exchanges++ });
    t.diagnostic(`${report.counts.pass} passed, ${report.counts.skip} skipped, ${waits} rate-limit waits, ${report.ms} ms`);
    assert.equal(report.counts.fail, 0, formatHuman(report));
    assert.ok(report.counts.pass > 100, `only ${report.counts.pass} checks passed`);
    // Everything was checked but what needs an option the run was not given: a longer event time-out for the first retry, the operator's subscription.
    const unchecked = report.results.filter((r) => r.outcome === 'skip' && r.skipKind === 'not-checked');
    assert.ok(unchecked.every((r) => ['webhooks.retry', 'webhooks'].includes(r.id) && r.needs), unchecked.map((r) => `${r.id}: ${r.message}`).join('\n'));
    assert.ok(report.results.every((r) => r.outcome !== 'skip' || r.skipKind), 'every skip says whether it was not checked, not applicable or not asked');
    // The report counts what the run sent and waited, as it happened.
    assert.equal(report.requests, exchanges);
    assert.ok(report.requests > report.counts.pass, `${report.requests} requests for ${report.counts.pass} checks`);
    assert.equal(report.waited.count, waits);
    assert.match(formatHuman(report), new RegExp(`\\(${report.requests.toLocaleString('en')} requests${waits ? `; [\\d.]+ s of it waiting out ${waits} rate limits?` : ''}\\)`));
    for (const part of ['resources', 'states', 'endpoints', 'authentication', 'events', 'errors', 'limits', 'versioning'] as const) {
      assert.ok(report.results.some((r) => r.part === part && r.outcome === 'pass'), `no check of ${part} passed`);
    }
    assert.ok(report.results.some((r) => r.id.endsWith('.ownership') && r.outcome === 'pass'), 'ownership was checked');
    assert.ok(report.results.some((r) => r.id.endsWith('.missing-scope') && r.outcome === 'pass'), 'a missing scope was checked');
    assert.ok(report.results.some((r) => r.id.startsWith('stream.version-') && r.outcome === 'pass'), 'events were checked in another live version');
    // Issue #16: the protocol promises each example states (limits.conditional, idempotency, links, rate headers), and no internals in any error.
    for (const id of [/\.etag\.stable$/, /\.conditional\.write$/, /\.conditional\.stale-write$/, /\.conditional\.read$/, /\.idempotency\.replay$/, /\.idempotency\.reuse$/, /\.idempotency\.scope$/, /\.conditional\.stale-delete$/, /^rate-fields\./, /\.page-links$/, /\.deprecation-fields$/, /^no-internals$/]) {
      assert.ok(report.results.some((r) => id.test(r.id) && r.outcome === 'pass'), `a check ${id} passed`);
    }
    if (file === 'library.yaml') {
      // The open surface of the example: a prose action (501), bulk writes, expandable loans.
      for (const id of ['loan.remind.answers', 'loan.remind.invalid-body', 'loan.remind.missing-record', 'book.import.all', 'book.import.atomic', 'book.import.max', 'book.import.events', 'book.bulkUpdate.all', 'book.bulkUpdate.atomic', 'book.bulkUpdate.max', 'book.bulkDelete.all', 'book.bulkDelete.atomic', 'book.bulkDelete.max', 'loan.read.expand', 'loan.list.expand', 'loan.read.expand-undeclared']) {
        assert.equal(report.results.find((r) => r.id === id)?.outcome, 'pass', `${id} passed`);
      }
      // Issue #16: constraints inside nested objects and array items, each broken alone, on create and update.
      for (const id of ['member.create.address.postalCode.pattern', 'member.update.address.postalCode.pattern', 'member.create.address.street.required', 'book.create.subjects.uniqueItems', 'book.create.authors.0.minLength', 'book.update.authors.0.maxLength']) {
        assert.equal(report.results.find((r) => r.id === id)?.outcome, 'pass', `${id} passed`);
      }
      // Issue #13: a member's loans nested under the member, and the signed-in member's own preferences at /me.
      for (const id of ['loan.memberLoans.nested', 'loan.requestForMember.nested', 'loan.memberLoan.nested', 'preferences.mine.singleton']) {
        assert.ok(report.results.some((r) => r.id === id && r.outcome === 'pass'), `${id} passed`);
      }
    }
  });
}

test('conformance: a spec whose resources and endpoints are gaps has nothing to check', async () => {
  const spec = mustLoad('svcspec: 1\npurpose: {name: X, summary: X., users: [{name: a, tasks: [b]}]}\n');
  const report = await runConformance({ spec, baseUrl: 'http://127.0.0.1:9', principals: [], seed: 1 });
  assert.match(report.nothingToCheck ?? '', /nothing to check/);
  assert.equal(report.results.length, 0);
});
