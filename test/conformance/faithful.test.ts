/**
 * The tester on implementations that do what the spec says, and more strictly than the
 * reference service: no false failures. A library that enforces two rules its own error
 * catalog declares (one member per email, `email-taken`; a book out on one loan at a time,
 * `book-unavailable`) passes with 0 failures, because each create gets fresh referenced
 * records and string values no earlier create had. A run with `--include rate-limits`
 * after every other check passes against a correct serve (the check reads what is left of
 * the window). What a run says of itself (its verdict, what it could not check and why,
 * credentials redacted, a curl to reproduce a failure) is held here too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { curlOf, runConformance } from '../../src/conformance/index.ts';
import { formatHuman, formatJson, formatJunit } from '../../src/conformance/report/format.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';
import { mustLoad } from '../support/spec.ts';

function refuse(reply: FastifyReply, status: number, code: string, title: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/problem+json').send(JSON.stringify({ type: `urn:svcspec:problem:${code}`, title, status, code }));
}

/** The two rules of library.yaml's catalog that the reference service leaves to handlers, enforced. */
function enforceRules(app: FastifyInstance): void {
  const emails = new Map<string, string>();
  const loanOfBook = new Map<string, string>();
  // Idempotency-Keys of writes it accepted, per credential: a repeat is answered by the key (the first answer again, or idempotency-key-reused) before any rule, as the draft has it (§2.6, §2.7).
  const keys = new Set<string>();
  const keyOf = (request: FastifyRequest) => {
    const key = request.headers['idempotency-key'];
    return typeof key === 'string' ? `${String(request.headers['x-api-key'] ?? request.headers.authorization ?? '')} ${request.method} ${request.url.split('?')[0]} ${key}` : undefined;
  };
  app.addHook('preHandler', async (request, reply) => {
    const path = request.url.split('?')[0];
    const body = request.body as Record<string, unknown> | undefined;
    const key = keyOf(request);
    if (key !== undefined && keys.has(key)) return;
    if ((request.method === 'POST' && path === '/members') || (['PATCH', 'PUT'].includes(request.method) && /^\/members\/[^/]+$/.test(path))) {
      const id = path.split('/')[2];
      const holder = typeof body?.email === 'string' ? emails.get(body.email.toLowerCase()) : undefined;
      if (holder !== undefined && holder !== id) return refuse(reply, 422, 'email-taken', 'Email already registered');
    }
    if (request.method === 'POST' && /^(\/members\/[^/]+)?\/loans$/.test(path) && body?.book !== undefined && loanOfBook.has(String(body.book))) {
      return refuse(reply, 409, 'book-unavailable', 'No copy available');
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || reply.statusCode >= 300 || !payload.startsWith('{')) return payload;
    const key = keyOf(request);
    if (key !== undefined) keys.add(key);
    const path = request.url.split('?')[0];
    const record = JSON.parse(payload) as Record<string, unknown>;
    if (/^\/members(\/[^/]+)?$/.test(path) && request.method !== 'GET' && request.method !== 'DELETE' && typeof record.email === 'string') {
      for (const [email, id] of emails) if (id === record.id) emails.delete(email);
      emails.set(record.email.toLowerCase(), String(record.id));
    }
    if (/^(\/members\/[^/]+)?\/loans$/.test(path) && request.method === 'POST' && reply.statusCode === 201) loanOfBook.set(String(record.book), String(record.id));
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const m = /^\/(members|loans)\/([^/?]+)$/.exec(request.url.split('?')[0]);
    if (request.method !== 'DELETE' || !m || reply.statusCode >= 300) return;
    const map = m[1] === 'members' ? emails : loanOfBook;
    for (const [k, id] of map) if (id === m[2]) map.delete(k);
  });
}

