/**
 * The tester provokes every bound domain rule (issue #14) against `svcspec serve` on the
 * library example: uniqueness, record rules, managed fields, guards with counts and related
 * records, effects on related records, delete behaviours. Every new check is present by id
 * and passes; nothing fails. Then against a hand-written clinic (fakes/clinic-service.ts)
 * that enforces the same kinds of rules (issue #16: no false failures on a faithful
 * implementation), and against that clinic broken in one rule family at a time, each
 * caught by the check that names the rule.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { runConformance, type CheckResult } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import type { PartName } from '../../src/spec/parts.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { mustLoad } from '../support/spec.ts';
import { CLINIC_SPEC, startClinicService, type ClinicFaults } from './fakes/clinic-service.ts';
import { serveForTester } from './support.ts';

const LIBRARY_RULES = [
  'member.unique.email',
  'member.unique.email.ignore-case',
  'member.unique.email.update',
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

const KEYS = { 'key-ann': 'ann', 'key-bob': 'bob' };
const PRINCIPALS = [
  { name: 'ann', id: 'ann', headers: { 'x-api-key': 'key-ann' } },
  { name: 'bob', id: 'bob', headers: { 'x-api-key': 'key-bob' } },
];

async function runClinic(t: TestContext, faults?: ClinicFaults, only?: PartName[]) {
  const fake = await startClinicService({ keys: KEYS, ...(faults ? { faults } : {}) });
  t.after(fake.close);
  return runConformance({ spec: mustLoad(CLINIC_SPEC), baseUrl: fake.baseUrl, principals: PRINCIPALS, seed: 20261124, ...(only ? { only } : {}) });
}

const CLINIC_RULES = [
  'patient.unique.email',
  'patient.unique.email.ignore-case',
  'patient.unique.email.update',
  'appointment.unique.patient+slot',
  'appointment.unique.patient+slot.outside-where',
  'slot.rule.1',
  'patient.chartNumber.managed',
  'patient.createdAt.managed',
  'patient.updatedAt.managed',
  'patient.createdBy.managed',
  'patient.createdAt.managed-on-update',
  'patient.updatedAt.managed-on-update',
  'slot.free.managed',
  'appointment.create.guard.patient-blocked',
  'appointment.create.guard.visit-limit-reached',
  'appointment.create.guard.slot-full',
  'appointment.confirm.guard.slot-full',
  'appointment.confirm.effect.slot.free',
  'appointment.confirm.effect.self.confirmedAt',
  'appointment.patient.on-delete',
  'appointment.slot.on-delete',
];

test('conformance: a faithful implementation that enforces uniqueness and guards on referenced records passes with 0 failures', async (t) => {
  const report = await runClinic(t);
  t.diagnostic(`${report.counts.pass} passed, ${report.counts.skip} skipped, ${report.requests} requests`);
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const byId = new Map(report.results.map((r: CheckResult) => [r.id, r]));
  for (const id of CLINIC_RULES) assert.equal(byId.get(id)?.outcome, 'pass', `${id}: ${byId.get(id)?.outcome ?? 'absent'} ${byId.get(id)?.message ?? ''}`);
});

/** Each fault: the check that names it, and every check that fails with it (no other is blamed). */
const FAULTS: { name: string; faults: ClinicFaults; id: string; rule: RegExp; message: RegExp; failed: string[] }[] = [
  { name: 'lets two patients share an email', faults: { noUnique: true }, id: 'patient.unique.email', rule: /^unique email \(ignoreCase\) → email-taken$/, message: /a second patient with email "[^"]+" was accepted \(201\)/, failed: ['patient.unique.email', 'patient.unique.email.ignore-case', 'patient.unique.email.update'] },
  { name: 'confirms an appointment in a full slot', faults: { confirmUnguarded: true }, id: 'appointment.confirm.guard.slot-full', rule: /^guard refs\.slot\.free > 0 → slot-full$/, message: /expected 409 \(slot-full\), got 200/, failed: ['appointment.confirm.guard.slot-full'] },
  { name: 'does not take a seat on confirm', faults: { noConfirmEffect: true }, id: 'appointment.confirm.effect.slot.free', rule: /^effect on slot \(slot\): increment free by -1$/, message: /free reads 1; it was 1 before the write, and the effect takes 1 off \(0 expected\)/, failed: ['appointment.confirm.effect.slot.free'] },
  { name: 'deletes a patient that appointments refer to', faults: { deleteIgnoresRefuse: true }, id: 'appointment.patient.on-delete', rule: /^patient: onDelete refuse → patient-has-appointments$/, message: /expected 409 \(patient-has-appointments\), got 204/, failed: ['appointment.patient.on-delete'] },
  { name: 'leaves out the managed time stamps', faults: { noTimestamps: true }, id: 'patient.createdAt.managed', rule: /^createdAt: managed created-at$/, message: /createdAt is undefined; the service sets it to the time of the create/, failed: ['patient.createdAt.managed', 'patient.updatedAt.managed', 'patient.updatedAt.managed-on-update'] },
];

