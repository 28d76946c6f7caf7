/** The checker as a whole: part status, verdicts, safety defaults, exit codes, the examples. */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkFile, checkSpec, exitCodeOf } from '../../src/check/index.ts';
import { load } from '../support/spec.ts';

const check = (text: string) => {
  const { spec, diagnostics } = load(text);
  return checkSpec(spec, diagnostics);
};
const examples = new URL('../../examples/', import.meta.url).pathname;
const SEED = new URL('../../../shared/seeds/000_a7ef063def403b81.txt', import.meta.url).pathname;

for (const name of readdirSync(examples).filter((f) => f.endsWith('.yaml') && f !== 'empty.yaml')) {
  test(`examples/${name}: complete, consistent, buildable and testable`, async () => {
    const report = await checkFile(join(examples, name));
    // Notes (info) are for builders: a prose action's, say; nothing else may be found.
    assert.deepEqual(report.diagnostics.filter((d) => d.severity !== 'info').map((d) => `${d.code} ${d.message}`), []);
    // Every part complete, or stated as not applying (json-server.yaml: no states, no authentication…).
    assert.deepEqual(report.parts.filter((p) => p.status !== 'complete' && p.status !== 'none').map((p) => p.name), []);
    assert.equal(report.builder.ok, true);
    assert.equal(report.tester.ok, true);
    assert.equal(exitCodeOf(report), 0);
  });
}

test('examples/empty.yaml: nine gaps, exit 1, and 0 with --allow-gaps', async () => {
  const report = await checkFile(join(examples, 'empty.yaml'));
  assert.equal(report.counts.gaps, 9);
  assert.equal(exitCodeOf(report), 1);
  assert.equal(exitCodeOf(report, { allowGaps: true }), 0);
  assert.equal(report.builder.reason, 'A builder has nothing to implement: every part is not shown.');
});

test('the founding document: nine gaps; neither a builder nor a tester can work from it', { skip: !safeExists(SEED) && 'founding document not beside the repo' }, async () => {
  const report = await checkFile(SEED);
  assert.equal(report.loaded, true);
  assert.equal(report.counts.errors, 0);
  assert.deepEqual(report.parts.map((p) => p.status), Array(9).fill('gap'));
  assert.match(report.builder.reason, /A builder has nothing to implement/);
  assert.match(report.tester.reason, /A tester has nothing to check/);
  assert.equal(report.builder.ok, false);
  assert.equal(report.tester.ok, false);
});

test('partial parts name what they do not say', () => {
  const report = check('svcspec: 1\npurpose: { name: X }\nresources:\n  book:\n    fields: { title: string }\n');
  const purpose = report.parts.find((p) => p.name === 'purpose');
  assert.equal(purpose?.status, 'partial');
  assert.deepEqual(purpose?.missing, ['what the service does (summary)', 'its users']);
  const resources = report.parts.find((p) => p.name === 'resources');
  assert.deepEqual(resources?.missing, ["which field is the id of 'book' and how it is assigned"]);
  assert.ok(report.diagnostics.some((d) => d.code === 'part-partial' && d.part === 'purpose'));
});

test('none is a statement: it is neither a gap nor partial', () => {
  const report = check('svcspec: 1\nevents: { none: "No events here." }\n');
  const events = report.parts.find((p) => p.name === 'events');
  assert.equal(events?.status, 'none');
  assert.equal(events?.builder.ok, true);
  assert.equal(report.counts.gaps, 8);
});

test('safety defaults are listed as defaults where the spec is silent, and only then', () => {
  const silent = check('svcspec: 1\nresources:\n  book: { plural: books, id: { field: id, assigned: uuid }, fields: { id: { type: string, readOnly: true }, title: string } }\nendpoints:\n  book: [create, list]\n');
  assert.deepEqual(silent.defaults.map((d) => d.key).sort(), ['errors.shape', 'limits.body.maxSize', 'limits.idempotency', 'limits.pagination', 'limits.rate', 'limits.timeouts.request'].sort());
  // The protocol promises (#16): unstated, serve's behaviour is a listed default; stated (or `none`), no default stands in.
  const reads = check('svcspec: 1\nresources:\n  book: { plural: books, id: { field: id, assigned: uuid }, fields: { id: { type: string, readOnly: true }, title: string } }\nendpoints:\n  book: [read, list]\nlimits:\n  rate: { limit: 10, window: 1m, scope: address }\n  pagination: { style: cursor, defaultSize: 10, maxSize: 10, overMax: clamp }\n');
  for (const key of ['limits.conditional', 'limits.rate.headers', 'limits.pagination.links']) assert.ok(reads.defaults.some((d) => d.key === key), `${key} is listed as a default`);
  const stated = check('svcspec: 1\nresources:\n  book: { plural: books, id: { field: id, assigned: uuid }, fields: { id: { type: string, readOnly: true }, title: string } }\nendpoints:\n  book: [read]\nlimits:\n  body: { maxSize: 64KiB }\n  timeouts: { request: 5s, status: 504 }\n  rate: { limit: 10, window: 1m, scope: address, headers: none }\n  conditional: { validators: [etag], writes: false }\n  idempotency: { none: No POST here. }\nerrors:\n  shape: problem\n');
  assert.deepEqual(stated.defaults.map((d) => d.key), []);
});

test('unreadable input: loaded false, exit 2', async () => {
  const report = await checkFile('/nonexistent/spec.yaml');
  assert.equal(report.loaded, false);
  assert.equal(exitCodeOf(report), 2);
});

test('errors fail the check even with --allow-gaps', () => {
  const report = check('svcspec: 1\nstates:\n  loan: { field: s, initial: a, states: [a], transitions: { go: { from: a, to: b } } }\n');
  assert.ok(report.counts.errors > 0);
  assert.equal(exitCodeOf(report, { allowGaps: true }), 1);
});

function safeExists(path: string): boolean {
  try {
    readdirSync(new URL('.', `file://${path}`).pathname);
    return true;
  } catch {
    return false;
  }
}

test('limits: "no rate limit" and "no time-out" are statements: the part can be complete, and no safety default stands in', () => {
  const spec = 'svcspec: 1\nresources:\n  book: { plural: books, id: { field: id, assigned: uuid }, fields: { id: { type: string, readOnly: true }, title: string } }\nendpoints:\n  book: [read]\nlimits:\n  body: { maxSize: 64KiB }\n  timeouts: { none: "Requests run to completion." }\n  rate: { none: "Requests are not limited." }\n  conditional: { none: "Records carry no validators." }\nerrors:\n  shape: problem\n';
  const report = check(spec);
  const limits = report.parts.find((p) => p.name === 'limits');
  assert.equal(limits?.status, 'complete');
  assert.deepEqual(limits?.missing ?? [], []);
  assert.deepEqual(report.defaults.map((d) => d.key), []);
  // Without the statements the same spec's limits are partial, naming what they do not say.
  const silent = check(spec.replace(/  timeouts: .*\n  rate: .*\n/, ''));
  assert.deepEqual(silent.parts.find((p) => p.name === 'limits')?.missing, ['rate limits', 'time-outs']);
});
