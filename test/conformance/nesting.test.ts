/**
 * The tester on nested paths and singletons (issue #13): the reference service passes every
 * check of the clinic fixture, and implementations that get nesting wrong are caught — one
 * whose nested list ignores the parent and serves a child through any parent.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { loadSpec } from '../../src/load/index.ts';
import type { Spec } from '../../src/spec/model.ts';
import { serveForTester } from './support.ts';

async function clinic(): Promise<Spec> {
  const r = await loadSpec(fileURLToPath(new URL('../serve/fixtures/clinic.yaml', import.meta.url)));
  assert.ok(r.value);
  return r.value;
}

test('conformance: the reference service passes every check of nested paths and singletons', async (t) => {
  const spec = await clinic();
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 13, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const passed = (id: string) => report.results.some((r) => r.id === id && r.outcome === 'pass');
  for (const id of [
    'appointment.patientAppointments.nested', 'appointment.bookForPatient.nested', 'appointment.patientAppointment.nested',
    'appointment.changePatientAppointment.nested', 'appointment.cancelPatientAppointment.nested', 'appointment.cancelForPatient.nested',
    'entry.journalEntries.nested', 'entry.addToJournal.nested', 'profile.mine.singleton', 'entry.ownership', 'profile.ownership',
  ]) assert.ok(passed(id), `${id} passed:\n${formatHuman(report)}`);
});

test('conformance: a nested list that ignores its parent and a child served through any parent are caught', async (t) => {
  const spec = await clinic();
  const { baseUrl, principals } = await serveForTester(t, spec, (app) => {
    // A broken implementation: answers nested reads from the flat paths, so the parent is never looked at.
    app.addHook('onRequest', async (request, reply) => {
      const m = /^\/patients\/[^/]+\/appointments(\/[^?]*)?(\?.*)?$/.exec(request.url);
      if (!m || request.method !== 'GET') return;
      const flat = await app.inject({ method: 'GET', url: `/appointments${m[1] ?? ''}${m[2] ?? ''}`, headers: request.headers as Record<string, string> });
      return reply.code(flat.statusCode).type(String(flat.headers['content-type'])).send(flat.body);
    });
  });
  const report = await runConformance({ spec, baseUrl, principals, seed: 13, include: [] });
  const failed = (id: string) => report.results.find((r) => r.id === id && r.outcome === 'fail');
  assert.ok(failed('appointment.patientAppointments.nested'), formatHuman(report));
  assert.match(failed('appointment.patientAppointments.nested')?.message ?? '', /holds a appointment whose 'patient' is|of another patient is in the list/);
  assert.ok(failed('appointment.patientAppointment.nested'), 'a child through another parent is caught');
});

test('conformance: a /me that answers everyone with the first principal\'s record is caught', async (t) => {
  const spec = await clinic();
  let first: Record<string, string> = {};
  const { baseUrl, principals } = await serveForTester(t, spec, (app) => {
    // A broken implementation: /me is "the profile", whoever asks.
    app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET' || request.url !== '/me' || request.headers['x-broken'] === '1') return;
      const shared = await app.inject({ method: 'GET', url: '/me', headers: { ...first, 'x-broken': '1' } });
      return reply.code(shared.statusCode).type(String(shared.headers['content-type'])).send(shared.body);
    });
  });
  first = { ...principals[0].headers };
  const report = await runConformance({ spec, baseUrl, principals, seed: 13 });
  const failed = report.results.find((r) => r.id === 'profile.mine.singleton' && r.outcome === 'fail');
  assert.ok(failed, formatHuman(report));
  assert.match(failed.message ?? '', /bob got ann's profile at \/me/);
});
