/**
 * The tester provokes every bound domain rule (issue #14) against `svcspec serve` on the
 * library example: uniqueness, record rules, managed fields, guards with counts and related
 * records, effects on related records, delete behaviours. Every new check is present by id
 * and passes; nothing fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, type CheckResult } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';

const LIBRARY_RULES = [
  'member.unique.email',
  'member.unique.email.ignore-case',
  'book.rule.1',
  'book.available.managed',
  'book.createdAt.managed',
  'book.updatedAt.managed',
  'book.createdAt.managed-on-update',
  'book.updatedAt.managed-on-update',
  'member.cardNumber.managed',
  'member.createdAt.managed',
  'loan.renewals.managed',
  'loan.requestedAt.managed',
  'loan.create.guard.member-suspended',
  'loan.create.guard.loan-limit-reached',
  'loan.create.guard.book-unavailable',
  'loan.book.on-delete',
  'member.close.guard.member-has-open-loans',
  'loan.approve.guard.book-unavailable',
  'loan.renew.guard.renewal-limit-reached',
  'loan.approve.effect.book.available',
  'loan.renew.effect.self.renewals',
  'loan.return.effect.self.returnedAt',
  'loan.return.effect.book.available',
  'loan.declareLost.effect.book.copies',
];

test('conformance: svcspec serve library.yaml passes every domain rule check, each provoked', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals: principals.map((p) => ({ ...p, id: p.name })), seed: 20261124, sleep, now, only: ['resources', 'states'] });
  t.diagnostic(`${report.counts.pass} passed, ${report.counts.skip} skipped, ${report.requests} requests, ${report.ms} ms`);
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const byId = new Map(report.results.map((r: CheckResult) => [r.id, r]));
  for (const id of LIBRARY_RULES) assert.equal(byId.get(id)?.outcome, 'pass', `${id}: ${byId.get(id)?.outcome ?? 'absent'} ${byId.get(id)?.message ?? ''}`);
});
