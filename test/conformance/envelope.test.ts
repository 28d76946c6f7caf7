/**
 * Record envelopes (`resources.<r>.envelope`, src/spec/conventions/envelope.ts), end to end
 * over loopback: the talks spec (fixtures/talks.yaml) with every talk and review sent and
 * answered inside `{"talk": …}` / `{"review": …}`, as RealWorld's API and Rails' JSON root do.
 *   - serve takes the record out of the body and puts it into every answer that is the record,
 *     refuses a record sent bare, and lists the violations at their pointers as sent;
 *   - the tester passes the reference service, and finds an implementation that answers bare;
 *   - the proxy finds an answer not enveloped and a bare request served.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { startProxy } from '../../src/proxy/index.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const TALKS = readFileSync(new URL('./fixtures/talks.yaml', import.meta.url), 'utf8');
const ENVELOPED = TALKS.replace('  talk:\n    plural: talks\n', '  talk:\n    plural: talks\n    envelope: talk\n').replace('  review:\n    plural: reviews\n', '  review:\n    plural: reviews\n    envelope: review\n');

function spec() {
  assert.notEqual(ENVELOPED, TALKS);
  assert.equal(ENVELOPED.match(/envelope: /g)?.length, 2, 'both resources enveloped');
  return mustLoad(ENVELOPED);
}

async function send(baseUrl: string, headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const r = await fetch(`${baseUrl}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const pointers = (json: Record<string, unknown> | undefined) => ((json?.errors as { pointer: string }[] | undefined) ?? []).map((e) => e.pointer).sort();

test('serve: a record is sent and answered inside its envelope; a page and errors stay bare; refusals point into the body as sent', async (t) => {
  const s = spec();
  const { baseUrl, principals } = await serveForTester(t, s);
  const as = principals[0]!.headers;
  const conference = await send(baseUrl, as, 'POST', '/conferences', { name: 'NodeConf', slug: 'nodeconf', startsOn: '2030-05-01', cfpClosesAt: '2030-03-01T00:00:00Z' });
  assert.equal(conference.status, 201, JSON.stringify(conference.json));
  assert.ok(conference.json && 'id' in conference.json, 'a resource without an envelope is answered bare');
  const talk = { conference: conference.json.id, speakerEmail: 'ada@example.com', title: 'Streams in depth' };

  const bare = await send(baseUrl, as, 'POST', '/talks', talk);
  assert.equal(bare.status, 422);
  assert.deepEqual(pointers(bare.json), ['/talk'], 'a bare record is told where it goes');
  // A member a slip away from the envelope's is named as not it.
  const plural = await send(baseUrl, as, 'POST', '/talks', { talks: talk });
  assert.match(((plural.json?.errors as { message: string }[])[0]!).message, /inside 'talk'.*'talks' is not it/);
  const beside = await send(baseUrl, as, 'POST', '/talks', { talk, extra: 1 });
  assert.equal(beside.status, 422);
  assert.deepEqual(pointers(beside.json), ['/extra']);
  const invalid = await send(baseUrl, as, 'POST', '/talks', { talk: { ...talk, title: 'x', durationMinutes: 7 } });
  assert.equal(invalid.status, 422);
  assert.deepEqual([...new Set(pointers(invalid.json))], ['/talk/durationMinutes', '/talk/title'], 'violations at their pointers in the body as sent');

  const made = await send(baseUrl, as, 'POST', '/talks', { talk });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.deepEqual(Object.keys(made.json ?? {}), ['talk']);
  const record = made.json!.talk as Record<string, unknown>;
  assert.equal(record.title, talk.title);
  assert.equal(record.status, 'draft');

  const read = await send(baseUrl, as, 'GET', `/talks/${record.id}`);
  assert.deepEqual(read.json, { talk: record });
  const page = await send(baseUrl, as, 'GET', '/talks');
  assert.ok(Array.isArray(page.json?.items), 'a page keeps its own shape');
  assert.deepEqual((page.json!.items as unknown[])[0], record, 'its items are bare records');
  const missing = await send(baseUrl, as, 'GET', '/talks/7b0c5a4e-0000-4000-8000-000000000000');
  assert.equal(missing.status, 404);
  assert.equal(missing.json?.code, 'not-found', 'an error body is the error shape, never enveloped');

  const updated = await send(baseUrl, as, 'PATCH', `/talks/${record.id}`, { talk: { abstract: 'All about streams.' } });
  assert.equal(updated.status, 200, JSON.stringify(updated.json));
  assert.equal((updated.json!.talk as Record<string, unknown>).abstract, 'All about streams.');
  // A unique's refusal (a domain rule) points into the envelope too.
  const twin = await send(baseUrl, as, 'POST', '/talks', { talk });
  assert.equal(twin.status, 409);
  assert.deepEqual(pointers(twin.json), ['/talk/conference', '/talk/title']);

  // A transition's fields are the record's: sent inside the envelope, the record answered inside it.
  const submitted = await send(baseUrl, as, 'POST', `/talks/${record.id}/submit`);
  assert.equal(submitted.status, 200, JSON.stringify(submitted.json));
  assert.equal((submitted.json!.talk as Record<string, unknown>).status, 'submitted');
  const noReason = await send(baseUrl, as, 'POST', `/talks/${record.id}/withdraw`, { talk: {} });
  assert.equal(noReason.status, 422);
  assert.deepEqual(pointers(noReason.json), ['/talk/withdrawReason']);
  // An action performed by its effects answers the record, enveloped.
  const flagged = await send(baseUrl, as, 'POST', `/talks/${record.id}/flag`);
  assert.equal(flagged.status, 200, JSON.stringify(flagged.json));
  assert.equal((flagged.json!.talk as Record<string, unknown>).flagged, true);
  // A nested create: the record inside the child's own envelope.
  const review = await send(baseUrl, principals[1]!.headers, 'POST', `/talks/${record.id}/reviews`, { review: { score: 4 } });
  assert.equal(review.status, 201, JSON.stringify(review.json));
  assert.equal((review.json!.review as Record<string, unknown>).score, 4);
  const withdrawn = await send(baseUrl, as, 'POST', `/talks/${record.id}/withdraw`, { talk: { withdrawReason: 'Double-booked.' } });
  assert.equal(withdrawn.status, 200, JSON.stringify(withdrawn.json));
  assert.equal((withdrawn.json!.talk as Record<string, unknown>).status, 'withdrawn');
});

test('conformance: the reference service passes the enveloped talks spec, its bodies inside the envelopes', async (t) => {
  const s = spec();
  const { baseUrl, principals, sleep, now } = await serveForTester(t, s);
  const report = await runConformance({ spec: s, baseUrl, principals, seed: 1, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const outcome = (id: string) => report.results.find((r) => r.id === id)?.outcome;
  for (const id of ['talk.envelope', 'review.envelope', 'talk.create', 'talk.title.minLength', 'talk.submitted.withdraw', 'talk.withdraw.effect.conference.submittedTalks', 'talk.flag.effect.self.flagged', 'review.create.guard.talk-not-submitted', 'talk.unique.conference+title', 'review.unique.talk+reviewer']) {
    assert.equal(outcome(id), 'pass', `${id}:\n${formatHuman(report)}`);
  }
});

/** The fault: every answer that is a record is sent bare, out of its envelope. */
function answersBare(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, _reply, payload) => {
    if (typeof payload !== 'string' || !payload.startsWith('{"talk":')) return payload;
    return JSON.stringify((JSON.parse(payload) as { talk: unknown }).talk);
  });
}

