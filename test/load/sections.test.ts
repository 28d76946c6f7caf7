/**
 * A YAML spec read section by section, the sections an edit did not touch read back from
 * earlier loads (src/load/sections.ts, issue #20): the spec and the findings must be those of
 * a whole parse, cold, warm and after an edit; a text that does not plainly split is parsed
 * whole; the cache is keyed on the section's text and the build, and a damaged entry is a miss.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadSpecText } from '../../src/load/index.ts';
import { sectionCache, sectionsOf, type SectionCache, type SectionEntry } from '../../src/load/sections.ts';
import { FORMAT_SCHEMA } from '../../src/spec/format-schema.ts';
import type { Diagnostic } from '../../src/spec/diagnostics.ts';
import type { Spec } from '../../src/spec/model.ts';
import { RULES } from '../../src/check/rules/index.ts';
import { runRules } from '../../src/check/walk.ts';
import { freshTmpdirEachTest } from '../support/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A cache in memory, counting what is read back and what is written. */
function memoryCache(): SectionCache & { hits: number; puts: string[]; entries: Map<string, SectionEntry> } {
  const entries = new Map<string, SectionEntry>();
  const cache = {
    hits: 0,
    puts: [] as string[],
    entries,
    get(text: string) {
      const e = entries.get(text);
      if (e) cache.hits++;
      return e;
    },
    put(text: string, entry: SectionEntry) {
      cache.puts.push(text.split(':')[0] as string);
      entries.set(text, entry);
    },
  };
  return cache;
}

/** The spec without its source's functions, and the findings as text (their places too: the position index is the whole text's). */
function outcome(text: string, sections?: SectionCache) {
  const loaded = loadSpecText(text, { file: 'spec.yaml', kind: 'yaml', ...(sections ? { sections } : {}) });
  const spec = loaded.value as Spec | undefined;
  const said = (ds: readonly Diagnostic[]) => ds.map((d) => `${d.severity} ${d.code} ${d.pointer ?? ''} ${d.location?.line}:${d.location?.column} ${d.message}`);
  return {
    spec: spec ? JSON.stringify({ ...spec, source: undefined }, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) : undefined,
    diagnostics: said(loaded.diagnostics),
    findings: spec ? said(runRules(spec, RULES)) : [],
  };
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'node_modules' ? [] : yamlFiles(join(dir, e.name))) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : []));
}
const FILES = [...yamlFiles(join(ROOT, 'examples')), ...yamlFiles(join(ROOT, 'test')), ...yamlFiles(join(ROOT, 'bench/fixtures'))];
const LIBRARY = readFileSync(join(ROOT, 'examples/library.yaml'), 'utf8');

test('sections: every YAML spec of the examples and tests reads as a whole parse, cold and warm', () => {
  let split = 0;
  for (const file of FILES) {
    const text = readFileSync(file, 'utf8');
    const whole = outcome(text);
    const cache = memoryCache();
    assert.deepEqual(outcome(text, cache), whole, `${file}, cold`);
    assert.deepEqual(outcome(text, cache), whole, `${file}, warm`);
    if (sectionsOf(text)) split++;
  }
  assert.ok(split >= 15, `only ${split} files split`);
});

test('sections: after an edit only the edited section is parsed, validated and kept again', () => {
  const cache = memoryCache();
  outcome(LIBRARY, cache);
  const parts = sectionsOf(LIBRARY)?.length ?? 0;
  assert.equal(cache.puts.length, parts, 'every section kept on the first load');
  cache.puts.length = 0;
  cache.hits = 0;
  const edited = LIBRARY.replace('Copies the library owns.', 'Copies the library owns (an edit).');
  assert.notEqual(edited, LIBRARY);
  assert.deepEqual(outcome(edited, cache), outcome(edited));
  assert.deepEqual(cache.puts, ['resources'], 'the edited section is kept');
  assert.equal(cache.hits, parts - 1, 'the others are read back');
});

test('sections: a section that fails the structural validation is validated again on every load', () => {
  const bad = LIBRARY.replace(/^limits:\n/m, 'limits:\n  nonsense: 1\n');
  assert.notEqual(bad, LIBRARY);
  const cache = memoryCache();
  const whole = outcome(bad);
  assert.ok(whole.diagnostics.some((d) => d.includes('/limits/nonsense')), whole.diagnostics.join('\n'));
  assert.deepEqual(outcome(bad, cache), whole);
  assert.deepEqual(outcome(bad, cache), whole, 'warm: still reported');
  // A finding in one section, then that section fixed: the others were kept as not passed, and are validated again.
  assert.deepEqual(outcome(LIBRARY, cache), outcome(LIBRARY));
  // A valid section is kept as valid, however the sections beside it change.
  const other = memoryCache();
  outcome(LIBRARY, other);
  assert.deepEqual(outcome(bad, other), whole, 'an error in an edited section beside valid ones');
});

