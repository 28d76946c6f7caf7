/**
 * The tester holds a write to what its endpoint takes: an update or a replace whose request
 * lists some fields (an imported `PUT` that takes a few of them) changes the record through
 * those fields only; an action on a missing record whose path also has parameters of a shape
 * of their own is sent fitting values for them, so that the record alone is what is missing;
 * a create is answered with what was sent less the writeOnly members, nested ones included.
 * Against the reference service every one of these checks passes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

/** Part 7 of the fixtures: the errors the HTTP layer answers (and 501 for prose actions). */
const ERRORS = `errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
    malformed-body: { status: 400, title: Malformed body }
    not-found: { status: 404, title: Not found }
    method-not-allowed: { status: 405, title: Method not allowed }
    not-implemented: { status: 501, title: Not implemented }
    payload-too-large: { status: 413, title: Too large }
    unsupported-media-type: { status: 415, title: Unsupported media type }
    internal: { status: 500, title: Internal error }
`;

const SPEC = `svcspec: 1
purpose: { name: Notes, summary: Keeps short notes., users: [{ name: writer, tasks: [write a note] }] }
resources:
  note:
    plural: notes
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      tags: { type: array, items: { type: string } }
      text: { type: string, required: true, minLength: 1, maxLength: 500 }
      title: { type: string, maxLength: 80 }
      signers:
        type: array
        minItems: 1
        items:
          type: object
          properties:
            email: { type: string, required: true }
            password: { type: string, required: true, writeOnly: true }
  page:
    plural: pages
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      body: { type: string, required: true }
      heading: { type: string }
states: { none: "Notes have no life cycle." }
endpoints:
  note:
    create: {}
    read: {}
    update: { method: PUT, request: [title] }
    mark:
      operation: action
      path: /notes/{id}/lines/{line}
      params: { line: { type: integer, minimum: 1 } }
      behaviour: Marks a line of the note.
  page:
    create: {}
    read: {}
    replace: { request: [heading] }
authentication: { none: "Anyone on the machine may write notes (a test fixture)." }
events: { none: "Notes emit no events." }
${ERRORS}`;

test('conformance: an update or replace that lists its request fields is sent those only; an action on a missing record gets fitting values for its shaped parameters; nested writeOnly members are not expected back', async (t) => {
  const spec = mustLoad(SPEC);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 11, sleep, now, only: ['resources', 'endpoints'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const passed = new Set(report.results.filter((r) => r.outcome === 'pass').map((r) => r.id));
  for (const id of ['note.create', 'note.update', 'page.replace', 'note.mark.missing-record']) assert.ok(passed.has(id), `${id} passed: ${formatHuman(report)}`);
});

const NESTED_ONLY = `svcspec: 1
purpose: { name: Shop, summary: Orders of customers., users: [{ name: clerk, tasks: [take an order] }] }
resources:
  customer:
    plural: customers
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      name: { type: string, required: true }
  order:
    plural: orders
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      customer: { type: ref, resource: customer }
      note: { type: string, maxLength: 40 }
states: { none: "Orders have no life cycle." }
endpoints:
  customer: [create, read]
  order:
    create: {}
    read: {}
    ofCustomer: { operation: list, path: "/customers/{customerId}/orders" }
    change: { operation: update, path: "/customers/{customerId}/orders/{id}" }
    cancel: { operation: delete, path: "/customers/{customerId}/orders/{id}" }
authentication: { none: "A test fixture." }
events: { none: "No events." }
${ERRORS}`;

test('conformance: an update and a delete reached only through the parent are sent to the record\'s own parent', async (t) => {
  const spec = mustLoad(NESTED_ONLY);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 13, sleep, now, only: ['resources'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const passed = new Set(report.results.filter((r) => r.outcome === 'pass').map((r) => r.id));
  for (const id of ['order.update', 'order.delete']) assert.ok(passed.has(id), `${id} passed: ${formatHuman(report)}`);
});