test('conformance: a library that enforces one member per email and one loan per book passes with 0 failures', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, enforceRules);
  // The rules are real: a second loan of one book is refused.
  const headers = { ...principals[0].headers, 'content-type': 'application/json' };
  const book = (await (await fetch(`${baseUrl}/books`, { method: 'POST', headers, body: JSON.stringify({ title: 'Dune', authors: ['Frank Herbert'] }) })).json()) as { id: string };
  const member = (await (await fetch(`${baseUrl}/members`, { method: 'POST', headers, body: JSON.stringify({ name: 'Ann', email: 'ann@example.org', pin: '1234' }) })).json()) as { id: string };
  const loan = () => fetch(`${baseUrl}/loans`, { method: 'POST', headers, body: JSON.stringify({ book: book.id, member: member.id }) });
  assert.equal((await loan()).status, 201);
  assert.equal((await loan()).status, 409);
  assert.equal((await fetch(`${baseUrl}/members`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bo', email: 'ann@example.org', pin: '1234' }) })).status, 422);
  const report = await runConformance({ spec, baseUrl, principals, seed: 20261124, sleep, now, events: { timeoutMs: 3000 } });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.ok(report.counts.pass > 300, `${report.counts.pass} passed`);
  // What it made it removed, the records the faithful service refused or accepted alike; only records the spec gives no delete for are left, and named,
  // and those whose delete the spec refuses while a record left refers to them (a book a loan names: loan.book is onDelete refuse, book-has-loans).
  const left = report.left ?? {};
  assert.ok(Object.keys(left).length > 0, 'members and loans have no delete in library.yaml');
  const held = (r: string) => spec.resources.some((other) => other.name in left && other.fields.some((f) => f.type === 'ref' && f.resource === r && f.onDelete?.kind === 'refuse'));
  for (const r of Object.keys(left)) assert.ok(!spec.endpoints.some((e) => e.resource === r && e.operation === 'delete') || held(r), `${r} has a delete, and nothing left refuses it, yet ${left[r]} were left`);
  assert.match(formatHuman(report), /Left behind \(the spec declares no delete for them, or their delete failed\): \d+ \w+/);
});

test('conformance: --include rate-limits after every other check passes against a correct serve, and a wrong quota is caught', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const served = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl: served.baseUrl, principals: served.principals, seed: 5, sleep: served.sleep, now: served.now, include: ['rate-limits'], only: ['resources', 'limits'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(report.results.find((r) => r.id === 'rate-limit')?.outcome, 'pass', formatHuman(report));
  // A service whose RateLimit-Policy states another quota than the spec declares.
  const lying = await serveForTester(t, spec, (app) => app.addHook('onSend', async (_request, reply, payload) => {
    const policy = reply.getHeader('ratelimit-policy');
    if (typeof policy === 'string') reply.header('ratelimit-policy', policy.replace(/q=\d+/, 'q=1000'));
    return payload;
  }));
  const caught = await runConformance({ spec, baseUrl: lying.baseUrl, principals: lying.principals, seed: 5, sleep: lying.sleep, now: lying.now, include: ['rate-limits'], only: ['limits'] });
  const failed = caught.results.find((r) => r.id === 'rate-limit');
  assert.equal(failed?.outcome, 'fail', formatHuman(caught));
  assert.match(failed?.message ?? '', /RateLimit-Policy states .*q=1000.*the spec declares "default";q=600;w=60/);
  assert.ok(failed?.rule?.location, 'the failure names where the spec declares the limit');
  // A service that refuses while its own RateLimit field says there is quota left.
  let lists = 0;
  const early = await serveForTester(t, spec, (app) => app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' || request.url.split('?')[0] !== '/members' || ++lists < 8) return;
    return refuse(reply.header('retry-after', '60'), 429, 'rate-limited', 'Too many requests');
  }));
  const refused = await runConformance({ spec, baseUrl: early.baseUrl, principals: early.principals, seed: 5, sleep: early.sleep, now: early.now, include: ['rate-limits'], only: ['limits'] });
  const tooSoon = refused.results.find((r) => r.id === 'rate-limit');
  assert.equal(tooSoon?.outcome, 'fail', formatHuman(refused));
  assert.match(tooSoon?.message ?? '', /refused after \d+ requests in the window, with RateLimit saying \d+ left; the limit is 600/);
});

