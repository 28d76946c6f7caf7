/**
 * `unknownFields: ignore` (and `readOnlyFields: ignore`): OpenAPI's reading of a schema without
 * `additionalProperties: false`, and of readOnly. The reference drops such members and serves
 * the request; the tester holds an implementation to that: a member the spec does not declare
 * is accepted and not kept. Found by a new user's walk: a fake answering as Ory Hydra does
 * (extra members dropped) failed "a field the spec does not declare is refused", a default of
 * svcspec's that the OpenAPI document never stated; the import now writes what it states.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const NOTES = readFileSync(new URL('../serve/fixtures/notes.yaml', import.meta.url), 'utf8');
const IGNORING = NOTES.replace(/(\n  note:\n)/, '$1    unknownFields: ignore\n    readOnlyFields: ignore\n');

test('serve drops a member the spec does not declare (unknownFields: ignore), and the tester passes the reference', async (t) => {
  assert.notEqual(IGNORING, NOTES);
  const spec = mustLoad(IGNORING);
  assert.equal(spec.resources[0]!.unknownFields, 'ignore');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const r = await fetch(`${baseUrl}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', colour: 'red' }) });
  assert.equal(r.status, 201);
  const body = (await r.json()) as Record<string, unknown>;
  assert.equal(body.text, 'hi');
  assert.ok(!('colour' in body), 'dropped, not kept');
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const unknown = report.results.find((x) => x.id === 'note.unknown-field');
  assert.equal(unknown?.outcome, 'pass');
  assert.match(unknown?.title ?? '', /is ignored \(unknownFields: ignore\)/);
});

test('with unknownFields: ignore, an implementation that refuses an undeclared member is caught, and so is one that keeps it', async (t) => {
  const spec = mustLoad(IGNORING);
  // The reference itself, serving the same notes as refusing (the default) and as keeping them.
  for (const [how, served] of [['refuses', NOTES], ['keeps', NOTES.replace(/(\n  note:\n)/, '$1    unknownFields: keep\n')]] as const) {
    const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(served));
    const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['resources'] });
    const unknown = report.results.find((x) => x.id === 'note.unknown-field');
    assert.equal(unknown?.outcome, 'fail', `${how}: ${formatHuman(report)}`);
  }
});

test('with unknownFields: ignore, an implementation that leaves the member out of its answer but keeps it is caught by the read back', async (t) => {
  const spec = mustLoad(IGNORING);
  // The reference keeping undeclared members, its create's answer stripped of them: only the read shows the member was kept.
  const keeping = mustLoad(NOTES.replace(/(\n  note:\n)/, '$1    unknownFields: keep\n'));
  const { baseUrl, principals, sleep, now } = await serveForTester(t, keeping, (app) => {
    app.addHook('onSend', async (request, _reply, payload) => {
      if (request.method !== 'POST' || typeof payload !== 'string' || !payload.includes('svcspecUndeclaredField')) return payload;
      const { svcspecUndeclaredField: _kept, ...answered } = JSON.parse(payload) as Record<string, unknown>;
      return JSON.stringify(answered);
    });
  });
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['resources'] });
  const unknown = report.results.find((x) => x.id === 'note.unknown-field');
  assert.equal(unknown?.outcome, 'fail', formatHuman(report));
  assert.match(unknown?.message ?? '', /read back carries the undeclared member/);
});

test('readOnlyFields: either (JSON Schema\'s "ignored or rejected") takes an implementation that refuses a member the service sets and one that drops it, and catches one that takes it', async (t) => {
  const EITHER = NOTES.replace(/(\n  note:\n)/, '$1    readOnlyFields: either\n');
  const spec = mustLoad(EITHER);
  assert.equal(spec.resources[0]!.readOnlyFields, 'either');
  const served = {
    refuses: NOTES,
    drops: NOTES.replace(/(\n  note:\n)/, '$1    readOnlyFields: ignore\n'),
    // The id the client's: a service that takes the id it is sent.
    takes: NOTES.replace('id: { field: id, assigned: uuid }', 'id: { field: id, assigned: client }').replace('id: { type: string, format: uuid, readOnly: true }', 'id: { type: string, format: uuid }'),
  };
  assert.notEqual(served.takes, NOTES);
  for (const [how, text] of Object.entries(served)) {
    const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(text));
    const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['resources'] });
    const readOnly = report.results.find((x) => x.id === 'note.readOnly');
    assert.match(readOnly?.title ?? '', /is refused, or ignored \(readOnlyFields: either\)/);
    assert.equal(readOnly?.outcome, how === 'takes' ? 'fail' : 'pass', `${how}: ${formatHuman(report)}`);
  }
  // The reference serves `either` as `ignore`: the member dropped, the request served.
  const { baseUrl } = await serveForTester(t, spec);
  const r = await fetch(`${baseUrl}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', id: '00000000-0000-4000-8000-000000000000' }) });
  assert.equal(r.status, 201);
  assert.notEqual(((await r.json()) as { id: string }).id, '00000000-0000-4000-8000-000000000000');
});

test('readOnlyFields: either, where the spec states no code for a refusal: a service refusing every create is not passed for refusing the member', async (t) => {
  // Part 7 a gap: a refusal is held to its class only, so the control request tells a refusal of the member from one of anything.
  const silent = NOTES.replace(/(\n  note:\n)/, '$1    readOnlyFields: either\n').replace(/\nerrors:\n(?: .*\n)+/, '\n');
  const spec = mustLoad(silent);
  assert.equal(spec.parts.errors.statement, 'gap');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(NOTES), (app) =>
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'POST') await reply.code(400).type('application/json').send('{"error":"no"}');
    }),
  );
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['resources'] });
  const readOnly = report.results.find((x) => x.id === 'note.readOnly');
  assert.equal(readOnly?.outcome, 'skip', formatHuman(report));
  assert.match(readOnly?.message ?? '', /refused without id too \(400\)/);
});
