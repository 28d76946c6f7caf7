/**
 * Field names as real APIs write members (issue #17): `@type`, `@id`, `@rank`, `_links`,
 * `$kind` load and check, are stored, filtered and sorted by `svcspec serve`, read by a rule
 * as `self["@rank"]`, and held to by `svcspec test`, which passes against the reference.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formatHuman, runConformance } from '../../src/conformance/index.ts';
import { loadSpecText } from '../../src/load/index.ts';
import { mustLoad } from '../support/spec.ts';
import { serveForTester } from './support.ts';

const TEXT = readFileSync(new URL('../serve/fixtures/member-names.yaml', import.meta.url), 'utf8');
const SPEC = mustLoad(TEXT);

test('member names with _, $ and @: served as sent, filtered, sorted, ruled on, and the tester passes', async (t) => {
  const { baseUrl, principals, sleep, now } = await serveForTester(t, SPEC);
  const post = (body: unknown) => fetch(`${baseUrl}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const place = { '@type': 'Place', '@id': 'https://example.org/places/1', '@rank': 3, _links: { self: { href: '/things/x' } }, $kind: 'home', name: 'Home' };
  const made = await post(place);
  assert.equal(made.status, 201);
  const body = (await made.json()) as Record<string, unknown>;
  for (const [k, v] of Object.entries(place)) assert.deepEqual(body[k], v, k);
  assert.equal((await post({ '@type': 'Person', '@rank': 1, name: 'Ann' })).status, 201);
  // The rule reads self["@rank"].
  const ranked = await post({ '@type': 'Person', '@rank': 11, name: 'Bob' });
  assert.equal(ranked.status, 422);
  const problem = (await ranked.json()) as { code: string; errors?: { pointer: string }[] };
  assert.equal(problem.code, 'rank-too-high');
  assert.deepEqual(problem.errors?.map((e) => e.pointer), ['/@rank']);
  // A member the field does not allow is refused at its pointer.
  const wrong = (await (await post({ '@type': 'Robot', name: 'R' })).json()) as { errors: { pointer: string }[] };
  assert.deepEqual(wrong.errors.map((e) => e.pointer), ['/@type']);
  const page = (await (await fetch(`${baseUrl}/things?${new URLSearchParams({ '@type': 'Place' })}`)).json()) as { items: Record<string, unknown>[] };
  assert.deepEqual(page.items.map((i) => i.name), ['Home']);
  const sorted = (await (await fetch(`${baseUrl}/things?sort=-@rank`)).json()) as { items: Record<string, unknown>[] };
  assert.deepEqual(sorted.items.map((i) => i['@rank']), [3, 1]);

  const report = await runConformance({ spec: SPEC, baseUrl, principals, seed: 17, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(report.counts.notChecked, 0, formatHuman(report));
  const passed = report.results.filter((r) => r.outcome === 'pass').map((r) => r.id);
  assert.ok(passed.some((id) => id.includes('@type')), `a check of @type passed: ${passed.join(', ')}`);
  assert.ok(report.results.some((r) => r.outcome === 'pass' && /rank-too-high/.test(r.title)), formatHuman(report));
});

test('member names: a field name starting with a digit or holding a dot is refused at its place, saying what a name may be', () => {
  const loaded = loadSpecText(TEXT.replace("'@id':", "'1st':").replace('$kind:', "'a.b':"), { file: 'names.yaml', kind: 'yaml' });
  const messages = loaded.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.location?.line}: ${d.message}`);
  assert.equal(messages.length, 2, messages.join('\n'));
  for (const m of messages) assert.match(m, /must start with a letter, _, \$ or @ and hold only letters, digits, - and _/);
});
