/**
 * What generated data respects (src/conformance/rules-data.ts), judged on the library and
 * clinic specs without a service: the record a create would store, the rule it breaks,
 * values under a uniqueness (in any case, inside or outside its `where`), which refs need a
 * record of their own, and whether a referenced record lets the guards that read it hold.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainRules } from '../../src/conformance/rules-data.ts';
import type { Resource } from '../../src/spec/model.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { mustLoad } from '../support/spec.ts';
import { CLINIC_SPEC } from './fakes/clinic-service.ts';

const NOW = Date.parse('2026-11-24T01:00:00Z');

test('rules data: the record a create would store has its defaults, initial state and managed values; a broken record rule is named', async () => {
  const spec = await exampleSpec('library.yaml');
  const rules = new DomainRules(spec);
  const book = spec.resources.find((r) => r.name === 'book') as Resource;
  const record = rules.predictCreate(book, { title: 'T', authors: ['A'], copies: 3 }, NOW);
  assert.equal(record.available, 3, 'managed: self.copies on create');
  assert.equal(record.language, 'en', 'the default');
  assert.equal(record.createdAt, '2026-11-24T01:00:00.000Z');
  assert.equal(rules.brokenRule(book, record, NOW), undefined);
  assert.equal(rules.brokenRule(book, { ...record, copies: 2 }, NOW), book.rules[0]);
  const member = spec.resources.find((r) => r.name === 'member') as Resource;
  const m = rules.predictCreate(member, { name: 'N', email: 'a@example.org', pin: '1234' }, NOW);
  assert.equal(m.status, 'pending', 'the initial state');
  assert.match(String(m.cardNumber), /^LIB-\d{8}$/);
});

test('rules data: values under a uniqueness are not reused, in any case; a partial uniqueness counts only records inside its where', async () => {
  const library = await exampleSpec('library.yaml');
  const rules = new DomainRules(library);
  const member = library.resources.find((r) => r.name === 'member') as Resource;
  assert.ok(rules.unused(member, { email: 'Ann@example.org' }));
  rules.use(member, { email: 'Ann@example.org' });
  assert.equal(rules.unused(member, { email: 'ann@EXAMPLE.org' }), false, 'ignoreCase');
  assert.ok(rules.unused(member, { email: 'bob@example.org' }));
  const clinic = mustLoad(CLINIC_SPEC);
  const appointment = clinic.resources.find((r) => r.name === 'appointment') as Resource;
  const u = appointment.unique[0];
  assert.equal(new DomainRules(clinic).uniqueKey(u, { patient: 1, slot: 2, status: 'booked' }), '[1,2]');
  assert.equal(new DomainRules(clinic).uniqueKey(u, { patient: 1, slot: 2, status: 'cancelled' }), undefined, 'outside the where');
});

test('rules data: refs a guard, count or uniqueness reads get records of their own, for which the guards hold', async () => {
  const spec = await exampleSpec('library.yaml');
  const rules = new DomainRules(spec);
  const byName = (n: string) => spec.resources.find((r) => r.name === n) as Resource;
  assert.ok(rules.freshRef(byName('loan'), 'book'));
  assert.ok(rules.freshRef(byName('loan'), 'member'));
  assert.equal(rules.freshRef(byName('readingList'), 'books'), false);
  const member = (maxLoans: number, status = 'pending') => ({ ...rules.predictCreate(byName('member'), { name: 'N', email: 'e@example.org', pin: '1234', maxLoans }, NOW), status });
  assert.equal(rules.friendlyTarget(byName('loan'), 'member', member(0), byName('member'), NOW), false, 'no room for a loan');
  assert.ok(rules.friendlyTarget(byName('loan'), 'member', member(1), byName('member'), NOW));
  assert.equal(rules.friendlyTarget(byName('loan'), 'member', member(1), byName('member'), NOW, 1), false, 'no room for a second');
  assert.equal(rules.friendlyTarget(byName('loan'), 'member', member(5, 'suspended'), byName('member'), NOW), false, 'member-suspended');
  const book = (copies: number) => rules.predictCreate(byName('book'), { title: 'T', authors: ['A'], copies }, NOW);
  assert.equal(rules.friendlyTarget(byName('loan'), 'book', book(0), byName('book'), NOW), false, 'book-unavailable');
  assert.ok(rules.friendlyTarget(byName('loan'), 'book', book(1), byName('book'), NOW));
});
