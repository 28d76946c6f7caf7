/**
 * `svcspec test` on the open surface (issue #13) against the reference serving a spec of
 * actions, bulk writes and expansion: every check passes, with prose actions answered 501
 * and with handlers performing them; and implementations broken on purpose are caught:
 * an action answering outside its declared response, a bulk create that keeps the valid
 * items of a refused request, a bulk update or delete that changes records before the bad
 * item, one over its max, an expansion showing another principal's record.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { formatHuman, runConformance, type ConformanceReport } from '../../src/conformance/index.ts';
import type { ActionHandlers } from '../../src/serve/actions.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const SPEC = mustLoad(readFileSync(new URL('../serve/fixtures/open-surface.yaml', import.meta.url), 'utf8'));

const IDS = [
  'book.remind.answers', 'book.remind.invalid-body', 'book.remind.missing-record',
  'book.previewPrice.answers', 'book.previewPrice.invalid-body', 'book.touch.answers', 'book.touch.invalid-body', 'book.touch.missing-record',
  'book.import.all', 'book.import.atomic', 'book.import.max', 'book.import.events', 'code.bulk.all', 'code.bulk.max',
  'book.bulkUpdate.all', 'book.bulkUpdate.atomic', 'book.bulkUpdate.max', 'book.bulkDelete.all', 'book.bulkDelete.atomic', 'book.bulkDelete.max',
  'book.bulkUpdate.events', 'book.bulkDelete.events', 'shelf.rename.all', 'shelf.rename.atomic', 'shelf.rename.max', 'shelf.clear.all', 'shelf.clear.atomic', 'shelf.clear.max',
  'shelf.share.answers', 'shelf.share.missing-record', 'shelf.ownership',
  'pick.read.expand', 'pick.read.expand-undeclared', 'pick.read.expand-owned', 'pick.list.expand', 'pick.list.expand-undeclared', 'pick.list.expand-owned',
];

async function run(t: Parameters<typeof serveForTester>[0], tweak?: (app: FastifyInstance) => void, handlers?: ActionHandlers): Promise<ConformanceReport> {
  const { baseUrl, principals, sleep, now } = await serveForTester(t, SPEC, tweak, handlers ? { handlers } : {});
  return runConformance({ spec: SPEC, baseUrl, principals, seed: 20261123, sleep, now, only: ['endpoints', 'authentication'] });
}

const outcome = (report: ConformanceReport, id: string) => report.results.find((r) => r.id === id);

test('svcspec test: the reference passes every open-surface check, its prose actions answering 501', async (t) => {
  const report = await run(t);
  assert.equal(report.counts.fail, 0, formatHuman(report));
  for (const id of IDS) assert.equal(outcome(report, id)?.outcome, 'pass', `${id}: ${outcome(report, id)?.message ?? 'not run'}`);
});

test('svcspec test: with handlers performing the actions, their declared responses pass', async (t) => {
  const report = await run(t, undefined, {
    'book.remind': () => ({ sent: true }),
    'book.previewPrice': ({ body }) => ({ price: Number(body.pages) }),
    'book.touch': ({ record }) => record,
    'shelf.share': () => undefined,
  });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(outcome(report, 'book.remind.answers')?.outcome, 'pass');
});

test('svcspec test catches an action answering outside its declared response', async (t) => {
  const report = await run(t, (app) => app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.endsWith('/remind') || reply.statusCode !== 501) return payload;
    reply.code(200).type('application/json');
    return JSON.stringify({ sent: 'yes', extra: 1 });
  }));
  const r = outcome(report, 'book.remind.answers');
  assert.equal(r?.outcome, 'fail');
  assert.match(r?.message ?? '', /answered outside its declared response: \/sent is "yes", not a boolean; \/extra is not declared/);
});

test('a prose action refusing the made-up request with an error it declares is not checked; one it does not declare fails', async (t) => {
  // previewPrice declares validation-failed (422); its prose may refuse a request its schema allows.
  const refuses = (status: number) => (app: FastifyInstance) => app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/books/preview-price') || reply.statusCode !== 501) return payload;
    reply.code(status).type('application/problem+json');
    return JSON.stringify({ type: 'about:blank', title: 'Refused', status, code: status === 422 ? 'validation-failed' : 'conflict' });
  });
  const declared = outcome(await run(t, refuses(422)), 'book.previewPrice.answers');
  assert.equal(declared?.outcome, 'skip', declared?.message);
  assert.match(declared?.message ?? '', /refused the request the tester made from its schema with 422, which it declares; its behaviour is prose/);
  const undeclared = outcome(await run(t, refuses(409)), 'book.previewPrice.answers');
  assert.equal(undeclared?.outcome, 'fail', undeclared?.message);
  // A missing route is no refusal of the request (review): touch declares not-found (404), yet an HTML 404 fails.
  const missing = outcome(await run(t, (app) => app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.endsWith('/touch') || reply.statusCode !== 501) return payload;
    reply.code(404).type('text/html');
    return '<h1>Cannot POST</h1>';
  })), 'book.touch.answers');
  assert.equal(missing?.outcome, 'fail', missing?.message);
});

test('svcspec test catches a bulk create that keeps the valid items of a refused request', async (t) => {
  const report = await run(t, (app) => app.addHook('preHandler', async (request) => {
    if (request.method !== 'POST' || request.url !== '/books/bulk') return;
    const items = (request.body as { items?: unknown[] }).items ?? [];
    // Writes each valid item as it goes, as a service without a transaction would.
    for (const item of items) await app.inject({ method: 'POST', url: '/books', headers: { 'x-api-key': String(request.headers['x-api-key']), 'content-type': 'application/json' }, payload: JSON.stringify(item) });
  }));
  const r = outcome(report, 'book.import.atomic');
  assert.equal(r?.outcome, 'fail');
  assert.match(r?.message ?? '', /item 0 of the refused request was written/);
});

test('svcspec test catches a bulk update that changes the valid items of a refused request', async (t) => {
  const report = await run(t, (app) => app.addHook('preHandler', async (request) => {
    if (request.method !== 'PATCH' || request.url !== '/books') return;
    const items = (request.body as { items?: Record<string, unknown>[] }).items ?? [];
    // Applies each patch as it goes, as a service without a transaction would.
    for (const { id, ...patch } of items) await app.inject({ method: 'PATCH', url: `/books/${String(id)}`, headers: { 'x-api-key': String(request.headers['x-api-key']), 'content-type': 'application/json' }, payload: JSON.stringify(patch) });
  }));
  const r = outcome(report, 'book.bulkUpdate.atomic');
  assert.equal(r?.outcome, 'fail');
  assert.match(r?.message ?? '', /book '.*' was changed by a request that was refused: its title is now "svcspec-bulk-/);
  assert.equal(outcome(report, 'book.bulkUpdate.all')?.outcome, 'pass');
});

test('svcspec test catches a bulk delete that removes the records before a missing id, and one that ignores max', async (t) => {
  const report = await run(t, (app) => app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || request.url !== '/books/bulk-delete') return;
    const items = (request.body as { items?: unknown[] }).items ?? [];
    // Deletes one by one, stopping at the first failure, and takes any number of items.
    for (const [i, id] of items.entries()) {
      const done = await app.inject({ method: 'DELETE', url: `/books/${String(id)}`, headers: { 'x-api-key': String(request.headers['x-api-key']) } });
      if (done.statusCode === 404) return reply.code(422).type('application/problem+json').send({ type: 'about:blank', title: 'Validation failed', status: 422, code: 'validation-failed', errors: [{ pointer: `/items/${i}`, message: 'names no book' }] });
    }
    return reply.code(204).send();
  }));
  const atomic = outcome(report, 'book.bulkDelete.atomic');
  assert.equal(atomic?.outcome, 'fail');
  assert.match(atomic?.message ?? '', /book '.*' was deleted by a request that was refused/);
  assert.equal(outcome(report, 'book.bulkDelete.max')?.outcome, 'fail');
  assert.equal(outcome(report, 'book.bulkDelete.all')?.outcome, 'pass');
});

test("svcspec test catches a bulk delete that removes another principal's owned record", async (t) => {
  const report = await run(t, (app) => {
    const keys: string[] = [];
    app.addHook('onRequest', async (request) => {
      const key = request.headers['x-api-key'] as string | undefined;
      if (key && request.method === 'POST' && request.url === '/shelves') keys.push(key);
      // The bulk delete is made with the shelf owner's key: bob removes ann's shelf.
      if (key && keys.length && request.method === 'POST' && request.url === '/shelves/bulk-delete') request.headers['x-api-key'] = keys.at(-1);
    });
  });
  const r = outcome(report, 'shelf.ownership');
  assert.equal(r?.outcome, 'fail');
  assert.match(r?.message ?? '', /shelf\.clear of another principal's record: expected 422/);
});

test("svcspec test catches an expansion that embeds another principal's owned record", async (t) => {
  const report = await run(t, (app) => {
    const keys: string[] = [];
    app.addHook('onRequest', async (request) => {
      const key = request.headers['x-api-key'] as string | undefined;
      if (key && request.method === 'POST' && request.url === '/shelves') keys.push(key);
      // The expanded read is made with the shelf owner's key: bob sees ann's shelf.
      if (key && keys.length && request.method === 'GET' && /^\/picks.*expand=shelf/.test(request.url)) request.headers['x-api-key'] = keys.at(-1);
    });
  });
  const r = outcome(report, 'pick.read.expand-owned');
  assert.equal(r?.outcome, 'fail');
  assert.match(r?.message ?? '', /sees ann's shelf '.*' embedded in shelf/);
});

test('svcspec test accepts a 501 only from an action whose behaviour the spec states in prose', async (t) => {
  const text = readFileSync(new URL('../serve/fixtures/open-surface.yaml', import.meta.url), 'utf8').replace('      behaviour: Marks the book as looked at; answers the book.\n', '');
  const spec = mustLoad(text);
  assert.equal(spec.endpoints.find((e) => e.id === 'book.touch')?.action?.behaviour, undefined);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 1, sleep, now, only: ['endpoints'] });
  const r = outcome(report, 'book.touch.answers');
  assert.equal(r?.outcome, 'fail');
  assert.match(r?.message ?? '', /answered 501, but the spec states no prose behaviour that would excuse it/);
  assert.equal(outcome(report, 'book.remind.answers')?.outcome, 'pass', 'a prose action may answer 501');
});