test('conformance: an implementation answering records bare fails the envelope check, naming it', async (t) => {
  const s = spec();
  const { baseUrl, principals, sleep, now } = await serveForTester(t, s, answersBare);
  const report = await runConformance({ spec: s, baseUrl, principals, seed: 1, sleep, now });
  const envelope = report.results.find((r) => r.id === 'talk.envelope');
  assert.equal(envelope?.outcome, 'fail', formatHuman(report));
  assert.match(envelope.message ?? '', /not the record inside 'talk'.*\/talk is required/);
  assert.equal(report.results.find((r) => r.id === 'review.envelope')?.outcome, 'pass');
});

test('proxy: an answer not enveloped and a bare request served are findings; the reference service gives none', async (t) => {
  const s = spec();
  // The reference first: the tester's traffic through the proxy finds nothing.
  const good = await serveForTester(t, s);
  const clean = await startProxy({ spec: s, upstream: good.baseUrl });
  t.after(() => clean.close());
  await runConformance({ spec: s, baseUrl: clean.url, principals: good.principals, seed: 2, sleep: good.sleep, now: good.now, only: ['resources'] });
  assert.deepEqual(clean.findings.filter((f) => /envelope/.test(f.id)).map((f) => f.message), []);

  // A faulty one: answers records bare, and takes a record sent bare as if enveloped.
  const bad = await serveForTester(t, s, (app) => {
    answersBare(app);
    app.addHook('preHandler', async (request) => {
      if (request.method === 'POST' && request.url === '/talks' && request.body && typeof request.body === 'object' && !('talk' in request.body)) request.body = { talk: request.body };
    });
  });
  const proxy = await startProxy({ spec: s, upstream: bad.baseUrl });
  t.after(() => proxy.close());
  const conference = await send(proxy.url, bad.principals[0]!.headers, 'POST', '/conferences', { name: 'NodeConf', slug: 'nodeconf', startsOn: '2030-05-01', cfpClosesAt: '2030-03-01T00:00:00Z' });
  const served = await send(proxy.url, bad.principals[0]!.headers, 'POST', '/talks', { conference: conference.json!.id, speakerEmail: 'ada@example.com', title: 'Streams in depth' });
  assert.equal(served.status, 201);
  const ids = proxy.findings.map((f) => `${f.part}/${f.id}`);
  assert.ok(ids.includes('resources/accepted-request-envelope'), ids.join(', '));
  assert.ok(ids.includes('resources/envelope'), ids.join(', '));
  const answer = proxy.findings.find((f) => f.id === 'envelope')!;
  assert.match(answer.message, /not the record inside 'talk'/);
  assert.match(answer.rule.location ? `${answer.rule.location.line}` : '', /^\d+$/, 'placed at the envelope key of the spec');
});

