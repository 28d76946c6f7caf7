/**
 * pageSettings (src/spec/conventions/pagination.ts) where a spec leaves some of its page sizes
 * unsaid: the safety bound stands in for what is missing, never for what is stated, and the
 * `stated` flags tell the tester and the proxy which sizes are the spec's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSpec } from '../../src/check/index.ts';
import { pageSettings } from '../../src/spec/conventions/pagination.ts';
import { SAFETY } from '../../src/spec/defaults.ts';
import { mustLoad } from '../support/spec.ts';

const spec = (pagination: string) => mustLoad(`svcspec: 1\nresources: {note: {fields: {text: string}}}\nendpoints: {note: [create, list]}\nlimits: {pagination: ${pagination}}\n`);

test('a stated default above the safety bound is kept when the largest size is unsaid', () => {
  const p = pageSettings(spec('{style: cursor, defaultSize: 500}'));
  assert.deepEqual([p.defaultSize, p.maxSize, p.stated], [500, 500, { defaultSize: true, maxSize: false, overMax: false }]);
  assert.ok(SAFETY.pageSize < 500);
});

test('unsaid sizes are the safety bound, and said so', () => {
  const p = pageSettings(spec('{style: page, params: {size: per_page}}'));
  assert.deepEqual([p.defaultSize, p.maxSize, p.overMax, p.sizeParam, p.stated], [SAFETY.pageSize, SAFETY.pageSize, 'clamp', 'per_page', { defaultSize: false, maxSize: false, overMax: false }]);
  const checked = checkSpec(spec('{style: page, params: {size: per_page}}'), []);
  assert.match(checked.diagnostics.find((d) => d.code === 'part-partial' && d.part === 'limits')?.message ?? '', /the default page size, the largest page size and what a larger size gets \(overMax\)/);
});

test('with no largest size (maxSize: none), what a larger size gets is no gap', () => {
  const checked = checkSpec(spec('{style: offset, defaultSize: 10, maxSize: none}'), []);
  assert.equal(checked.diagnostics.some((d) => d.code === 'part-partial' && /overMax|page size/.test(d.message)), false, checked.diagnostics.map((d) => d.message).join('\n'));
});

test('the tester asks for no page larger than the spec allows: the stated maximum, else the stated default, else ten', async () => {
  const { pageParams } = await import('../../src/conformance/parts/list-walk.ts');
  const ask = (pagination: string) => pageParams({ spec: spec(pagination) } as Parameters<typeof pageParams>[0]).askAtMost;
  assert.deepEqual([ask('{style: cursor, defaultSize: 20, maxSize: 50, overMax: clamp}'), ask('{style: cursor, defaultSize: 30}'), ask('{style: page, params: {size: per_page}}')], [50, 30, 10]);
});
