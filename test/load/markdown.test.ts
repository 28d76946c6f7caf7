/** The Markdown loader: the nine-part layout, gaps, positions inside yaml blocks, layout findings. */
import { FOUNDING_SKIP } from '../support/spec.ts';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../../src/load/index.ts';
import type { Location } from '../../src/spec/model.ts';
import { PART_NAMES } from '../../src/spec/parts.ts';
import { load, mustLoad } from '../support/spec.ts';

const FOUNDING = new URL('../../../shared/seeds/000_a7ef063def403b81.txt', import.meta.url);
const FOUNDING_PATH = fileURLToPath(FOUNDING);
const md = (...lines: string[]) => `${lines.join('\n')}\n`;
const pick = (l: Location | undefined) => ({ line: l?.line, column: l?.column });
const codesOf = (text: string) => load(text, 'markdown').diagnostics.map((d) => d.code);
const finding = (text: string, code: string) => {
  const all = load(text, 'markdown').diagnostics;
  const d = all.find((x) => x.code === code);
  assert.ok(d, `expected ${code} in ${JSON.stringify(all)}`);
  return d;
};

test('the founding document loads with no finding, as nine gaps with their prose', { skip: FOUNDING_SKIP }, async () => {
  const result = await loadSpec(FOUNDING_PATH);
  assert.deepEqual(result.diagnostics, []);
  const spec = result.value;
  assert.ok(spec);
  assert.equal(spec.title, 'Service Interface Specification (no interface defined)');
  for (const name of PART_NAMES) {
    assert.equal(spec.parts[name].statement, 'gap', name);
    assert.match(spec.parts[name].prose ?? '', /not shown/i, name);
  }
  assert.equal(spec.parts.purpose.prose, "- The service's purpose: not shown.\n- Its users and the tasks they perform: not shown.");
  assert.deepEqual(spec.resources, []);
  assert.deepEqual(spec.endpoints, []);
});

test('founding document: a gap is located at its section heading', { skip: FOUNDING_SKIP }, async () => {
  const text = await readFile(FOUNDING, 'utf8');
  const spec = mustLoad(text, 'markdown');
  const line = text.split('\n').indexOf('## Events') + 1;
  assert.deepEqual(pick(spec.source.locate('/events')), { line, column: 1 });
  assert.deepEqual(pick(spec.source.locate('/events/catalog/x')), { line, column: 1 });
});

const BOOK = md(
  '# Library', //                            1
  '', //                                     2
  '## Resources and their fields', //        3
  '', //                                     4
  'Books are what the library lends.', //    5
  '', //                                     6
  '```yaml', //                              7
  'book:', //                                8
  '  plural: books', //                      9
  '  fields:', //                           10
  '    title: {type: string, required: true}', // 11
  '    pages: integer', //                  12
  '```', //                                 13
  '', //                                    14
  'More prose after the block.', //         15
);

test('positions inside a yaml block are lines and columns of the .md file', () => {
  const spec = mustLoad(BOOK, 'markdown');
  assert.deepEqual(pick(spec.source.locate('/resources/book')), { line: 9, column: 3 });
  assert.deepEqual(pick(spec.source.locate('/resources/book/plural')), { line: 9, column: 11 });
  assert.deepEqual(pick(spec.source.locateKey('/resources/book/fields/title')), { line: 11, column: 5 });
  assert.deepEqual(pick(spec.source.locate('/resources/book/fields/title/required')), { line: 11, column: 37 });
  assert.deepEqual(pick(spec.source.locate('/resources/book/fields/pages')), { line: 12, column: 12 });
  assert.deepEqual(pick(spec.source.locate('/title')), { line: 1, column: 1 });
  assert.equal(spec.resources[0]?.fields.length, 2);
  assert.equal(spec.parts.resources.prose, 'Books are what the library lends.\n\nMore prose after the block.');
});

test('a finding about a yaml block points into the .md file', () => {
  const d = finding(BOOK.replace('  plural: books', '  plurl: books'), 'unknown-key');
  assert.match(d.message, /Did you mean 'plural'\?/);
  assert.deepEqual(pick(d.location), { line: 9, column: 3 });
  assert.equal(d.pointer, '/resources/book/plurl');
  const syntax = finding(BOOK.replace('    pages: integer', '    - pages'), 'syntax-error');
  assert.equal(syntax.location?.line, 12);
});