test('sections: texts that do not plainly split are parsed whole', () => {
  const refused: Record<string, string> = {
    'a tab': 'svcspec: 1\n\tpurpose: x\n',
    'CRLF': 'svcspec: 1\r\npurpose: {name: x}\r\n',
    'a byte-order mark': '\uFEFFsvcspec: 1\n',
    'a document marker': '---\nsvcspec: 1\n',
    'a document end': 'svcspec: 1\n...\n',
    'a directive': '%YAML 1.2\n---\nsvcspec: 1\n',
    'a key twice': 'svcspec: 1\nsvcspec: 2\n',
    'a quoted key': '"svcspec": 1\n',
    'a flow mapping': '{svcspec: 1}\n',
    'a key without a space after its colon': 'svcspec:1\n',
    '__proto__': 'svcspec: 1\n__proto__: {a: 1}\n',
    'indented lines before the first key': '  x: 1\nsvcspec: 1\n',
    'a list at the root': '- svcspec\n',
  };
  for (const [what, text] of Object.entries(refused)) assert.equal(sectionsOf(text), undefined, what);
  assert.deepEqual(sectionsOf('# a comment\n\nsvcspec: 1\ntitle: >\n  folded\n# between\npurpose:\n  name: x\n'), [
    { key: 'svcspec', text: 'svcspec: 1' },
    { key: 'title', text: 'title: >\n  folded\n# between' },
    { key: 'purpose', text: 'purpose:\n  name: x\n' },
  ]);
  // Whatever js-yaml says of such a text, it says through the whole parse: the findings are the same.
  for (const text of Object.values(refused)) assert.deepEqual(outcome(text, memoryCache()), outcome(text));
  // A section js-yaml refuses alone sends the whole text to the whole parse: an unterminated
  // quote; a quoted scalar or a flow map continued at column 0 on a line that looks like a key.
  for (const text of ['svcspec: 1\ntitle: "unterminated\n', 'title: "one\ntwo: three"\nsvcspec: 1\n', 'svcspec: 1\npurpose: {name: x,\nsummary: y}\n']) {
    const cache = memoryCache();
    assert.deepEqual(outcome(text, cache), outcome(text), text);
    assert.deepEqual(cache.puts, [], `${text}: nothing kept`);
  }
});

test('sections: the root of the format constrains each top-level key alone (what keeping a valid section relies on)', () => {
  const allowed = new Set(['$schema', '$id', 'title', 'description', 'type', 'additionalProperties', 'properties', 'definitions']);
  for (const key of Object.keys(FORMAT_SCHEMA as object)) assert.ok(allowed.has(key), `the root of the format's schema has '${key}': a section valid alone may not be valid beside others`);
});

const tempDir = freshTmpdirEachTest('svcspec-sections-');

test('sections: kept per build and section text; a damaged entry, another build or no build identity is a miss', () => {
  assert.equal(sectionCache(undefined), undefined, 'code without a build identity (the sources, dist/) keeps nothing');
  const a = sectionCache('build-a');
  assert.ok(a);
  const entry = { valid: true, bytes: Uint8Array.of(1, 2, 3) };
  a.put('svcspec: 1', entry);
  assert.deepEqual(sectionCache('build-a')?.get('svcspec: 1'), { valid: true, bytes: Buffer.from([1, 2, 3]) });
  assert.equal(sectionCache('build-b')?.get('svcspec: 1'), undefined, 'another build');
  assert.equal(a.get('svcspec: 2'), undefined, 'another text');
  const dir = join(tempDir(), readdirSync(tempDir()).find((d) => d.startsWith('svcspec-cache-')) as string);
  for (const f of readdirSync(dir)) writeFileSync(join(dir, f), 'x');
  assert.equal(a.get('svcspec: 1'), undefined, 'damaged');
  // A damaged entry's data is refused by the loader too: the section is parsed again.
  const cache = sectionCache('build-a') as SectionCache;
  outcome(LIBRARY, cache);
  for (const f of readdirSync(dir)) writeFileSync(join(dir, f), Uint8Array.of(1, 0xff, 0x0f, 0x00));
  assert.deepEqual(outcome(LIBRARY, cache), outcome(LIBRARY));
  process.env.SVCSPEC_NO_CACHE = '1';
  assert.equal(sectionCache('build-a'), undefined, 'SVCSPEC_NO_CACHE=1');
});