test('conformance: a 404 in the wrong shape after a delete fails the error shape, not "the record is gone"', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 404 || request.method !== 'GET' || !/^\/books\/[^/]+$/.test(request.url)) return payload;
    reply.header('content-type', 'application/json');
    return JSON.stringify({ message: 'no such book' });
  }));
  const report = await runConformance({ spec, baseUrl, principals, seed: 3, sleep, now, only: ['resources'] });
  assert.equal(report.results.find((r) => r.id === 'book.delete')?.outcome, 'pass', formatHuman(report));
  const shape = report.results.find((r) => r.id === 'error-shape.not-found');
  assert.equal(shape?.outcome, 'fail', formatHuman(report));
  assert.equal(shape?.part, 'errors');
  assert.match(shape?.message ?? '', /content type is 'application\/json'/);
  assert.equal(shape?.rule?.text, 'the declared error shape');
});

test('conformance: library and orders fit their quotas (no rate-limit wait); each run says its requests and waits', async (t) => {
  for (const file of ['library.yaml', 'orders.yaml']) {
    const spec = await exampleSpec(file);
    const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
    let waits = 0;
    const report = await runConformance({ spec, baseUrl, principals, seed: 20261121, sleep, now, onWait: () => waits++, events: { timeoutMs: 3000 } });
    assert.equal(report.counts.fail, 0, formatHuman(report));
    assert.equal(report.waited.count, 0, `${file}: ${report.waited.count} waits, ${report.waited.ms} ms`);
    assert.equal(waits, 0);
    assert.ok(report.requests > 0);
  }
});

test('conformance: verdicts are honest; missing-scope checks without a scope-limited principal are named, not dropped; reports redact credentials', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => app.addHook('onSend', async (request, reply, payload) => {
    // One fault, so the report has a failure with an exchange to redact: the list of books answers 500.
    if (request.method === 'GET' && request.url.split('?')[0] === '/books' && reply.statusCode === 200) reply.code(500);
    return payload;
  }));
  const full = principals.filter((p) => p.name === 'ann' || p.name === 'bob');
  const report = await runConformance({ spec, baseUrl, principals: full, seed: 9, sleep, now, only: ['authentication', 'endpoints'] });
  const missing = report.results.filter((r) => r.id.endsWith('.missing-scope'));
  assert.ok(missing.length > 10, `${missing.length} missing-scope checks`);
  assert.ok(missing.every((r) => r.outcome === 'skip' && r.skipKind === 'not-checked' && /lacking/.test(r.needs ?? '')), JSON.stringify(missing.slice(0, 2)));
  const auth = report.parts.find((p) => p.part === 'authentication');
  assert.equal(auth?.verdict, 'incomplete');
  assert.ok(auth?.needs.some((n) => /lacking/.test(n)));
  assert.equal(report.counts.notChecked, report.results.filter((r) => r.outcome === 'skip' && r.skipKind === 'not-checked').length);
  assert.ok(report.counts.fail > 0);
  assert.equal(report.verdict, 'fail');
  const human = formatHuman(report);
  assert.match(human, /To check the rest, give: .*lacking/);
  assert.match(human, /reproduce \(seed 9\): curl -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/books[^']*' -H 'accept: [^']*' -H 'x-api-key: <redacted>'/);
  // No credential value anywhere in any report.
  const secrets = full.flatMap((p) => Object.values(p.headers));
  for (const text of [human, formatJson(report), formatJunit(report)]) for (const s of secrets) assert.ok(!text.includes(s), 'a credential leaked into a report');
  // Asked to, the report keeps them (a run on one's own machine), and the curl reproduces the failure.
  const shown = await runConformance({ spec, baseUrl, principals: full, seed: 9, sleep, now, only: ['endpoints'], showSecrets: true });
  const failure = shown.results.find((r) => r.outcome === 'fail' && r.exchange);
  assert.ok(failure?.exchange);
  assert.ok(formatJson(shown).includes(secrets[0]));
  assert.match(curlOf(failure.exchange), new RegExp(`x-api-key: ${secrets[0]}`));
});

