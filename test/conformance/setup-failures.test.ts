/**
 * What one defect of a create does to a run: it is reported once, where it belongs, and the
 * checks it stood in front of run on the record it made, or are counted as not checked,
 * naming it; never failed for it again, never dropped from the report. And bounds on pages
 * are checked against a list longer than the bound, so a short list cannot pass for one kept.
 * (Found by a new user's walk: a create answering 200 for 201 showed as six failures under
 * unrelated titles and hid eleven checks; a service ignoring page sizes passed both.)
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { runConformance, type CheckResult } from '../../src/conformance/index.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';
import { exampleSpec } from '../serve/support/open-app.ts';

const TODO = mustLoad(`
svcspec: 1
purpose:
  name: Todo
  summary: Keeps a list of todos.
  users: [{name: user, tasks: [Add todos, Close todos]}]
resources:
  todo:
    plural: todos
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, minimum: 1, readOnly: true}
      title: {type: string, minLength: 1, maxLength: 100, required: true}
      priority: {type: integer, minimum: 1, maximum: 5, default: 3}
      status: {type: string, enum: [open, done], readOnly: true}
states:
  todo:
    field: status
    initial: open
    transitions:
      finish: {from: open, to: done}
endpoints:
  todo: [create, read, update, delete, list, finish]
authentication: {none: Open to everyone on the internal network.}
events: {none: No events.}
errors:
  shape: problem
  catalog:
    malformed-body: {status: 400, title: Malformed body}
    not-found: {status: 404, title: Not found}
    method-not-allowed: {status: 405, title: Method not allowed}
    invalid-transition: {status: 409, title: Invalid transition}
    payload-too-large: {status: 413, title: Too large}
    unsupported-media-type: {status: 415, title: Unsupported media type}
    validation-failed: {status: 422, title: Validation failed}
limits:
  body: {maxSize: 16KiB}
  pagination: {style: offset, defaultSize: 10, maxSize: 50, overMax: clamp}
  conditional: {none: No validators.}
  idempotency: {none: No idempotency keys.}
  rate: {none: No rate limits.}
  timeouts: {none: None.}
versioning: {none: One version only.}
`);

const titled = (results: readonly CheckResult[], pattern: RegExp) => results.filter((r) => pattern.test(r.title));

test('a create that answers 200 for its declared 201: one failure, of part 4, whichever check met it; every check runs on the record it made', async (t) => {
  const { baseUrl, principals } = await serveForTester(t, TODO, (app) => {
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method === 'POST' && request.url === '/todos' && reply.statusCode === 201) reply.code(200);
      return payload;
    });
  });
  // Reported whether or not part 2 runs: a run of the states alone meets it too.
  for (const only of [undefined, ['states' as const]]) {
    const report = await runConformance({ spec: TODO, baseUrl, principals, seed: 3, ...(only ? { only } : {}) });
    const failed = report.results.filter((r) => r.outcome === 'fail');
    assert.deepEqual(failed.map((r) => `${r.part}: ${r.title}`), ['endpoints: todo.create answers a success status it declares'], failed.map((r) => `${r.title}: ${r.message}`).join('\n'));
    assert.match(failed[0]!.message!, /todo\.create answered 200; the spec declares 201/);
    assert.equal(report.verdict, 'fail');
  }
  const report = await runConformance({ spec: TODO, baseUrl, principals, seed: 3 });
  assert.equal(titled(report.results, /todo: a valid create is accepted/)[0]?.outcome, 'pass');
  // The checks behind it ran, and pass: the refusals of part 2, the states' walk, the update.
  assert.ok(titled(report.results, /todo\.title: a value breaking/).length >= 3);
  assert.ok(titled(report.results, /todo\.title: a value breaking/).every((r) => r.outcome === 'pass'));
  assert.equal(titled(report.results, /finish from 'open' moves it to 'done'/)[0]?.outcome, 'pass');
  assert.equal(titled(report.results, /todo: update \(PATCH\) changes the record/)[0]?.outcome, 'pass');
  assert.equal(report.counts.notChecked, 0);
});

test('a create refused for every valid body: reported once; each check that needs a record is not checked, naming it; none dropped', async (t) => {
  const { baseUrl, principals } = await serveForTester(t, TODO, (app) => {
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method === 'POST' && request.url === '/todos' && reply.statusCode === 201) {
        reply.code(503).header('content-type', 'application/problem+json');
        return JSON.stringify({ type: 'about:blank', title: 'Unavailable', status: 503 });
      }
      return payload;
    });
  });
  const baseline = await (async () => {
    const ok = await serveForTester(t, TODO);
    return runConformance({ spec: TODO, baseUrl: ok.baseUrl, principals: ok.principals, seed: 3 });
  })();
  const report = await runConformance({ spec: TODO, baseUrl, principals, seed: 3 });
  const refused = report.results.filter((r) => r.outcome === 'fail' && /creating a todo with a valid body was refused \(503\)/.test(r.message ?? ''));
  assert.equal(refused.length, 1, report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.title}: ${r.message}`).join('\n'));
  const blocked = report.results.filter((r) => r.outcome === 'skip' && r.skipKind === 'not-checked');
  assert.ok(blocked.length >= 5, `only ${blocked.length} not checked`);
  assert.ok(blocked.every((r) => /needs a todo made by its create/.test(r.message ?? '')), blocked.map((r) => r.message).join('\n'));
  // The refusals of bad bodies need no record: they ran, and pass.
  assert.ok(titled(report.results, /todo\.priority: a value breaking 'maximum'/).every((r) => r.outcome === 'pass'));
  // Every check of the faithful run is in the report of the broken one, in one outcome or another.
  const ids = new Set(report.results.map((r) => r.id));
  assert.deepEqual(baseline.results.map((r) => r.id).filter((id) => !ids.has(id)), []);
  assert.equal(report.counts.notChecked, blocked.length);
});

for (const held of [0, 10]) test(`a service that ignores page sizes, holding ${held} records: the default and the maximum page size fail, on a list made longer than them`, async (t) => {
  // Written by hand, not svcspec's service: every todo on every page, whatever the size asked.
  // Holding exactly the default (10), a page of 10 shows no bound kept: one more record is made.
  const todos = new Map<number, Record<string, unknown>>();
  let seq = 0;
  for (; seq < held;) todos.set(++seq, { id: seq, title: 'there before', priority: 3, status: 'open' });
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c)).on('end', () => {
      const send = (status: number, body?: unknown) => {
        res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
        res.end(body === undefined ? undefined : JSON.stringify(body));
      };
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/todos' && req.method === 'GET') return send(200, { items: [...todos.values()], offset: 0, next: null });
      if (url.pathname === '/todos' && req.method === 'POST') {
        const body = JSON.parse(raw || '{}') as Record<string, unknown>;
        const todo = { id: ++seq, title: body.title, priority: body.priority ?? 3, status: 'open' };
        todos.set(todo.id, todo);
        return send(201, todo);
      }
      send(404, { type: 'about:blank', title: 'Not found', status: 404, code: 'not-found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  const report = await runConformance({ spec: TODO, baseUrl: `http://127.0.0.1:${port}`, principals: [], seed: 3, only: ['limits'] });
  const bySize = (pattern: RegExp) => titled(report.results, pattern)[0];
  assert.equal(bySize(/a page without a size holds at most 10/)?.outcome, 'fail');
  assert.match(bySize(/a page without a size holds at most 10/)!.message!, /a page holds (1[1-9]|[2-9]\d) items; the default size is 10/);
  assert.equal(bySize(/a size above the maximum 50 is clamped/)?.outcome, 'fail');
  assert.match(bySize(/a size above the maximum 50 is clamped/)!.message!, /a page holds \d+ items; the maximum is 50/);
});

test('a failed create becomes "not checked" only after one alike was recorded as a failure; one a caller turned into a skip silences nothing', async () => {
  const { CreateFailures } = await import('../../src/conformance/created.ts');
  const { Failure, Skip } = await import('../../src/conformance/context.ts');
  const failures = new CreateFailures();
  const first = failures.failed('todo', '500 ', 'refused (500)');
  assert.ok(first instanceof Failure);
  // Not recorded (a rules scene made a skip of it): the next one alike is still a failure.
  const second = failures.failed('todo', '500 ', 'refused (500)');
  assert.ok(second instanceof Failure);
  (second as InstanceType<typeof Failure>).onRecorded?.();
  assert.ok(failures.failed('todo', '500 ', 'refused (500)') instanceof Skip);
  // Another status, or another error code with the same status, is another defect.
  assert.ok(failures.failed('todo', '400 malformed-body', 'refused (400)') instanceof Failure);
  assert.ok(failures.failed('note', '500 ', 'refused (500)') instanceof Failure);
});

const BOOKINGS = mustLoad(`
svcspec: 1
purpose:
  name: Bookings
  summary: Books seats; a booking is read through an action the document describes in prose.
  users: [{name: traveller, tasks: [Book a seat]}]
resources:
  booking:
    plural: bookings
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      seat: {type: string, minLength: 1, maxLength: 5, required: true}
states: {none: No life cycle.}
endpoints:
  booking:
    create:
      responses: {"201": {body: none}}
    getBooking:
      operation: action
      method: GET
      path: /bookings/{id}
      behaviour: Answers the booking with its hypermedia links.
    delete: {}
authentication: {none: Open.}
events: {none: No events.}
errors:
  shape: problem
  catalog:
    malformed-body: {status: 400, title: Malformed body}
    not-found: {status: 404, title: Not found}
    method-not-allowed: {status: 405, title: Method not allowed}
    payload-too-large: {status: 413, title: Too large}
    unsupported-media-type: {status: 415, title: Unsupported media type}
    validation-failed: {status: 422, title: Validation failed}
    not-implemented: {status: 501, title: Not implemented}
limits:
  body: {maxSize: 16KiB}
  conditional: {none: No validators.}
  idempotency: {none: No idempotency keys.}
  rate: {none: No rate limits.}
  timeouts: {none: None.}
versioning: {none: One version only.}
`);

test('a create answering no body whose Location is served by a prose action (501): not checked, not failed; its records are cleaned up all the same', async (t) => {
  // Found importing Bump.sh's Train Travel API: a 201 without a body, and GET /bookings/{id} an action in prose.
  const created: string[] = [];
  const deleted: string[] = [];
  const { baseUrl, principals } = await serveForTester(t, BOOKINGS, (app) => {
    app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'POST' && reply.statusCode === 201) created.push(String(reply.getHeader('location')));
      if (request.method === 'DELETE' && reply.statusCode < 300) deleted.push(request.url);
    });
  });
  const report = await runConformance({ spec: BOOKINGS, baseUrl, principals, seed: 3 });
  assert.equal(report.counts.fail, 0, report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.title}: ${r.message}`).join('\n'));
  const create = titled(report.results, /booking: a valid create is accepted/)[0];
  assert.equal(create?.outcome, 'skip');
  assert.match(create?.message ?? '', /reading it at its Location \/bookings\/[0-9a-f-]+ answers 501 \(not implemented\)/);
  // What it made was deleted by the clean-up, by the Location's id; none is left.
  assert.ok(created.length >= 1);
  for (const location of created) assert.ok(deleted.includes(location), `${location} deleted: ${deleted.join(', ')}`);
  assert.deepEqual(report.left, {});
});

test('a service that refuses the receiver\'s private URL (its SSRF guard, as svcspec serve without --allow-private-webhooks): webhooks not checked, saying how to allow it; no failure', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, undefined, { allowPrivateWebhooks: false });
  const report = await runConformance({ spec, baseUrl, principals, seed: 3, sleep, now, only: ['events'], events: { timeoutMs: 2000 } });
  assert.equal(report.counts.fail, 0, report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.title}: ${r.message}`).join('\n'));
  const subscribe = report.results.find((r) => r.id === 'webhooks.subscribe');
  assert.equal(subscribe?.outcome, 'skip');
  assert.equal(subscribe?.skipKind, 'not-checked');
  assert.match(subscribe?.message ?? '', /refuses the receiver's private URL http:\/\/127\.0\.0\.1:\d+\/\S* \(422\).*serve --allow-private-webhooks/);
});

test('a list answering its pages as text/plain: one failure, of part 4, whichever check walked it first; the checks that walk it are not checked, naming it', async (t) => {
  // Found by a new user's walk: one content-type defect showed as three failures under the delete, the walk and the page size.
  const { baseUrl, principals } = await serveForTester(t, TODO, (app) => {
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method === 'GET' && /^\/todos(\?|$)/.test(request.url) && reply.statusCode === 200) reply.header('content-type', 'text/plain');
      return payload;
    });
  });
  const report = await runConformance({ spec: TODO, baseUrl, principals, seed: 3 });
  const failed = report.results.filter((r) => r.outcome === 'fail');
  assert.deepEqual(failed.map((r) => `${r.part}: ${r.id}`), ['endpoints: todo.list.content-type'], failed.map((r) => `${r.title}: ${r.message}`).join('\n'));
  assert.match(failed[0]!.message!, /todo\.list answered with content type 'text\/plain', not JSON/);
  const named = report.results.filter((r) => r.outcome === 'skip' && /reported under part 4, 'todo\.list answers its successes in JSON'/.test(r.message ?? ''));
  assert.ok(named.length >= 2, `${named.length} checks name it`);
});

test('what counts as a private receiver URL (the SSRF case above): loopback, private, shared and link-local addresses, IPv4 mapped into IPv6, and names that resolve to them', async () => {
  const { isPrivateUrl } = await import('../../src/conformance/parts/events-webhooks.ts');
  for (const url of ['http://127.0.0.1:9/', 'http://[::1]:9/', 'http://[::ffff:127.0.0.1]:9/', 'http://10.1.2.3/', 'http://172.20.0.5/', 'http://192.168.1.1/', 'http://100.64.0.1/', 'http://169.254.169.254/', 'http://localhost:9/', 'http://[fd00::1]/']) {
    assert.equal(await isPrivateUrl(url), true, url);
  }
  for (const url of ['http://8.8.8.8/', 'http://172.32.0.1/', 'http://100.128.0.1/', 'http://[2001:db8::1]/']) assert.equal(await isPrivateUrl(url), false, url);
});

test('a create answering no body whose Location is a declared read answering 501: the create fails, the read being the spec\'s to serve', async (t) => {
  const { baseUrl, principals } = await serveForTester(t, TODO, (app) => {
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method === 'POST' && request.url === '/todos' && reply.statusCode === 201) {
        reply.removeHeader('content-type');
        return '';
      }
      if (request.method === 'GET' && /^\/todos\/\d+$/.test(request.url)) {
        reply.code(501).header('content-type', 'application/problem+json');
        return JSON.stringify({ type: 'about:blank', title: 'Not implemented', status: 501 });
      }
      return payload;
    });
  });
  const report = await runConformance({ spec: TODO, baseUrl, principals, seed: 3, only: ['resources'] });
  const create = titled(report.results, /todo: a valid create is accepted/)[0];
  assert.equal(create?.outcome, 'fail', `${create?.outcome}: ${create?.message}`);
  assert.match(create?.message ?? '', /created at \/todos\/\d+ cannot be read there \(501\)/);
});
