/**
 * Pages in a service's own shape (docs/format.md "Page shapes"), end to end over loopback: the
 * talks spec (fixtures/talks.yaml) paged as Lago pages, by number with `per_page`, the next page
 * and the count inside `meta` (members named by JSON Pointers, RFC 6901), and each talk list
 * naming its records `talks` (a list's own `page:`) where the conferences stay under `data`.
 *   - serve answers each list in its shape, nested members included;
 *   - export describes both shapes, nested;
 *   - the tester passes the reference service and fails one that answers talks under the part's `data`;
 *   - the proxy finds that page, and nothing in the reference's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { toOpenApi } from '../../src/export/openapi/index.ts';
import { startProxy } from '../../src/proxy/index.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const TALKS = readFileSync(new URL('./fixtures/talks.yaml', import.meta.url), 'utf8');
const OWN = '      page: {items: talks, next: /meta/next_page, total: /meta/total_count}\n';
const PAGED = TALKS
  .replace('  pagination: {style: cursor, defaultSize: 10, maxSize: 50, overMax: clamp}', '  pagination: {style: page, defaultSize: 10, maxSize: 50, overMax: clamp, params: {size: per_page}, body: {items: data, next: /meta/next_page, total: /meta/total_count}}')
  .replace('    list:\n      query:\n', `    list:\n${OWN}      query:\n`)
  .replace('      path: "/conferences/{conferenceId}/talks"\n    proposeTalk:', `      path: "/conferences/{conferenceId}/talks"\n${OWN}    proposeTalk:`);

function spec() {
  assert.equal(PAGED.match(/page: \{items: talks/g)?.length, 2, 'both talk lists state their own page');
  assert.match(PAGED, /style: page, .*\/meta\/total_count/);
  return mustLoad(PAGED);
}

async function get(baseUrl: string, headers: Record<string, string>, path: string) {
  const r = await fetch(`${baseUrl}${path}`, { headers });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

async function post(baseUrl: string, headers: Record<string, string>, path: string, body: unknown) {
  const r = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await r.json()) as Record<string, unknown>;
}

test("serve: each list pages in its own shape, the next page and the count inside 'meta'", async (t) => {
  const { baseUrl, principals } = await serveForTester(t, spec());
  const as = principals[0]!.headers;
  const conference = await post(baseUrl, as, '/conferences', { name: 'NodeConf', slug: 'nodeconf', startsOn: '2030-05-01', cfpClosesAt: '2030-03-01T00:00:00Z' });
  for (const title of ['Streams in depth', 'Workers in depth', 'Buffers in depth']) await post(baseUrl, as, '/talks', { conference: conference.id, speakerEmail: 'ada@example.com', title });
  const first = await get(baseUrl, as, '/talks?per_page=2&sort=title');
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.deepEqual(Object.keys(first.json), ['talks', 'meta']);
  assert.deepEqual(first.json.meta, { next_page: 2, total_count: 3 });
  assert.deepEqual((first.json.talks as { title: string }[]).map((x) => x.title), ['Buffers in depth', 'Streams in depth']);
  const last = await get(baseUrl, as, '/talks?per_page=2&sort=title&page=2');
  assert.deepEqual([(last.json.talks as { title: string }[]).map((x) => x.title), last.json.meta], [['Workers in depth'], { next_page: null, total_count: 3 }]);
  // The nested list states the same page; the conferences keep the part's.
  const nested = await get(baseUrl, as, `/conferences/${conference.id}/talks?per_page=1`);
  assert.deepEqual([Object.keys(nested.json), nested.json.meta], [['talks', 'meta'], { next_page: 2, total_count: 3 }]);
  const conferences = await get(baseUrl, as, '/conferences');
  assert.deepEqual([Object.keys(conferences.json), conferences.json.meta], [['data', 'meta'], { next_page: null, total_count: 1 }]);
});

test('export: each page shape is described, its pointer members nested', () => {
  const doc = toOpenApi(spec()).document as { components: { schemas: Record<string, { properties: Record<string, { properties?: Record<string, unknown>; required?: string[] }>; required: string[] }> } };
  const talks = doc.components.schemas.TalkListPage!;
  assert.deepEqual([Object.keys(talks.properties), talks.required], [['talks', 'meta'], ['talks', 'meta']]);
  assert.deepEqual([Object.keys(talks.properties.meta!.properties!), talks.properties.meta!.required], [['next_page', 'total_count'], ['next_page', 'total_count']]);
  assert.deepEqual(Object.keys(doc.components.schemas.ConferencePage!.properties), ['data', 'meta']);
});

test('conformance: the reference service passes, walking every list in its shape', async (t) => {
  const s = spec();
  const { baseUrl, principals, sleep, now } = await serveForTester(t, s);
  const report = await runConformance({ spec: s, baseUrl, principals, seed: 3, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const outcome = (id: string) => report.results.find((r) => r.id === id)?.outcome;
  for (const id of ['talk.listed', 'conference.listed', 'talk.list.sort.durationMinutes', 'talk.list.sort.-createdAt', 'talk.conferenceTalks.nested']) assert.equal(outcome(id), 'pass', `${id}:\n${formatHuman(report)}`);
});

/** The fault: the talk lists answer in the part's page (`data`), not their own (`talks`). */
function talksUnderData(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, _reply, payload) => (typeof payload === 'string' && payload.startsWith('{"talks":[') ? `{"data":${payload.slice('{"talks":'.length)}` : payload));
}

