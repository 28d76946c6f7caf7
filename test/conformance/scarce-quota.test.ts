/**
 * A scarce create quota (helpdesk.yaml: 5 tickets a minute per address): the refusals only a
 * create shows share creates, each breach counted shown only where the refusal lists its
 * pointer (src/conformance/parts/create-refusals.ts). The verdicts are those of one create a
 * breach: a service that lists only its first violation passes at the cost of more creates,
 * and one that lets a nested constraint through on create is caught.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runConformance, type Exchange } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';

/** Rewrites the 422 answers of ticket creates. */
function onRefusedCreate(app: FastifyInstance, change: (body: { errors: { pointer: string }[] }) => { status: number; body: unknown }): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'POST' || !request.url.startsWith('/tickets?') || reply.statusCode !== 422 || typeof payload !== 'string') return payload;
    const out = change(JSON.parse(payload));
    reply.code(out.status);
    if (out.status < 300) reply.header('content-type', 'application/json');
    return JSON.stringify(out.body);
  });
}

async function resourcesRun(t: TestContext, tweak?: (app: FastifyInstance) => void) {
  const spec = await exampleSpec('helpdesk.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, tweak);
  const exchanges: Exchange[] = [];
  const report = await runConformance({ spec, baseUrl, principals, seed: 20261124, sleep, now, only: ['resources'], onExchange: (e) => exchanges.push(e) });
  const refusedCreates = exchanges.filter((e) => e.request.method === 'POST' && new URL(e.request.url).pathname === '/tickets' && e.response.status === 422).length;
  return { report, refusedCreates };
}

const deepCreateChecks = (ids: readonly string[]) => ids.filter((id) => id.startsWith('ticket.create.'));

test('scarce create: the refusals only a create shows share two creates, and every one passes', async (t) => {
  const { report, refusedCreates } = await resourcesRun(t);
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const shown = report.results.filter((r) => r.outcome === 'pass').map((r) => r.id);
  assert.ok(deepCreateChecks(shown).length >= 10, `the nested create checks ran: ${deepCreateChecks(shown).join(', ')}`);
  for (const id of ['ticket.subject.required', 'ticket.description.required', 'ticket.requesterEmail.required', 'ticket.unknown-field', 'ticket.readOnly']) assert.ok(shown.includes(id), `${id} passed`);
  // Two breaches sit at /tags/0 (its type, its pattern): two creates, no fewer, carry them all.
  assert.equal(refusedCreates, 2);
});

test('scarce create: a service that lists only its first violation passes, each breach then sent alone', async (t) => {
  const { report, refusedCreates } = await resourcesRun(t, (app) => onRefusedCreate(app, (body) => ({ status: 422, body: { ...body, errors: body.errors.slice(0, 1) } })));
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.ok(refusedCreates > 10, `${refusedCreates} refused creates: the breaches a batch did not list were sent alone`);
});

test('scarce create: a create that lets a nested constraint through is caught, though its batch was refused for the others', async (t) => {
  // The service ignores the pattern of a tag on create: that violation is dropped from the list, and a create refused for it alone is taken.
  const { report } = await resourcesRun(t, (app) =>
    onRefusedCreate(app, (body) => {
      const errors = body.errors.filter((e) => !/^\/tags\/\d+$/.test(e.pointer) || !JSON.stringify(e).includes('pattern'));
      return errors.length ? { status: 422, body: { ...body, errors } } : { status: 201, body: { id: 999999, status: 'open' } };
    }),
  );
  const failed = report.results.filter((r) => r.outcome === 'fail');
  assert.deepEqual(failed.map((r) => r.id), ['ticket.create.tags.0.pattern'], formatHuman(report));
  assert.match(failed[0].message ?? '', /expected 422/);
});