for (const fault of FAULTS) {
  test(`conformance: the tester catches a clinic that ${fault.name}`, async (t) => {
    const report = await runClinic(t, fault.faults, ['resources', 'states']);
    const r = report.results.find((x) => x.id === fault.id);
    assert.equal(r?.outcome, 'fail', `${fault.id} did not fail:\n${formatHuman(report)}`);
    assert.match(r?.message ?? '', fault.message);
    assert.match(r?.rule?.text ?? '', fault.rule);
    assert.ok(r?.rule?.location, 'the rule has its place in the spec');
    assert.ok(r?.exchange, 'the failure shows the exchange');
    assert.deepEqual(report.results.filter((x) => x.outcome === 'fail').map((x) => x.id).sort(), [...fault.failed].sort(), 'no other check is blamed');
  });
}

test('conformance: every delete behaviour (refuse, cascade, nullify), an action\'s guard and effect, and a create\'s effects are checked against svcspec serve', async (t) => {
  const spec = mustLoad(`svcspec: 1
purpose: {name: Notes, summary: Keeps notes by authors., users: [{name: writer, tasks: [write a note]}]}
resources:
  author:
    plural: authors
    fields:
      name: {type: string, required: true, minLength: 1, maxLength: 40}
      reviews: {type: integer, readOnly: true, managed: {expr: '0', on: create}}
    onDelete:
      guards:
        - {rule: self.name.size() <= 40, error: author-protected}
  note:
    plural: notes
    fields:
      text: {type: string, required: true, minLength: 1, maxLength: 40}
      author: {type: ref, resource: author, nullable: true, onDelete: nullify}
      likes: {type: integer, readOnly: true, managed: {expr: '0', on: create}}
  draft:
    plural: drafts
    fields:
      text: {type: string, required: true, minLength: 1, maxLength: 40}
      author: {type: ref, resource: author, required: true, onDelete: cascade}
  review:
    plural: reviews
    fields:
      text: {type: string, required: true, minLength: 1, maxLength: 40}
      author: {type: ref, resource: author, required: true, onDelete: {refuse: author-has-reviews}}
      reviewedAt: {type: string, format: date-time, readOnly: true}
    onCreate:
      effects:
        - {ref: author, increment: {reviews: 1}}
        - set: {reviewedAt: now}
endpoints:
  author: [create, read, delete]
  note:
    create: {}
    read: {}
    like:
      operation: action
      path: /notes/{id}/like
      request: none
      summary: Like a note, twice at most.
      guards:
        - {rule: self.likes < 2, error: too-many-likes}
      effects:
        - increment: {likes: 1}
      errors: [too-many-likes]
  draft: [create, read]
  review: [create, read]
authentication: {none: A test fixture.}
events: {none: A test fixture.}
errors:
  shape: problem
  catalog:
    author-has-reviews: {status: 409, title: Author has reviews}
    too-many-likes: {status: 409, title: Too many likes}
    author-protected: {status: 409, title: Author protected}
limits: {none: A test fixture.}
versioning: {none: A test fixture.}
`);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 5, sleep, now, only: ['resources', 'endpoints'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  for (const id of ['note.author.on-delete', 'draft.author.on-delete', 'review.author.on-delete', 'note.like.guard.too-many-likes', 'note.like.effect.self.likes', 'review.create.effect.author.reviews', 'review.create.effect.self.reviewedAt']) {
    const r = report.results.find((x) => x.id === id);
    assert.equal(r?.outcome, 'pass', `${id}: ${r?.outcome ?? 'absent'} ${r?.message ?? ''}`);
  }
  assert.match(report.results.find((x) => x.id === 'note.author.on-delete')?.title ?? '', /sets the note's author to null/);
  // A guard no record the tester can make breaks is not checked, and says why: never a pass, never a failure.
  const unreachable = report.results.find((x) => x.id === 'author.delete.guard.author-protected');
  assert.equal(unreachable?.outcome, 'skip');
  assert.match(unreachable?.message ?? '', /^not checked: the tester found no records that make `self\.name\.size\(\) <= 40` false/);
});
