/**
 * The judge as a value: exchanges in, findings out (what `svcspec proxy --replay` does with a
 * record). The rules across exchanges that a conformance run seldom provokes from a correct
 * service, each shown by a short exchange history: a transition from a state it does not
 * start from, a read after a delete, an owned record reaching another principal, a retired
 * version answering 2xx, a 429 while the quota said requests remained, a page walk meeting
 * a record twice. And the same history, told correctly, finds nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Exchange } from '../../src/conformance/http.ts';
import { replay } from '../../src/proxy/index.ts';
import { pathOf } from '../../src/proxy/judge.ts';
import { mustLoad } from '../support/spec.ts';

const SPEC = mustLoad(readFileSync(new URL('./fixtures/tasks.yaml', import.meta.url), 'utf8'));

let clock = 1_700_000_000_000;
function ex(method: string, path: string, status: number, body: unknown, options: { key?: string; send?: unknown; headers?: Record<string, string> } = {}): Exchange {
  const at = (clock += 10);
  const text = body === undefined ? '' : JSON.stringify(body);
  const remaining = options.headers?.ratelimit;
  return {
    request: { method, url: `http://svc${path}`, headers: { 'x-key': options.key ?? 'key-of-ann', ...(options.send !== undefined ? { 'content-type': 'application/json' } : {}), ...(options.headers?.['api-version'] ? { 'api-version': options.headers['api-version'] } : {}) }, ...(options.send !== undefined ? { body: JSON.stringify(options.send) } : {}) },
    response: { status, headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', 'ratelimit-policy': '"default";q=10;w=60', ...(remaining ? { ratelimit: remaining } : {}), ...(options.headers?.['retry-after'] ? { 'retry-after': options.headers['retry-after'] } : {}) }, text, json: body },
    ms: 1,
    at,
  };
}
const task = (id: number, status: string) => ({ id, title: 't', status });
const notFound = { type: 'about:blank', title: 'Not found', status: 404, code: 'not-found' };
const ids = (history: Exchange[]) => replay(SPEC, history).findings.map((f) => `${f.part}/${f.id}#${f.seq}`);

test('judge: a history the spec allows has no findings', () => {
  assert.deepEqual(ids([
    ex('POST', '/tasks', 201, task(1, 'open'), { send: { title: 't' } }),
    ex('POST', '/tasks/1/finish', 200, task(1, 'done')),
    ex('DELETE', '/tasks/1', 204, undefined),
    ex('GET', '/tasks/1', 404, notFound),
    ex('GET', '/tasks/1', 404, notFound, { key: 'key-of-bob' }),
  ]), []);
});

test('judge: a transition from a state it does not start from, answered 2xx', () => {
  assert.deepEqual(ids([
    ex('POST', '/tasks', 201, task(1, 'open'), { send: { title: 't' } }),
    ex('POST', '/tasks/1/finish', 200, task(1, 'done')),
    ex('POST', '/tasks/1/finish', 200, task(1, 'open')),
  ]), ['states/illegal-transition#3', 'states/transition-target#3']);
});

test('judge: a record read after its delete, an owned record reaching another principal', () => {
  assert.deepEqual(ids([
    ex('POST', '/tasks', 201, task(1, 'open'), { send: { title: 't' } }),
    ex('GET', '/tasks/1', 200, task(1, 'open'), { key: 'key-of-bob' }),
    ex('GET', '/tasks', 200, { items: [task(1, 'open')], next: null }, { key: 'key-of-bob' }),
    ex('DELETE', '/tasks/1', 204, undefined),
    ex('GET', '/tasks/1', 200, task(1, 'open')),
  ]), ['authentication/owner-leak#2', 'authentication/owner-leak#3', 'resources/read-after-delete#5']);
});

test('judge: a retired version answering 2xx, a request without a credential served, a body the spec refuses served', () => {
  const found = replay(SPEC, [
    ex('GET', '/tasks', 200, { items: [], next: null }, { headers: { 'api-version': '1' } }),
    { ...ex('GET', '/tasks', 200, { items: [], next: null }), request: { method: 'GET', url: 'http://svc/tasks', headers: {} } },
    ex('POST', '/tasks', 201, task(2, 'open'), { send: { title: 'a title far longer than twenty' } }),
  ]).findings;
  assert.deepEqual(found.map((f) => `${f.part}/${f.id}#${f.seq}`), ['versioning/accepted-version-retired#1', 'authentication/accepted-credential-missing#2', 'resources/accepted-request-invalid#3']);
  assert.match(found[2].message, /\/title has 30 characters, more than 20/);
  assert.equal(found[2].rule.location?.line, 12, 'the rule is the field, at its line of the spec (fixtures/tasks.yaml)');
});

test('judge: a 429 while the quota said requests remained; the remaining quota growing within a window', () => {
  assert.deepEqual(ids([
    ex('GET', '/tasks', 200, { items: [], next: null }, { headers: { ratelimit: '"default";r=5;t=50' } }),
    ex('GET', '/tasks', 429, { type: 'about:blank', title: 'Too many requests', status: 429, code: 'rate-limited' }, { headers: { 'retry-after': '50' } }),
    ex('GET', '/tasks', 200, { items: [], next: null }, { headers: { ratelimit: '"default";r=8;t=50' } }),
  ]), ['limits/rate-early-429#2', 'limits/rate-remaining#3']);
});

test('judge: a walk through the pages meets a record twice', () => {
  assert.deepEqual(ids([
    ex('GET', '/tasks', 200, { items: [task(1, 'open'), task(2, 'open')], next: 'c2' }),
    ex('GET', '/tasks?cursor=c2', 200, { items: [task(2, 'open'), task(3, 'open')], next: null }),
  ]), ['limits/page-repeat#2']);
});

test('judge: a page holding more records than the size asked, the default, or the maximum a larger size is clamped to', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => task(i + 1, 'open'));
  const p = SPEC.limits.pagination!;
  assert.deepEqual(ids([
    ex('GET', '/tasks', 200, { items: many(p.defaultSize!), next: null }),
    ex('GET', '/tasks?limit=2', 200, { items: many(2), next: 'c2' }),
    ex('GET', '/tasks', 200, { items: many(p.defaultSize! + 1), next: null }),
    ex('GET', '/tasks?limit=2', 200, { items: many(3), next: null }),
    ex('GET', `/tasks?limit=${p.maxSize! + 5}`, 200, { items: many(p.maxSize! + 1), next: null }),
  ]), ['limits/page-size#3', 'limits/page-size#4', 'limits/page-size#5']);
  // Where the request leaves doubt, nothing is judged: a later page (its cursor may carry the size
  // first asked), a size under another name, a size given twice or not as a plain whole number.
  for (const query of ['?cursor=c2', '?per_page=5', '?limit=2&limit=9', '?limit=0x10', '?limit=1e1']) {
    assert.deepEqual(ids([ex('GET', `/tasks${query}`, 200, { items: many(p.maxSize! + 3), next: null })]).filter((f) => f.startsWith('limits/page-size')), [], query);
  }
  const found = replay(SPEC, [ex('GET', '/tasks', 200, { items: many(p.defaultSize! + 1), next: null })]).findings[0]!;
  assert.match(found.message, new RegExp(`a page of ${p.defaultSize! + 1} records, where no size was asked and the default is ${p.defaultSize!}`));
});

test('judge: the path of a request URL is what URL parsing makes of it, on the fast path and off it', () => {
  const parsed = (url: string) => {
    try {
      const u = new URL(url);
      return `${u.pathname}${u.search}`;
    } catch {
      return url;
    }
  };
  const urls = [
    'http://127.0.0.1:3000/tasks/7?expand=owner&limit=20', 'http://127.0.0.1:3000', 'http://127.0.0.1:3000/', 'http://h?x=1', 'http://h/a?',
    'http://h/a/./b', 'http://h/a/../b', 'http://h/a/%2E%2e/b', 'http://h/a/.', 'http://h/a.b/c..d?x=./y', "http://h/a?q='x'", 'http://h/a b', 'http://h/é',
    'http://h:99999/a', 'http://1.2.3.999/a', 'HTTP://h/a', 'http://u@h:8080/a%zz?b=%', '/tasks?x=1',
  ];
  for (const url of urls) assert.equal(pathOf(url), parsed(url), url);
});

test('the router: of templates with as many parameters, the one with more fixed text is the path (/items/{id}:archive, not /items/{id})', async () => {
  const { Router } = await import('../../src/proxy/route.ts');
  const spec = mustLoad(`svcspec: 1
purpose: {name: Items, summary: Keeps items., users: [{name: a, tasks: [b]}]}
resources:
  item: {plural: items, fields: {id: {type: string, readOnly: true}, name: {type: string}}}
states: {none: No life cycle.}
endpoints:
  item:
    read: {}
    archive: {operation: action, method: POST, path: "/items/{id}:archive", behaviour: Archives it.}
    verb: {operation: action, method: POST, path: "/items/{id}:{verb}", behaviour: Any verb.}
    search: {operation: action, method: POST, path: "/items/search", behaviour: Searches.}
authentication: {none: Open.}
events: {none: None.}
errors: {shape: problem, catalog: {not-found: {status: 404, title: Not found}}}
limits: {none: None.}
versioning: {none: One.}
`);
  const router = new Router(spec);
  assert.equal(router.route('POST', '/items/7:archive').endpoint?.id, 'item.archive');
  assert.deepEqual(router.route('POST', '/items/7:archive').params, { id: '7' });
  assert.equal(router.route('GET', '/items/7').endpoint?.id, 'item.read');
  // Segment by segment, as the router of a service picks: fixed text beside a parameter before a parameter alone.
  assert.equal(router.route('POST', '/items/7:go').endpoint?.id, 'item.verb');
  assert.equal(router.route('POST', '/items/search').endpoint?.id, 'item.search');
});

test('judge: the records of an answer, each member of its declared type and enum, never null where not nullable', () => {
  const judged = replay(SPEC, [
    ex('GET', '/tasks', 200, { items: [task(1, 'open'), { id: 2, title: 3, status: 'open' }, { id: 3, title: 't', status: 'gone' }, { id: 4, title: null, status: 'done' }], next: null }),
    ex('GET', '/tasks/5', 200, { id: 5, title: 't', status: 'done' }),
  ]).findings.filter((f) => f.id !== 'page-size'); // four records on a page of at most two: a finding of its own (below)
  assert.deepEqual(judged.map((f) => `${f.part}/${f.id}#${f.seq}`), ['resources/record-value#1', 'resources/record-value#1', 'resources/record-value#1']);
  assert.deepEqual(judged.map((f) => f.message.replace(/^\S+ /, '')), ['/items/1/title is 3, not a string', '/items/2/status is "gone", not one of "open", "done"', '/items/3/title is null, which it does not allow']);
  assert.deepEqual(judged.map((f) => f.rule.text), ['task.title: type string', 'task.status: enum [open, done]', 'task.title: not nullable']);
});

test('judge: a body over the declared size limit is refused by the spec (served, a finding), and not judged further; the safety default is no rule', () => {
  const text = readFileSync(new URL('./fixtures/tasks.yaml', import.meta.url), 'utf8');
  const limited = mustLoad(text.replace('limits:\n', 'limits:\n  body: {maxSize: 1KiB}\n'));
  const big = { title: 'é'.repeat(600) }; // 600 characters, 1,200 bytes of UTF-8 and more
  const history = [ex('POST', '/tasks', 201, task(1, 'open'), { send: big })];
  assert.deepEqual(replay(limited, history).findings.map((f) => `${f.part}/${f.id}`), ['limits/accepted-payload-too-large']);
  // The spec silent: only the field's own rule (maxLength 20) is broken.
  assert.deepEqual(replay(SPEC, history).findings.map((f) => `${f.part}/${f.id}`), ['resources/accepted-request-invalid']);
  // A request whose body the proxy did not hold, over a declared limit: refused for its size alone.
  const judge = replay(limited, []).judge;
  const { body: _unheld, ...request } = history[0].request;
  assert.deepEqual(judge.arrive(request, true).problems.map((p) => p.id), ['payload-too-large']);
  assert.deepEqual(replay(SPEC, []).judge.arrive(request, true).problems, []);
});

test('judge: a body is sized by its bytes as they came (not its text), and a type the service reads no body of is 415 before any size', () => {
  const text = readFileSync(new URL('./fixtures/tasks.yaml', import.meta.url), 'utf8');
  const judge = replay(mustLoad(text.replace('limits:\n', 'limits:\n  body: {maxSize: 1KiB}\n')), []).judge;
  // What the body brings (the requests carry no credential, which is beside the point here).
  const ids = (request: Parameters<typeof judge.arrive>[0], unheld: boolean, bytes?: number) => judge.arrive(request, unheld, bytes).problems.filter((p) => p.part !== 'authentication').map((p) => p.situation);
  // 500 bytes that are not UTF-8: their text is 500 U+FFFD, 1,500 bytes once encoded again.
  const garbled = { method: 'POST', url: 'http://upstream/tasks', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(500, 0xff).toString('utf8') };
  assert.deepEqual(ids(garbled, false, 500), ['malformed-body'], 'within the limit: malformed, as the service answers it (400)');
  assert.deepEqual(ids(garbled, false, 2000), ['payload-too-large']);
  // Over the limit and not JSON by its type: 415, as a service that finds no parser for the type answers it.
  const plain = { method: 'POST', url: 'http://upstream/tasks', headers: { 'content-type': 'text/plain' } };
  assert.deepEqual(ids(plain, true), ['unsupported-media-type']);
  assert.deepEqual(ids({ ...plain, headers: { 'content-type': 'application/json' } }, true), ['payload-too-large']);
});

test('judge: an answer whose body was too large to keep is judged by its status and fields alone', () => {
  const judge = replay(SPEC, []).judge;
  const read = ex('GET', '/tasks/1', 200, undefined);
  assert.deepEqual(judge.answer(judge.arrive(read.request), read, true).map((f) => f.id), []);
  assert.deepEqual(judge.answer(judge.arrive(read.request), read).map((f) => f.id), ['record-shape']);
});

test('judge: a page in another shape is a finding only where the spec states its pagination (otherwise svcspec\'s page is the runtime\'s default, as the tester holds it)', () => {
  const stated = replay(SPEC, [ex('GET', '/tasks', 200, { tasks: [] })]).findings.map((f) => `${f.part}/${f.id}`);
  assert.ok(stated.includes('endpoints/page-shape'), stated.join(', '));
  const unstated = mustLoad(readFileSync(new URL('./fixtures/tasks.yaml', import.meta.url), 'utf8').replace(/\n  pagination:.*\n/, '\n'));
  assert.equal(unstated.limits.pagination, undefined);
  assert.deepEqual(replay(unstated, [ex('GET', '/tasks', 200, { tasks: [] })]).findings.map((f) => `${f.part}/${f.id}`), []);
});

test("judge: a create's Location naming another record, or no endpoint, is found; the record's own path, an absolute URL to it, and none at all are not", () => {
  const created = (location: string | undefined) => {
    const e = ex('POST', '/tasks', 201, task(7, 'open'), { send: { title: 't' } });
    return location === undefined ? e : { ...e, response: { ...e.response, headers: { ...e.response.headers, location } } };
  };
  const found = (location: string | undefined) => replay(SPEC, [created(location)]).findings.filter((f) => f.id === 'location').map((f) => f.message);
  assert.deepEqual(found('/tasks/7'), []);
  assert.deepEqual(found('http://svc/tasks/7'), []);
  assert.deepEqual(found(undefined), []);
  // Another host: not the spec's to judge.
  assert.deepEqual(found('https://elsewhere.example/x/7'), []);
  assert.match(found('/tasks/8')[0] ?? '', /names task '8'; the create made '7'/);
  assert.match(found('/task/7')[0] ?? '', /which no GET endpoint of the spec serves/);
});

test('judge: where the spec leaves its page sizes unsaid, no page is held to the runtime bound that stands in for them', () => {
  const text = readFileSync(new URL('./fixtures/tasks.yaml', import.meta.url), 'utf8');
  const unsaid = mustLoad(text.replace(/pagination: \{[^}]*\}/, (m) => m.replace(/,?\s*defaultSize: \d+/, '').replace(/,?\s*maxSize: \d+/, '').replace(/,?\s*overMax: \w+/, '')));
  assert.equal(unsaid.limits.pagination?.defaultSize, undefined);
  const page = ex('GET', '/tasks', 200, { items: Array.from({ length: 150 }, (_, i) => task(i + 1, 'open')), next: null });
  assert.deepEqual(replay(unsaid, [page]).findings.filter((f) => f.id === 'page-size'), []);
  // The size a client asks for still bounds its page.
  const asked = ex('GET', '/tasks?limit=5', 200, { items: Array.from({ length: 6 }, (_, i) => task(i + 1, 'open')), next: null });
  assert.equal(replay(unsaid, [asked]).findings.filter((f) => f.id === 'page-size').length, 1);
  // Stated, the same page is found too large.
  assert.equal(replay(SPEC, [page]).findings.filter((f) => f.id === 'page-size').length, 1);
});

test("judge: a create's Location is not judged where no read addresses the record (serve then names its update or delete path, no GET)", () => {
  const text = readFileSync(new URL('./fixtures/tasks.yaml', import.meta.url), 'utf8');
  const noRead = mustLoad(text.replace('task: [create, read, delete, list, finish]', 'task: [create, delete, list, finish]'));
  assert.equal(noRead.endpoints.some((e) => e.operation === 'read'), false);
  const e = ex('POST', '/tasks', 201, task(7, 'open'), { send: { title: 't' } });
  const created = { ...e, response: { ...e.response, headers: { ...e.response.headers, location: '/tasks/7' } } };
  assert.deepEqual(replay(noRead, [created]).findings.filter((f) => f.id === 'location'), []);
});