test('conformance: a quota that cannot fit the run in its wait budget leaves checks not checked, naming the quota, never failed', async (t) => {
  const spec = await exampleSpec('helpdesk.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  let counted = 0;
  // From one client address (the default would send from several loopback ones, each with its own 5 a minute: client-addresses.test.ts).
  const report = await runConformance({ spec, baseUrl, principals, seed: 20261121, sleep, now, waitBudgetMs: 0, clientAddresses: 'none', only: ['resources', 'states'], onExchange: (e) => void (e.request.method === 'POST' && new URL(e.request.url).pathname === '/tickets' && e.response.headers.ratelimit && e.response.status !== 429 && counted++) });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(report.waited.count, 0, 'no wait at all');
  const quota = report.results.filter((r) => r.outcome === 'skip' && /^ticket\.create allows 5 requests per 60 s per address; the window is spent/.test(r.message ?? ''));
  // Resources and states need more than one window of tickets even with the refusals batched and records reused (15 creates in a full run).
  assert.ok(quota.length > 0, formatHuman(report));
  assert.ok(quota.every((r) => r.skipKind === 'not-checked' && /--wait-budget/.test(r.needs ?? '')));
  assert.equal(report.verdict, 'incomplete');
  // Five tickets a minute per address: the run spent exactly the window, and the first create went to the check of the create itself.
  assert.equal(counted, 5);
  assert.ok(report.results.some((r) => r.id === 'ticket.create' && r.outcome === 'pass'));
  // The window is kept for what only a create shows: a value the update takes is refused there instead.
  const onUpdate = report.results.find((r) => r.id === 'ticket.subject.maxLength');
  assert.equal(onUpdate?.outcome, 'pass', formatHuman(report));
  assert.match(onUpdate?.title ?? '', /\(on ticket\.update: ticket\.create allows 5 per 60 s\)$/);
});

test('conformance: a service that takes a broken value on update, where the quota sends the refusal checks, is caught', async (t) => {
  const spec = await exampleSpec('helpdesk.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'PATCH' && /^\/tickets\/[^/?]+/.test(request.url) && reply.statusCode === 422) {
      reply.code(200).header('content-type', 'application/json');
      return '{"id":1}';
    }
    return payload;
  }));
  const report = await runConformance({ spec, baseUrl, principals, seed: 20261121, sleep, now, only: ['resources'] });
  const caught = report.results.find((r) => r.id === 'ticket.subject.maxLength');
  assert.equal(caught?.outcome, 'fail', formatHuman(report));
  assert.match(caught?.message ?? '', /expected 422 \(validation-failed.*got 200/);
  assert.ok(caught?.rule?.location);
});

test('conformance: a wait budget spent by requests a part makes between its checks ends that work, reported, not the run (it was an internal error, and no report)', async (t) => {
  // The requests that provoke a service's own troubles (errors-internals.ts) read a record six times, outside any one check.
  const text = readFileSync(new URL('../../examples/helpdesk.yaml', import.meta.url), 'utf8').replace('      ticket.create: {limit: 5, window: 1m, scope: address}\n', '      ticket.create: {limit: 5, window: 1m, scope: address}\n      ticket.read: {limit: 2, window: 1m, scope: address}\n');
  const spec = mustLoad(text);
  assert.equal(spec.limits.rate?.overrides.find((o) => o.endpoint === 'ticket.read')?.limit, 2);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 5, sleep, now, waitBudgetMs: 0, clientAddresses: 'none', only: ['errors'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(report.results.find((r) => r.id === 'no-internals')?.outcome, 'pass', 'the error bodies the run has are judged');
});

test('conformance: without credentials, what needs them is not checked, naming the credential, never failed on its 401', async (t) => {
  // Walks ran the tester with no --credentials: "expected 422, got 401" failures, then states, lists and versions alike (25 on helpdesk).
  for (const name of ['library.yaml', 'helpdesk.yaml']) {
    const other = await exampleSpec(name);
    const served = await serveForTester(t, other);
    const all = await runConformance({ spec: other, baseUrl: served.baseUrl, principals: [], seed: 11, sleep: served.sleep, now: served.now });
    assert.equal(all.counts.fail, 0, `${name}:\n${formatHuman(all)}`);
    // Part 5's own checks of the 401 are still sent, without credentials on purpose.
    assert.ok(all.results.some((r) => r.id.endsWith('.no-credentials') && r.outcome === 'pass'), name);
  }
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals: [], seed: 11, sleep, now, only: ['resources'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const title = report.results.find((r) => r.id === 'book.title.required');
  assert.deepEqual([title?.outcome, title?.skipKind], ['skip', 'not-checked']);
  assert.match(title?.needs ?? '', /credential/);
});
