/**
 * The maker of a write's events (src/serve/events/emit.ts) builds their payloads as JSON text
 * from the record's stored text, never parsing it: the text must say what present() says in
 * each version (a version's fields only, the id first and typed), for every payload shape.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { planEmitting } from '../../src/serve/events/emit.ts';
import type { NewEvent } from '../../src/store/events.ts';
import { LazyRecord } from '../../src/store/lazy-record.ts';
import { mustLoad } from '../support/spec.ts';

const HELPDESK = mustLoad(readFileSync(new URL('../../examples/helpdesk.yaml', import.meta.url), 'utf8'));

function made(name: string, record: LazyRecord): NewEvent {
  const def = HELPDESK.events.catalog.find((e) => e.name === name)!;
  const maker = planEmitting(HELPDESK, () => 5)!.maker(def.trigger.resource, def.trigger.action, def.trigger.transition)!;
  return maker(record).find((e) => e.name === name)!;
}

// Stored as the store keeps it: every version's fields (priority is version 1's, severity 2's).
const TICKET = { subject: 'Printer on fire', description: 'Smoke', status: 'open', priority: 2, severity: 'high', channel: 'web', requesterEmail: 'a@example.org', tags: ['x'] };

test('a payload carrying the record is, per version, the record as a read in that version shows it', () => {
  const e = made('ticket.opened', new LazyRecord(7, '7', 1, 'alice', JSON.stringify(TICKET)));
  const { severity: _s, ...v1 } = TICKET;
  const { priority: _p, ...v2 } = TICKET;
  const expected = { '1': { id: 7, ...v1 }, '2': { id: 7, ...v2 } };
  assert.ok(e.payloadsJson !== undefined, 'the maker gives the text the store writes');
  assert.deepEqual(JSON.parse(e.payloadsJson), expected);
  assert.deepEqual(Object.keys(JSON.parse(e.payloadsJson)['2']), Object.keys(expected['2']), 'the id first, then the fields in declared order');
  assert.deepEqual(e.payloads, expected, 'payloads, parsed from the text when asked for');
  assert.deepEqual({ ...e }.payloads, expected, 'an own member: a copy of the event keeps its payloads');
  assert.equal(e.owner, 'alice');
  assert.equal(e.createdAt, 5);
});

test('a payload of listed fields, in the versions the event is in; an owner-less record makes an event without owner', () => {
  const e = made('ticket.started', new LazyRecord(7, '7', 2, null, JSON.stringify(TICKET)));
  assert.deepEqual(JSON.parse(e.payloadsJson!), { '2': { id: 7, subject: 'Printer on fire', severity: 'high' } }, 'since version 2: none in version 1');
  assert.equal('owner' in e, false);
});

test('a stored text holding a member named like the id is presented the general way, the id field as the API types it', () => {
  const e = made('ticket.opened', new LazyRecord(7, '7', 1, null, JSON.stringify({ id: 'stale', ...TICKET })));
  const payloads = JSON.parse(e.payloadsJson!) as Record<string, Record<string, unknown>>;
  assert.equal(payloads['1'].id, 7);
  assert.equal(payloads['2'].id, 7);
});