test("conformance and proxy: talk pages under the part's member instead of their own are found", async (t) => {
  const s = spec();
  const bad = await serveForTester(t, s, talksUnderData);
  const report = await runConformance({ spec: s, baseUrl: bad.baseUrl, principals: bad.principals, seed: 3, sleep: bad.sleep, now: bad.now, only: ['resources'] });
  const listed = report.results.find((r) => r.id === 'talk.listed');
  assert.equal(listed?.outcome, 'fail', formatHuman(report));
  assert.match(listed.message ?? '', /the page has no 'talks' list/);
  assert.equal(report.results.find((r) => r.id === 'conference.listed')?.outcome, 'pass');

  const proxy = await startProxy({ spec: s, upstream: bad.baseUrl });
  t.after(() => proxy.close());
  const as = bad.principals[0]!.headers;
  await get(proxy.url, as, '/conferences');
  await get(proxy.url, as, '/talks');
  const shape = proxy.findings.filter((f) => f.id === 'page-shape');
  assert.deepEqual(shape.map((f) => f.message), ["talk.list: the page has no 'talks' list"]);
  // Pointed at the list's own page, where the broken promise is stated (review).
  assert.deepEqual(shape.map((f) => [f.rule.pointer, f.rule.location?.line]), [['/endpoints/talk/list/page', PAGED.split('\n').findIndex((l) => l.includes('page: {items: talks')) + 1]]);

  // The reference through a proxy: its pages give no finding.
  const good = await serveForTester(t, s);
  const clean = await startProxy({ spec: s, upstream: good.baseUrl });
  t.after(() => clean.close());
  await runConformance({ spec: s, baseUrl: clean.url, principals: good.principals, seed: 4, sleep: good.sleep, now: good.now, only: ['resources', 'endpoints', 'limits'] });
  assert.deepEqual(clean.findings.filter((f) => f.part === 'limits' || /page/.test(f.id)).map((f) => f.message), []);
});

test("a list's own page holds with no pagination part: the tester and the proxy read it, and find it broken", async (t) => {
  // The part left out: the talks list still states its page, so a page in another shape is a failure, not "unreadable".
  const s = mustLoad(PAGED.replace(/  pagination: \{style: page.*\n/, ''));
  assert.equal(s.limits.pagination, undefined);
  const bad = await serveForTester(t, s, talksUnderData);
  const report = await runConformance({ spec: s, baseUrl: bad.baseUrl, principals: bad.principals, seed: 5, sleep: bad.sleep, now: bad.now, only: ['resources'] });
  assert.equal(report.results.find((r) => r.id === 'talk.listed')?.outcome, 'fail', formatHuman(report));
  const proxy = await startProxy({ spec: s, upstream: bad.baseUrl });
  t.after(() => proxy.close());
  await get(proxy.url, bad.principals[0]!.headers, '/talks');
  assert.deepEqual(proxy.findings.filter((f) => f.id === 'page-shape').map((f) => f.rule.pointer), ['/endpoints/talk/list/page']);
});
