/**
 * pageSettings (src/spec/conventions/pagination.ts) where a spec leaves some of its page sizes
 * unsaid: the safety bound stands in for what is missing, never for what is stated, and the
 * `stated` flags tell the tester and the proxy which sizes are the spec's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSpec } from '../../src/check/index.ts';
import { memberAt, memberPath, pageSettings, pageText, readPage } from '../../src/spec/conventions/pagination.ts';
import { SAFETY } from '../../src/spec/defaults.ts';
import { load, mustLoad } from '../support/spec.ts';

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

const lago = (extra = '') => mustLoad(`svcspec: 1
resources: {addOn: {plural: add_ons, fields: {code: string}}, tax: {plural: taxes, fields: {code: string}}}
endpoints:
  addOn: [create, list]
  tax: {create: {}, list: {page: {items: taxes, next: /meta/next_page, total: /meta/total_count}${extra}}}
limits: {pagination: {style: page, defaultSize: 20, maxSize: 100, overMax: clamp, params: {size: per_page}, body: {items: add_ons, next: /meta/next_page, total: /meta/total_count}}}
`);

test("a list's own page body stands in for the part's; the style, parameters and sizes stay the part's", () => {
  const s = lago();
  const taxes = s.endpoints.find((e) => e.id === 'tax.list')!;
  const own = pageSettings(s, taxes);
  assert.deepEqual(own.body, { kind: 'object', items: 'taxes', next: '/meta/next_page', total: '/meta/total_count' });
  assert.deepEqual([own.style, own.sizeParam, own.defaultSize], ['page', 'per_page', 20]);
  const part = pageSettings(s, s.endpoints.find((e) => e.id === 'addOn.list')!);
  assert.deepEqual(part.body, { kind: 'object', items: 'add_ons', next: '/meta/next_page', total: '/meta/total_count' });
});

test('page members named by JSON Pointers are read inside the members they name, and written nested', () => {
  const s = lago();
  const settings = pageSettings(s, s.endpoints.find((e) => e.id === 'tax.list')!);
  assert.deepEqual(readPage(settings, { taxes: [{ code: 'vat' }], meta: { next_page: 2, total_count: 7, current_page: 1 } }, undefined), { items: [{ code: 'vat' }], next: 2, total: 7 });
  // The page's other members (Lago's current_page) are the service's own: not read, not refused.
  assert.match(String(readPage(settings, { taxes: [], next_page: 2, total_count: 0 }, undefined)), /the page's '\/meta\/next_page' is undefined, not a position or null/);
  assert.match(String(readPage(settings, { add_ons: [] }, undefined)), /the page has no 'taxes' list/);
  // RFC 6901 §4: ~1 is '/', ~0 is '~', in a member's name.
  assert.equal(memberAt({ 'a/b': { '~c': 3 } }, '/a~1b/~0c'), 3);
  assert.equal(memberAt({ meta: 5 }, '/meta/next_page'), undefined);
  assert.deepEqual(memberPath('next'), ['next']);
  const text = pageText([['taxes', '[]'], ['/meta/next_page', 'null'], ['/meta/total_count', '0']]);
  assert.deepEqual(JSON.parse(text), { taxes: [], meta: { next_page: null, total_count: 0 } });
});

test('a page member that is no name nor a JSON Pointer is refused where it stands', () => {
  const loaded = load(`svcspec: 1\nresources: {note: {fields: {text: string}}}\nendpoints:\n  note: {list: {page: {items: notes, next: /meta//next}}}\n`);
  const d = loaded.diagnostics.find((x) => x.severity === 'error');
  assert.ok(d, 'refused');
  assert.match(`${d.pointer} ${d.message}`, /\/endpoints\/note\/list\/page\/next/);
  assert.deepEqual([d.location?.line, d.location?.column], [4, 44], JSON.stringify(d));
  assert.match(d.message, /must be a member's name, or a JSON Pointer to one inside another \(RFC 6901/);
});