test('an indented fence keeps the columns of the file', () => {
  const spec = mustLoad(md('## Resources and their fields', '', '  ```yml', '  book:', '    plural: books', '  ```'), 'markdown');
  assert.deepEqual(pick(spec.source.locate('/resources/book/plural')), { line: 5, column: 13 });
  assert.equal(spec.resources[0]?.plural, 'books');
});

test('a block holding `none: reason` states the part does not apply', () => {
  const spec = mustLoad(md('## Events', '', 'Nothing is pushed to clients.', '', '```yaml', 'none: The service emits no events.', '```'), 'markdown');
  assert.equal(spec.parts.events.statement, 'none');
  assert.equal(spec.parts.events.reason, 'The service emits no events.');
  assert.equal(spec.parts.events.prose, 'Nothing is pushed to clients.');
});

test('a missing section, a "not shown" section and a section with prose only are gaps', () => {
  const spec = mustLoad(md('## Events', '', '- Events: Not Shown.', '', '## Errors', '', 'To be decided with the support team.'), 'markdown');
  assert.equal(spec.parts.events.statement, 'gap');
  assert.equal(spec.parts.errors.statement, 'gap');
  assert.equal(spec.parts.errors.prose, 'To be decided with the support team.');
  assert.equal(spec.parts.limits.statement, 'gap');
  assert.equal(spec.parts.limits.prose, undefined);
});

test('titles compare case-insensitively and trimmed; level-3 headings are prose; yml counts', () => {
  const spec = mustLoad(md('##   errors  ', '', '### Body', '', 'Problem details.', '', '```YML', 'shape: problem', '```'), 'markdown');
  assert.equal(spec.parts.errors.statement, 'given');
  assert.equal(spec.errors.shape?.kind, 'problem');
  assert.equal(spec.parts.errors.prose, '### Body\n\nProblem details.');
});

test('a yaml block nested in a list is prose, not the part', () => {
  const spec = mustLoad(md('## Errors', '', '- example:', '', '  ```yaml', '  shape: problem', '  ```'), 'markdown');
  assert.equal(spec.parts.errors.statement, 'gap');
  assert.match(spec.parts.errors.prose ?? '', /shape: problem/);
});

test('an unknown section is a warning with a did-you-mean, and is not read', () => {
  const d = finding(md('## Resource and their fields', '', '```yaml', 'book: {}', '```'), 'markdown-unknown-section');
  assert.equal(d.severity, 'warning');
  assert.match(d.message, /Did you mean 'Resources and their fields'\?/);
  assert.deepEqual(pick(d.location), { line: 1, column: 1 });
  const byKey = finding(md('## Purpose', '', 'x'), 'markdown-unknown-section');
  assert.match(byKey.message, /Did you mean 'What the service does'\?/);
  const spec = load(md('## Resource and their fields', '', '```yaml', 'book: {}', '```'), 'markdown').spec;
  assert.equal(spec?.parts.resources.statement, 'gap');
});

test('a duplicate section is an error; the first one counts', () => {
  const text = md('## Errors', '', '```yaml', 'shape: problem', '```', '', '## Errors', '', '```yaml', 'none: no', '```');
  const d = finding(text, 'markdown-duplicate-section');
  assert.equal(d.severity, 'error');
  assert.equal(d.location?.line, 7);
  assert.equal(load(text, 'markdown').spec?.parts.errors.statement, 'given');
});

