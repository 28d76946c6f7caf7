/** The HTML page: self-contained, complete, escaped. */
import { FOUNDING_SKIP } from '../support/spec.ts';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { renderDocument } from '../../src/doc/index.ts';
import { escapeHtml } from '../../src/doc/escape.ts';
import { PARTS } from '../../src/spec/parts.ts';
import { mustLoad } from '../support/spec.ts';
import { examples, FOUNDING } from './helpers.ts';

test('every example: every resource, every endpoint path, every part title, no script', async (t) => {
  const all = await examples();
  assert.ok(all.some((e) => e.name === 'library.yaml' && e.spec), 'library.yaml loads');
  for (const example of all) {
    await t.test(example.name, () => {
      assert.ok(example.spec, `${example.name} loads: ${example.problem}`);
      const spec = example.spec;
      const html = renderDocument(spec, { format: 'html' });
      assert.match(html, /^<!doctype html>/);
      // One word (no space nor '/'): the code keeps its line (src/doc/html-style.ts, code.word).
      for (const r of spec.resources) assert.ok(html.includes(`<code class="word">${escapeHtml(r.name)}</code>`), `resource ${r.name}`);
      for (const e of spec.endpoints) assert.ok(html.includes(escapeHtml(`${e.method} {base_url}${e.path}`)), `endpoint ${e.id}`);
      for (const p of PARTS) assert.ok(html.includes(escapeHtml(p.title)), `part ${p.name}`);
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /<link|@import|url\(|src=/i, 'no external resources');
    });
  }
});

test('the page has a header, a contents list with a badge per part, and one section per part', async () => {
  const all = await examples();
  const library = all.find((e) => e.name === 'library.yaml')?.spec;
  assert.ok(library);
  const html = renderDocument(library, { format: 'html' });
  assert.match(html, /<h1>City Library Lending API<\/h1>/);
  assert.match(html, /<p class="summary">Keeps the library&#39;s catalog/);
  assert.equal(html.match(/<li><a href="#[a-z]+">[^<]+<\/a> <span class="badge given">given<\/span><\/li>/g)?.length, 9);
  for (const p of PARTS) assert.ok(html.includes(`<section id="${p.name}">`), p.name);
  assert.match(html, /<th scope="col">Field<\/th>/);
  assert.match(html, /@media print/);
});

test('spec text cannot inject markup', () => {
  const evil = '<script>alert(1)</script>';
  const spec = mustLoad([
    'svcspec: 1',
    `title: "${evil}"`,
    `purpose: {name: "${evil}", summary: "<img src=x onerror=alert(1)>"}`,
    'resources:',
    `  book: {description: "${evil}", fields: {title: {type: string, description: "${evil}", enum: ["</code><script>"]}}}`,
    'endpoints:',
    '  book: {read: {summary: "\\"><script>x</script>"}}',
    'errors: {catalog: {bad: {status: 400, title: "<b>bold</b>", when: "a & b"}}}',
  ].join('\n'));
  const html = renderDocument(spec, { format: 'html' });
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /<img/i);
  assert.doesNotMatch(html, /<b>bold/);
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('a &amp; b'));
});

test('author prose is rendered as Markdown, with raw HTML escaped and unsafe links dropped', () => {
  const spec = mustLoad('## Events\n\nSee <script>alert(1)</script> and *this* [x](javascript:alert(1)).\n\n```yaml\nnone: no events\n```\n', 'markdown');
  const html = renderDocument(spec, { format: 'html' });
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /javascript:/i);
  assert.ok(html.includes('See &lt;script&gt;alert(1)&lt;/script&gt; and <em>this</em>'), html.slice(html.indexOf('See'), html.indexOf('See') + 200));
});

test('the founding document: nine "not shown" badges and sections', { skip: FOUNDING_SKIP }, async () => {
  const spec = mustLoad(await readFile(FOUNDING, 'utf8'), 'markdown');
  const html = renderDocument(spec, { format: 'html' });
  assert.equal(html.match(/<span class="badge gap">not shown<\/span>/g)?.length, 18, 'one in the contents, one in the section');
  assert.match(html, /<h1>Service Interface Specification \(no interface defined\)<\/h1>/);
  assert.match(html, /0 of 9 parts given, 0 not applicable, 9 not shown/);
});

test('a gap renders "not shown" with what the part asks; none renders its reason', () => {
  const spec = mustLoad('svcspec: 1\nevents: {none: "This service emits no events."}\n');
  const html = renderDocument(spec, { format: 'html' });
  assert.ok(html.includes('<div class="gap-note"><p>The service&#39;s purpose, its users and the tasks they perform: not shown.</p></div>'));
  assert.ok(html.includes('<span class="badge none">none</span>'));
  assert.ok(html.includes('<p><strong>Does not apply.</strong> This service emits no events.</p>'));
});