test('proxy, strict mode: its own refusals point into the body as sent, as serve\'s do', async (t) => {
  const s = spec();
  const served = await serveForTester(t, s);
  const strict = await startProxy({ spec: s, upstream: served.baseUrl, mode: 'strict' });
  t.after(() => strict.close());
  const as = served.principals[0]!.headers;
  const conference = await send(strict.url, as, 'POST', '/conferences', { name: 'NodeConf', slug: 'nodeconf', startsOn: '2030-05-01', cfpClosesAt: '2030-03-01T00:00:00Z' });
  const talk = { conference: conference.json!.id, speakerEmail: 'ada@example.com', title: 'x' };
  const direct = await send(served.baseUrl, as, 'POST', '/talks', { talk });
  const proxied = await send(strict.url, as, 'POST', '/talks', { talk });
  assert.equal(proxied.status, 422);
  assert.deepEqual(pointers(proxied.json), pointers(direct.json));
  assert.deepEqual(pointers(proxied.json), ['/talk/title']);
  const bare = await send(strict.url, as, 'POST', '/talks', talk);
  assert.equal(bare.status, 422);
  assert.deepEqual(pointers(bare.json), ['/talk']);
});

test('conformance: the library with every resource enveloped passes against the reference: singletons (a PUT that creates answers 201 inside it), bulk writes (bare items), actions, nested lists', async (t) => {
  const library = readFileSync(new URL('../../examples/library.yaml', import.meta.url), 'utf8');
  let text = library;
  for (const [plural, member] of [['books', 'book'], ['members', 'member'], ['loans', 'loan'], ['reading-lists', 'readingList'], ['preferences', 'preference']]) {
    text = text.replace(`\n    plural: ${plural}\n`, `\n    plural: ${plural}\n    envelope: ${member}\n`);
  }
  assert.equal(text.match(/envelope: /g)?.length, 5);
  const s = mustLoad(text);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, s);
  const report = await runConformance({ spec: s, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  for (const id of ['book.envelope', 'preferences.mine', 'book.import', 'loan.approve']) assert.ok(report.results.some((r) => r.id.startsWith(id) && r.outcome === 'pass'), `${id}:\n${formatHuman(report)}`);
});

test('envelope {member, requests: bare}: records are sent bare and answered inside; the tester and the proxy pass it, and the tester fails a service requiring the envelope', async (t) => {
  const s = mustLoad(ENVELOPED.replace('    envelope: talk\n', '    envelope: {member: talk, requests: bare}\n'));
  assert.deepEqual([s.resources.find((r) => r.name === 'talk')?.envelope, s.resources.find((r) => r.name === 'talk')?.envelopeRequests], ['talk', 'bare']);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, s);
  const as = principals[0]!.headers;
  const conference = await send(baseUrl, as, 'POST', '/conferences', { name: 'NodeConf', slug: 'nodeconf', startsOn: '2030-05-01', cfpClosesAt: '2030-03-01T00:00:00Z' });
  const talk = { conference: conference.json!.id, speakerEmail: 'ada@example.com', title: 'Streams in depth' };
  const made = await send(baseUrl, as, 'POST', '/talks', talk);
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.deepEqual(Object.keys(made.json ?? {}), ['talk'], 'answered inside the envelope');
  const wrapped = await send(baseUrl, as, 'POST', '/talks', { talk: { ...talk, title: 'Workers in depth' } });
  assert.equal(wrapped.status, 422, 'a request wrapped where the spec says bare is a body with an undeclared member');
  const report = await runConformance({ spec: s, baseUrl, principals, seed: 1, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(report.results.find((r) => r.id === 'talk.envelope')?.outcome, 'pass', formatHuman(report));
  // The proxy finds nothing in the reference's traffic of it.
  const proxy = await startProxy({ spec: s, upstream: baseUrl });
  t.after(() => proxy.close());
  await send(proxy.url, as, 'POST', '/talks', { ...talk, title: 'Buffers in depth' });
  assert.deepEqual(proxy.findings.filter((f) => /envelope/.test(f.id)).map((f) => f.message), []);

  // The fault: a service that still wants the record inside the envelope refuses every bare create.
  const strict = await serveForTester(t, s, (app) => app.addHook('preHandler', async (request, reply) => {
    if (request.method === 'POST' && request.url === '/talks' && !(request.body && typeof request.body === 'object' && 'talk' in request.body)) {
      return reply.code(422).type('application/problem+json').send({ type: 'about:blank', title: 'Validation failed', status: 422, code: 'validation-failed', errors: [{ pointer: '/talk', message: 'is required' }] });
    }
  }));
  const faulty = await runConformance({ spec: s, baseUrl: strict.baseUrl, principals: strict.principals, seed: 1, sleep: strict.sleep, now: strict.now, only: ['resources'] });
  assert.equal(faulty.results.find((r) => r.id === 'talk.create')?.outcome, 'fail', formatHuman(faulty));
});
