/**
 * A spec silent on errors (part 7 a gap) holds an implementation to no error shape and no
 * status of svcspec's runtime defaults: a refusal is a 4xx, as HTTP asks (RFC 9110 §15.5),
 * and that is all. Found by a new user's walk (the Ory Kratos import): an implementation
 * answering as Kratos does, `400 {"error": {"code": 400, …}}` in application/json, failed
 * 257 checks for not being application/problem+json with svcspec's 415 and 422, which no
 * statement of the spec asked for. A service that accepts what it must refuse is still caught.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const NOTES = readFileSync(new URL('../serve/fixtures/notes.yaml', import.meta.url), 'utf8');
/** notes.yaml without its errors part: the part is a gap. */
const SILENT = NOTES.replace(/\nerrors:\n(?: .*\n)+/, '\n');

/** Every 4xx of the reference answered as Kratos answers: 400 (404 and 405 kept), its own body, plain JSON. */
function kratosErrors(app: FastifyInstance, accept415 = false): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode < 400 || reply.statusCode >= 500) return payload;
    if (accept415 && reply.statusCode === 415) {
      void reply.code(200).type('application/json');
      return '{"ok":true}';
    }
    const status = reply.statusCode === 404 || reply.statusCode === 405 ? reply.statusCode : 400;
    void reply.code(status).type('application/json');
    return JSON.stringify({ error: { code: status, status: status === 400 ? 'Bad Request' : 'Not Found', message: 'The request was malformed or contained invalid parameters' } });
  });
}

test('conformance: where the spec states no errors, an implementation refusing in its own shape and statuses passes', async (t) => {
  assert.notEqual(SILENT, NOTES);
  assert.doesNotMatch(SILENT, /catalog/);
  const spec = mustLoad(SILENT);
  assert.equal(spec.parts.errors.statement, 'gap');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(NOTES), (app) => kratosErrors(app));
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const media = report.results.find((r) => r.part === 'errors' && r.id === 'unsupported-media-type');
  assert.equal(media?.outcome, 'pass');
  assert.match(media?.title ?? '', /a 4xx: the spec states no code for unsupported-media-type/);
  // Titles name no status of svcspec's defaults where the check takes any 4xx.
  const size = report.results.find((r) => r.part === 'limits' && r.id === 'body-size');
  assert.equal(size?.outcome, 'pass');
  assert.match(size?.title ?? '', /is refused with a 4xx \(the spec states no code for payload-too-large\)$/);
  // 429 stays: RFC 6585 §4 names the status a rate limit is answered with, and the check looks for it.
  assert.ok(!report.results.some((r) => /\b4(?!29)\d\d\b/.test(r.title)), formatHuman(report));
  // The refusals were checked, not skipped: a constraint broken is still a 4xx.
  assert.ok(report.results.filter((r) => r.part === 'resources' && r.outcome === 'pass').length >= 5);
});

test('conformance: where the spec states no errors, a service that accepts a body it cannot read is still caught', async (t) => {
  const spec = mustLoad(SILENT);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, mustLoad(NOTES), (app) => kratosErrors(app, true));
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['errors'] });
  const media = report.results.find((r) => r.part === 'errors' && r.id === 'unsupported-media-type');
  assert.equal(media?.outcome, 'fail', formatHuman(report));
  assert.match(media?.message ?? '', /expected a 4xx \(the unsupported-media-type situation, for which the spec states no code\), got 200/);
});

test('conformance: a stated errors part whose catalog lacks a situation holds that situation to its status class, and its shape to the one stated', async (t) => {
  // The catalog states no code for a body of another media type; everything else as notes.yaml.
  const lacking = NOTES.replace(/\n    unsupported-media-type: .*\n/, '\n');
  assert.notEqual(lacking, NOTES);
  const spec = mustLoad(lacking);
  assert.equal(spec.parts.errors.statement, 'given');
  // The implementation answers that situation 400 in the stated problem shape: no code of the spec is broken.
  const served = await serveForTester(t, mustLoad(NOTES), (app) =>
    app.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode !== 415) return payload;
      void reply.code(400).type('application/problem+json');
      return JSON.stringify({ type: 'about:blank', title: 'Bad request', status: 400 });
    }),
  );
  const report = await runConformance({ spec, baseUrl: served.baseUrl, principals: served.principals, seed: 7, sleep: served.sleep, now: served.now, only: ['errors'] });
  const media = report.results.find((r) => r.part === 'errors' && r.id === 'unsupported-media-type');
  assert.equal(media?.outcome, 'pass', formatHuman(report));
  assert.match(media?.title ?? '', /a 4xx: the spec states no code for unsupported-media-type/);
  // The shape is stated: the same 400 in plain JSON is caught.
  const plain = await serveForTester(t, mustLoad(NOTES), (app) =>
    app.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode !== 415) return payload;
      void reply.code(400).type('application/json');
      return JSON.stringify({ message: 'bad request' });
    }),
  );
  const caught = await runConformance({ spec, baseUrl: plain.baseUrl, principals: plain.principals, seed: 7, sleep: plain.sleep, now: plain.now, only: ['errors'] });
  // The status is still any 4xx; the shape is part 7's finding of its own.
  const shape = caught.results.filter((r) => r.part === 'errors' && r.outcome === 'fail');
  assert.equal(shape.length, 1, formatHuman(caught));
  assert.match(shape[0]!.title, /unsupported-media-type situation are answered in the declared shape/);
  assert.match(shape[0]!.message ?? '', /not the declared 'application\/problem\+json'/);
});