test('several blocks in one section are merged, key by key, maps within maps', () => {
  const text = md('## Errors', '', '```yaml', 'shape: problem', 'catalog:', '  not-found: { status: 404, title: Not found }', '```', '', 'More prose.', '', '```json', '{ "catalog": { "internal": { "status": 500, "title": "Internal error" } } }', '```');
  const { spec, diagnostics } = load(text, 'markdown');
  assert.deepEqual(diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(spec?.errors.catalog.map((e) => e.code).sort(), ['internal', 'not-found']);
  assert.equal(spec?.errors.shape?.kind, 'problem');
});

test('a key two blocks both give is an error at the second, naming the first block\'s line', () => {
  const text = md('## Errors', '', '```yaml', 'shape: problem', '```', '', '```yaml', 'shape: custom', '```');
  const d = finding(text, 'markdown-key-twice');
  assert.equal(d.severity, 'error');
  assert.match(d.message, /^'shape' is given in two blocks of the section 'Errors' \(the other block starts at line 3\)/);
  assert.deepEqual(pick(d.location), { line: 8, column: 1 });
  const list = finding(md('## Errors', '', '```yaml', 'shape: problem', '```', '', '```yaml', '- a', '```'), 'markdown-many-blocks');
  assert.match(list.message, /the one here is not a map/);
  assert.equal(list.location?.line, 7);
});

test('a ```json block is read like a ```yaml block, positions included', () => {
  const text = md('## What the service does', '', '```json', '{ "name": "Notes", "summary": "Keeps notes.", "userz": [] }', '```');
  const spec = load(text, 'markdown').spec;
  assert.equal(spec?.purpose.name, 'Notes');
  const d = finding(text, 'unknown-key');
  assert.deepEqual(pick(d.location), { line: 4, column: 47 });
});

test('numbered headings name the parts, as the README numbers them', () => {
  for (const heading of ['## 1. What the service does', '## 1) What the service does', '## Part 1: What the service does', '## 1 What the service does']) {
    const { spec, diagnostics } = load(md(heading, '', '```yaml', 'name: Notes', 'summary: Keeps notes.', '```'), 'markdown');
    assert.deepEqual(diagnostics.filter((d) => d.code === 'markdown-unknown-section'), [], heading);
    assert.equal(spec?.purpose.name, 'Notes', heading);
  }
  const d = finding(md('## 2. Resource and their fields'), 'markdown-unknown-section');
  assert.match(d.message, /Did you mean 'Resources and their fields'\?/);
});

test('a duplicate key is named whole, not by its first character', () => {
  const d = finding(md('```yaml', 'svcspec: 1', 'title: A', 'title: B', '```'), 'duplicate-key');
  assert.match(d.message, /^The key 'title' appears twice/);
});

test('sections out of order: the part-order warning points at the heading', () => {
  const d = finding(md('## Errors', '', 'x', '', '## Events', '', 'y'), 'part-order');
  assert.equal(d.location?.line, 5);
  assert.match(d.message, /'events' stands after 'errors'/);
});

test('the top block holds the format version and may hold the title', () => {
  const spec = mustLoad(md('# Shown title', '', '```yaml', 'svcspec: 1', 'title: "Real *title*"', '```', '', '## Events', '', '```yaml', 'none: no events', '```'), 'markdown');
  assert.equal(spec.formatVersion, '1');
  assert.equal(spec.title, 'Real *title*');
  assert.deepEqual(pick(spec.source.locate('/svcspec')), { line: 4, column: 10 });
  assert.deepEqual(codesOf(md('```yaml', 'svcspec: 9', '```')), ['format-version-unsupported']);
});

test('the top block refuses parts and unknown keys, saying where they belong', () => {
  const d = finding(md('```yaml', 'svcspec: 1', 'purpose: {name: x}', '```'), 'unknown-key');
  assert.match(d.message, /in the top yaml block\. Put the content of 'purpose' in the yaml block of its section, '## What the service does'\./);
  assert.equal(d.location?.line, 3);
  assert.match(finding(md('```yaml', 'svcspek: 1', '```'), 'unknown-key').message, /Did you mean 'svcspec'\?/);
  assert.ok(codesOf(md('```yaml', '- 1', '```')).includes('wrong-type'));
});

test('generated regions are skipped: their text is neither prose nor content', () => {
  const text = md(
    '<!-- svcspec:generated -->', '', '# Not the title', '', '<!-- /svcspec:generated -->', '',
    '## Errors', '', 'Author prose.', '', '<!-- svcspec:generated -->', '', '| a | b |', '| - | - |', '| 1 | not shown |', '',
    '```yaml', 'none: inside a region', '```', '', '<!-- /svcspec:generated -->', '', '```yaml', 'shape: problem', '```',
  );
  const spec = mustLoad(text, 'markdown');
  assert.equal(spec.title, undefined);
  assert.equal(spec.parts.errors.statement, 'given');
  assert.equal(spec.parts.errors.prose, 'Author prose.');
});

test('an unclosed generated region ends at the next section', () => {
  const spec = mustLoad(md('## Errors', '', '<!-- svcspec:generated -->', '', 'generated', '', '## Events', '', '```yaml', 'none: no events', '```'), 'markdown');
  assert.equal(spec.parts.errors.prose, undefined);
  assert.equal(spec.parts.events.statement, 'none');
});

test('no format version is needed in Markdown (the founding document has none)', () => {
  assert.deepEqual(codesOf(md('# T', '', '## Events', '', '- Events: not shown.')), []);
});
