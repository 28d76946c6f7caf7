/** Loader tests: positions, structure in our words, bad input never throws. */
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSpec } from '../../src/load/index.ts';
import { load, mustLoad } from '../support/spec.ts';

const codes = (text: string, kind: 'yaml' | 'json' = 'yaml') => load(text, kind).diagnostics.map((d) => d.code);
const first = (text: string, code: string) => {
  const d = load(text).diagnostics.find((x) => x.code === code);
  assert.ok(d, `expected ${code} in ${JSON.stringify(load(text).diagnostics)}`);
  return d;
};

test('positions: every node keeps its line and column', () => {
  const spec = mustLoad(['svcspec: 1', 'resources:', '  book:', '    plural: books', '    id: { field: id, assigned: uuid }', '    fields:', '      id: { type: string, readOnly: true }', '      title:', '        type: string'].join('\n'));
  assert.deepEqual(pick(spec.source.locate('/resources/book/fields/title')), { line: 9, column: 9 });
  assert.deepEqual(pick(spec.source.locateKey('/resources/book/fields/title')), { line: 8, column: 7 });
  assert.deepEqual(pick(spec.source.locate('/resources/book/id/assigned')), { line: 5, column: 32 });
  // A pointer with no node of its own falls back to its nearest ancestor.
  assert.deepEqual(pick(spec.source.locate('/resources/book/fields/title/nothing')), { line: 9, column: 9 });
});

test('unknown key: said in our words, at the key, with did-you-mean', () => {
  const d = first('svcspec: 1\nresources:\n  book:\n    plural: books\n    fiels: {}\n', 'unknown-key');
  assert.equal(d.message, "Unknown key 'fiels' in resources.book. Did you mean 'fields'?");
  assert.deepEqual(pick(d.location), { line: 5, column: 5 });
  assert.equal(d.pointer, '/resources/book/fiels');
});

test('unknown top-level key suggests the part', () => {
  const d = first('svcspec: 1\nresorces: {}\n', 'unknown-key');
  assert.match(d.message, /Did you mean 'resources'\?/);
});

test('wrong type, value not allowed, bad duration, bad name: one finding each, in our words', () => {
  const text = [
    'svcspec: 1',
    'resources:',
    '  book:',
    '    id: { field: id, assigned: uuidd }',
    '    fields:',
    '      title: { type: string, maxLength: ten }',
    '      9lives: string',
    'limits:',
    '  rate: { limit: 10, window: 1 minute, scope: credential }',
  ].join('\n');
  const found = load(text).diagnostics;
  assert.deepEqual(found.map((d) => d.code), ['value-not-allowed', 'wrong-type', 'invalid-value', 'invalid-value']);
  assert.match(found[0].message, /'uuidd' is not\. Did you mean 'uuid'\?/);
  assert.equal(found[1].message, 'resources.book.fields.title.maxLength must be a whole number, not text.');
  assert.match(found[2].message, /The name '9lives'.*must start with a letter/);
  assert.match(found[3].message, /must be a duration such as/);
  assert.ok(found.every((d) => !/must NOT|should NOT|additionalProperties/.test(d.message)), 'no raw JSON Schema wording');
});

test('alternatives: a field in short form or long form reports only what fits', () => {
  assert.deepEqual(codes('svcspec: 1\nresources:\n  b:\n    fields:\n      a: strin\n'), ['value-not-allowed']);
  assert.deepEqual(codes('svcspec: 1\nresources:\n  b:\n    fields:\n      a: { type: string, minLenght: 1 }\n'), ['unknown-key']);
  assert.deepEqual(codes('svcspec: 1\nresources:\n  b:\n    fields:\n      a: 12\n'), ['wrong-type']);
});

test('duplicate keys and syntax errors have positions', () => {
  const dup = load('svcspec: 1\nresources:\n  book: {}\n  book: {}\n').diagnostics;
  assert.equal(dup[0].code, 'duplicate-key');
  assert.equal(dup[0].location?.line, 4);
  const bad = load('svcspec: 1\nresources: [\n').diagnostics;
  assert.equal(bad[0].code, 'syntax-error');
  assert.ok(bad[0].location && bad[0].location.line >= 2);
  assert.equal(load('{"svcspec": 1, "resources": ', 'json').diagnostics[0].code, 'syntax-error');
});

