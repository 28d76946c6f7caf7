/**
 * The tester on a spec a new user wrote from the docs (fixtures/talks.yaml): the reference
 * service passes it with no failure, and the checks that once went wrong on it are run:
 *   - a resource whose only create is nested (`POST /talks/{talkId}/reviews`): every check
 *     that posts a create sends it through a real parent, never the template `{talkId}`,
 *     and leaving the parent's ref out of the body is no refusal there (the path gives it);
 *   - a guard of another resource wanting a record in a later state (a review of a submitted
 *     talk) does not keep the record's own checks from being made: the state is walked to;
 *   - a guard comparing `now` with a date-time the client writes is made to fail;
 *   - a unique over a created-by field is met by two creates of one principal.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { loadSpec } from '../../src/load/index.ts';
import { mustLoad } from '../support/spec.ts';
import type { Spec } from '../../src/spec/model.ts';
import { serveForTester } from './support.ts';

async function talks(): Promise<Spec> {
  const r = await loadSpec(fileURLToPath(new URL('./fixtures/talks.yaml', import.meta.url)));
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

test('conformance: the reference service passes the talks spec; nested-only creates, guards on a later state, on a date and a unique over created-by are checked', async (t) => {
  const spec = await talks();
  const templated: string[] = [];
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => {
    app.addHook('onRequest', async (request) => void (/%7B|\{/i.test(request.url) && templated.push(`${request.method} ${request.url}`)));
  });
  const report = await runConformance({ spec, baseUrl, principals, seed: 1, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const outcome = (id: string) => report.results.find((r) => r.id === id)?.outcome;
  for (const id of [
    'review.create', 'review.score.minimum', 'review.score.required', 'review.unknown-field', 'review.readOnly', 'review.create.nested', 'review.list.nested',
    'review.create.guard.talk-not-submitted', 'review.create.effect.talk.reviewCount', 'review.unique.talk+reviewer',
    'talk.update.guard.talk-locked', 'talk.submit.guard.cfp-closed', 'talk.submit.effect.conference.submittedTalks', 'talk.flag.effect.self.flagged',
  ]) assert.equal(outcome(id), 'pass', `${id}:\n${formatHuman(report)}`);
  // The parent's ref left out of a nested create's body is complete, not a breach of `required`.
  assert.equal(outcome('review.talk.required'), undefined, 'no required check of the ref a nested create takes from its path');
  assert.deepEqual(templated, [], 'no request was sent to a path template');
});

test('conformance: the reference service passes its own checks of date-time range filters and sorts (a bound equal to a stored value)', async (t) => {
  // Found by a review: bounds read to the millisecond put a stored 15:08:21Z after 15:08:21.000Z, and svcspec failed its own lte and gt.
  const spec = mustLoad(`svcspec: 1
purpose: {name: Shelf, summary: Keeps books., users: [{name: keeper, tasks: [keep books]}]}
resources:
  book:
    plural: books
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      title: {type: string, required: true}
      at: {type: string, format: date-time}
states: {none: No life cycle.}
endpoints:
  book:
    create: {}
    read: {}
    delete: {}
    list:
      query: {filters: {at: [gte, lte, lt, gt]}, sort: [at]}
authentication: {none: Open.}
events: {none: None.}
errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
    malformed-body: { status: 400, title: Malformed body }
    not-found: { status: 404, title: Not found }
    method-not-allowed: { status: 405, title: Method not allowed }
    payload-too-large: { status: 413, title: Too large }
    unsupported-media-type: { status: 415, title: Unsupported media type }
    rate-limited: { status: 429, title: Too many requests }
    internal: { status: 500, title: Internal error }
    timeout: { status: 503, title: Timed out }
limits:
  rate: { limit: 1000000, window: 1s, scope: address }
  body: { maxSize: 16KiB }
  timeouts: { request: 10s, status: 503 }
  pagination: {style: cursor, defaultSize: 20, maxSize: 50, overMax: clamp}
versioning: {none: One version.}
`);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 1, sleep, now, only: ['endpoints'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  for (const op of ['gte', 'lte', 'lt', 'gt']) assert.ok(report.results.some((r) => r.outcome === 'pass' && r.title.includes(`at[${op}]`)), `at[${op}] checked:\n${formatHuman(report)}`);
});

test('conformance: a transition sent without a field it requires is refused at that field, and an implementation that ignores the requirement is caught', async (t) => {
  const spec = await talks();
  const good = await serveForTester(t, spec);
  const passed = await runConformance({ spec, baseUrl: good.baseUrl, principals: good.principals, seed: 4, sleep: good.sleep, now: good.now, only: ['states'] });
  assert.equal(passed.results.find((r) => r.id === 'talk.withdraw.requires')?.outcome, 'pass', formatHuman(passed));
  // The fault: a withdraw without its reason is given one, and served (a walk found no check of `requires`).
  const bad = await serveForTester(t, spec, (app) => app.addHook('preHandler', async (request) => {
    if (request.method === 'POST' && /\/withdraw$/.test(request.url) && !(typeof request.body === 'object' && request.body && 'withdrawReason' in request.body)) request.body = { withdrawReason: 'filled in by the faulty service' };
  }));
  const caught = await runConformance({ spec, baseUrl: bad.baseUrl, principals: bad.principals, seed: 4, sleep: bad.sleep, now: bad.now, only: ['states'] });
  const requires = caught.results.find((r) => r.id === 'talk.withdraw.requires');
  assert.equal(requires?.outcome, 'fail', formatHuman(caught));
  assert.match(requires?.message ?? '', /expected 422/);
  // One defect, one finding: the legal withdraw after it gets a record still submitted, not the one the fault moved.
  assert.equal(caught.results.find((r) => r.id === 'talk.submitted.withdraw')?.outcome, 'pass', formatHuman(caught));
});

test('conformance: a list in another shape than svcspec\'s page, where the spec states no pagination, is not read, and what needs it is not checked, never failed (the proxy holds no one to it either)', async (t) => {
  const spec = mustLoad(readFileSync(new URL('./fixtures/talks.yaml', import.meta.url), 'utf8').replace(/\n  pagination:.*\n/, '\n'));
  assert.equal(spec.limits.pagination, undefined);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => app.addHook('onSend', async (request, _reply, payload) => {
    // Its own page shape: {talks: [...], talksCount}.
    if (request.method !== 'GET' || !/^\/talks(\?|$)/.test(request.url) || typeof payload !== 'string' || !payload.startsWith('{"items"')) return payload;
    const page = JSON.parse(payload) as { items: unknown[] };
    return JSON.stringify({ talks: page.items, talksCount: page.items.length });
  }));
  const report = await runConformance({ spec, baseUrl, principals, seed: 6, sleep, now, only: ['resources'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const listed = report.results.find((r) => r.id === 'talk.listed');
  assert.deepEqual([listed?.outcome, listed?.skipKind], ['skip', 'not-checked']);
  assert.match(listed?.message ?? '', /states no pagination/);
});

test('conformance: each field a transition requires is left out in turn (orders: ship requires carrier and trackingNumber), and a service that fills in the second is caught', async (t) => {
  const orders = await loadSpec(fileURLToPath(new URL('../../examples/orders.yaml', import.meta.url)));
  assert.ok(orders.value);
  const spec = orders.value;
  const good = await serveForTester(t, spec);
  const passed = await runConformance({ spec, baseUrl: good.baseUrl, principals: good.principals, seed: 8, sleep: good.sleep, now: good.now, only: ['states'] });
  assert.equal(passed.results.find((r) => r.id === 'order.ship.requires')?.outcome, 'pass', formatHuman(passed));
  assert.match(passed.results.find((r) => r.id === 'order.ship.requires')?.title ?? '', /without each of 'carrier', 'trackingNumber'/);
  const bad = await serveForTester(t, spec, (app) => app.addHook('preHandler', async (request) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (request.method === 'POST' && /\/ship$/.test(request.url) && body && typeof body === 'object' && !('trackingNumber' in body)) request.body = { ...body, trackingNumber: 'FILLEDIN1234' };
  }));
  const caught = await runConformance({ spec, baseUrl: bad.baseUrl, principals: bad.principals, seed: 8, sleep: bad.sleep, now: bad.now, only: ['states'] });
  const requires = caught.results.find((r) => r.id === 'order.ship.requires');
  assert.equal(requires?.outcome, 'fail', formatHuman(caught));
  assert.match(requires?.message ?? '', /expected 422/);
  // The second field is the one left out in the request the fault served.
  assert.match(requires?.exchange?.request.body ?? '', /carrier/);
  assert.doesNotMatch(requires?.exchange?.request.body ?? '', /trackingNumber/);
});
