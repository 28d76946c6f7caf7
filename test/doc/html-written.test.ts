/**
 * `svcspec doc` of a spec with errors: "As written in the specification" is the author's text
 * (never the loader's corrections), the errors are marked, and identifiers in the tables do
 * not break mid-word (checked in headless Chromium where it is installed).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { renderDocument } from '../../src/doc/index.ts';
import { loadSpecText } from '../../src/load/index.ts';

const BAD = `svcspec: 1
purpose: {name: Clinic, summary: Books appointments.}
resources:
  practitioner:
    fields:
      specialty: {type: strng}
    titel: A practitioner
`;

test('doc: "As written" shows the source text, with the misspellings the author made', () => {
  const loaded = loadSpecText(BAD, { file: 'bad.yaml', kind: 'yaml' });
  assert.ok(loaded.value);
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  assert.equal(errors.length, 2);
  const html = renderDocument(loaded.value, { format: 'html', source: BAD, errors });
  const written = /<summary>As written in the specification<\/summary><pre><code>([\s\S]*?)<\/code>/g;
  const blocks = [...html.matchAll(written)].map((m) => m[1]);
  assert.deepEqual(blocks, ['purpose: {name: Clinic, summary: Books appointments.}', 'resources:\n  practitioner:\n    fields:\n      specialty: {type: strng}\n    titel: A practitioner']);
  assert.match(html, /This specification has 2 errors; the document shows what could be read\./);
  assert.match(html, /<div class="errors part-errors" role="note">\n<p><strong>Errors in this part \(2\):<\/strong><\/p>\n<ul>\n<li><code>bad\.yaml:6:25<\/code> [^\n]*&#39;strng&#39; is not/);
  // Without the source text, the part is shown as read, and labelled so.
  const plain = renderDocument(loaded.value, { format: 'html' });
  assert.doesNotMatch(plain, /As written/);
  assert.match(plain, /As read from the specification \(YAML\)/);
});

test('doc: "As written" of a Markdown spec is its section\'s block', () => {
  const md = '# Notes\n\n## What the service does\n\nProse.\n\n```yaml\nname: Notes   # the service\nsummary: Keeps notes.\n```\n';
  const loaded = loadSpecText(md, { file: 'notes.md', kind: 'markdown' });
  assert.ok(loaded.value);
  const html = renderDocument(loaded.value, { format: 'html', source: md });
  assert.match(html, /<summary>As written in the specification<\/summary><pre><code>name: Notes   # the service\nsummary: Keeps notes\.<\/code>/);
});

const CHROMIUM = '/usr/bin/chromium';
test('doc: in Chromium, identifiers in narrow tables break only between words or after a slash', { skip: existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}`, timeout: 60_000 }, async (t) => {
  const spec = `svcspec: 1
purpose: {name: Clinic, summary: Books appointments., users: [{name: patient, tasks: [book]}]}
resources:
  practitioner:
    plural: practitioners
    fields:
      id: {type: integer, readOnly: true}
      specialty: {type: string, description: The medical specialty the practitioner practises, in the words of the national register.}
      consultationLanguage: {type: string, description: The language the practitioner consults in, as an IETF language tag.}
endpoints:
  practitioner: [create, read, list]
`;
  const loaded = loadSpecText(spec, { file: 'clinic.yaml', kind: 'yaml' });
  assert.ok(loaded.value);
  const html = renderDocument(loaded.value, { format: 'html', source: spec });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 380, height: 800 } });
  await page.setContent(html);
  // For each code element in a table cell: the characters after which its line breaks.
  // Browser code as text: the tests are typed for Node, without the DOM's types.
  const breaks = await page.evaluate(`[...document.querySelectorAll('td code')].map((code) => {
    const text = code.firstChild;
    const after = [];
    let top;
    for (let i = 0; i < text.length; i++) {
      const range = document.createRange();
      range.setStart(text, i);
      range.setEnd(text, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect) continue;
      if (top !== undefined && rect.top > top + 2) after.push(text.data.slice(0, i) + '|' + text.data.slice(i));
      top = rect.top;
    }
    return { text: text.data, after };
  })`) as { text: string; after: string[] }[];
  assert.ok(breaks.some((b) => b.text === 'consultationLanguage'), 'the identifiers are in the tables');
  for (const b of breaks) {
    for (const at of b.after) assert.match(at, /[\s/]\|/, `'${b.text}' breaks mid-word: ${at}`);
  }
});