test('a key indented deeper than the one before it is one error, at that key, saying so (yaml alone points at the line above)', () => {
  const found = load('svcspec: 1\npurpose:\n  name: Todo\n   summary: Keeps todos.\nresources:\n  todo:\n    plural: todos\n').diagnostics;
  assert.deepEqual(found.map((d) => [d.code, d.location?.line, d.location?.column]), [['syntax-error', 4, 4]]);
  assert.match(found[0]!.message, /'summary' is indented 1 column deeper than the key before it/);
  // Other syntax errors keep yaml's words and places: a key with no colon, a mapping in a plain value.
  assert.deepEqual(load('purpose:\n  name Todo\n  summary: x\n').diagnostics.map((d) => [d.location?.line, d.location?.column]), [[2, 3]]);
  assert.match(load('purpose:\n  summary: Keeps: todos\n').diagnostics[0]!.message, /Nested mappings are not allowed/);
});

test('JSON loads like YAML, with positions', () => {
  const spec = mustLoad('{\n  "svcspec": 1,\n  "purpose": { "name": "X", "summary": "Does x." }\n}', 'json');
  assert.equal(spec.purpose.name, 'X');
  assert.equal(spec.source.locate('/purpose/name').line, 3);
});

test('parts: missing or empty is a gap, none is a statement, content is given', () => {
  const spec = mustLoad('svcspec: 1\npurpose: {}\nevents: { none: "No events." }\nerrors:\n  catalog:\n    not-found: { status: 404, title: Not found }\n');
  assert.equal(spec.parts.purpose.statement, 'gap');
  assert.equal(spec.parts.resources.statement, 'gap');
  assert.equal(spec.parts.events.statement, 'none');
  assert.equal(spec.parts.events.reason, 'No events.');
  assert.equal(spec.parts.errors.statement, 'given');
  assert.deepEqual(codes('svcspec: 1\nevents: { none: "x", catalog: {} }\n'), ['part-none-with-content']);
});

test('format version and part order', () => {
  assert.deepEqual(codes('purpose: { name: X }\n'), ['format-version-missing']);
  assert.deepEqual(codes('svcspec: 7\n'), ['format-version-unsupported']);
  assert.deepEqual(codes('svcspec: 1\nlimits: {}\npurpose: {}\n'), ['part-order']);
});

test('a document that is not a map is refused, not thrown', () => {
  for (const text of ['- a\n- b\n', '42\n', '"just text"\n']) {
    const r = load(text);
    assert.equal(r.spec, undefined);
    assert.equal(r.diagnostics[0].code, 'document-not-a-map');
  }
});

test('files: missing, empty, a directory, an unknown extension', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-load-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'empty.yaml'), '  \n');
  await writeFile(join(dir, 'spec.toml'), 'x = 1');
  await mkdir(join(dir, 'folder.yaml'));
  const codeOf = async (file: string) => (await loadSpec(join(dir, file))).diagnostics.map((d) => d.code);
  assert.deepEqual(await codeOf('nope.yaml'), ['file-not-found']);
  assert.deepEqual(await codeOf('empty.yaml'), ['file-empty']);
  assert.deepEqual(await codeOf('folder.yaml'), ['file-unreadable']);
  assert.deepEqual(await codeOf('spec.toml'), ['file-type-unknown']);
});

test('normalization: short-form endpoints expand by the documented conventions', () => {
  const spec = mustLoad([
    'svcspec: 1',
    'resources:',
    '  loan:',
    '    plural: loans',
    '    fields: { status: { type: string, enum: [open, done], readOnly: true }, due: { type: string, format: date } }',
    'states:',
    '  loan: { field: status, initial: open, transitions: { finish: { from: open, to: done, requires: [due] } } }',
    'endpoints:',
    '  loan: [create, read, update, replace, delete, list, finish]',
  ].join('\n'));
  assert.deepEqual(spec.endpoints.map((e) => `${e.method} ${e.path} ${e.id}`), [
    'POST /loans loan.create', 'GET /loans/{id} loan.read', 'PATCH /loans/{id} loan.update', 'PUT /loans/{id} loan.replace',
    'DELETE /loans/{id} loan.delete', 'GET /loans loan.list', 'POST /loans/{id}/finish loan.finish',
  ]);
  assert.deepEqual(spec.endpoints.at(-1)?.request, { kind: 'fields', fields: ['due'] });
  assert.deepEqual(spec.states[0].states, ['open', 'done'], 'states default to the enum of the state field');
  assert.equal(spec.endpoints[0].auth, undefined, 'authentication is a gap: nothing is assumed');
});

test('silence stays silent: no domain value is invented', () => {
  const spec = mustLoad('svcspec: 1\nresources:\n  book:\n    fields: { title: string }\n');
  const book = spec.resources[0];
  assert.equal(book.id, undefined);
  assert.equal(book.fields[0].default, undefined);
  assert.equal(book.fields[0].hasDefault, false);
  assert.deepEqual(spec.limits, {});
  assert.equal(spec.errors.shape, undefined);
  assert.equal(spec.versioning.select, undefined);
});

function pick(location: { line: number; column: number } | undefined) {
  return location && { line: location.line, column: location.column };
}
