/**
 * The position index from js-yaml's events (src/load/yaml-events.ts) against the one `yaml`'s
 * Document gives (src/load/yaml.ts indexPositions), which it replaces where it can: every
 * key, value and text place the same, over every spec in the repository, hand-picked corner
 * cases, and generated documents in every style the two dumpers write.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import fc from 'fast-check';
import { dump } from 'js-yaml';
import { stringify, type ToStringOptions } from 'yaml';
import { composeDocument, indexPositions } from '../../src/load/yaml.ts';
import { indexEvents, lineIndex, type PositionSink } from '../../src/load/yaml-events.ts';
import { load } from '../support/spec.ts';
import type { Location } from '../../src/spec/model.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function recorder(): { entries: Map<string, unknown>; sink: PositionSink } {
  const entries = new Map<string, unknown>();
  return {
    entries,
    sink: {
      setValue: (p, l) => entries.set(`value ${p}`, l),
      setKey: (p, l) => entries.set(`key ${p}`, l),
      setText: (p, t) => entries.set(`text ${p}`, { start: t.start, style: t.style, value: t.value, at: t.at(t.start) }),
    },
  };
}

/** Both indexes of `text`; undefined when `yaml` refuses it (the loader reports that instead). */
function both(text: string, file = 'spec.yaml'): { yaml: Map<string, unknown>; events: Map<string, unknown> | undefined } | undefined {
  const composed = composeDocument(text, { file, language: 'YAML' });
  if (composed.diagnostics.length) return undefined;
  const a = recorder();
  indexPositions(composed, '', a.sink);
  const b = recorder();
  return { yaml: a.entries, events: indexEvents(text, lineIndex(text, file, 0), '', b.sink) ? b.entries : undefined };
}

/** The offset of a 1-based line and column. */
function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) at = text.indexOf('\n', at) + 1;
  return at + column - 1;
}

/**
 * The one difference allowed, by design (src/load/yaml-events.ts): a collection ends with its
 * last item, where `yaml` counts in some comment lines after it. Same start; the events' end
 * earlier, with only blank and comment lines between.
 */
function commentsAfter(text: string, fromYaml: unknown, fromEvents: unknown): boolean {
  const y = fromYaml as Location | undefined;
  const e = fromEvents as Location | undefined;
  if (!y || !e || y.line !== e.line || y.column !== e.column || y.endLine === undefined || e.endLine === undefined) return false;
  const a = offsetOf(text, e.endLine, e.endColumn!);
  const b = offsetOf(text, y.endLine, y.endColumn!);
  return a < b && text.slice(a, b).split('\n').every((l) => /^\s*(#[^\n]*)?$/.test(l));
}

function assertSame(text: string, file?: string): 'same' | 'declined' | 'refused' {
  const r = both(text, file);
  if (!r) return 'refused';
  if (!r.events) return 'declined';
  const differ = [...new Set([...r.yaml.keys(), ...r.events.keys()])].filter((k) => JSON.stringify(r.yaml.get(k)) !== JSON.stringify(r.events!.get(k)) && !commentsAfter(text, r.yaml.get(k), r.events!.get(k)));
  assert.deepEqual(differ.map((k) => `${k}: ${JSON.stringify(r.yaml.get(k))} / ${JSON.stringify(r.events!.get(k))}`), [], `in ${file ?? JSON.stringify(text)}`);
  return 'same';
}

test('every YAML and JSON file of the repository is indexed as `yaml` indexes it', () => {
  const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml', '*.json'], { cwd: root, encoding: 'utf8' }).split('\n').filter((f) => f && !/(^|\/)(package(-lock)?|tsconfig[\w.]*)\.json$/.test(f));
  assert.ok(files.length >= 25, `found ${files.length} files`);
  const outcomes = files.map((f) => assertSame(readFileSync(`${root}${f}`, 'utf8'), f));
  // Only a text with what the events do not index may be declined (none in the repository has).
  assert.equal(outcomes.filter((o) => o === 'declined').length, 0);
  assert.ok(outcomes.filter((o) => o === 'same').length >= 25);
});

test('corner cases: empty values, comments, block headers, flow, numeric keys, CRLF, a byte-order mark', () => {
  const text = [
    '---',
    '# a comment first',
    'a:',
    'b:   # empty, with a comment',
    'c: [x, y]',
    'd: {p, q: 1, r: }',
    'e:',
    '  -',
    '  - x',
    '  -   # c',
    '  - - n1',
    '    - n2',
    '  - k: 1',
    '    l: 2',
    'f: plain',
    '  on two lines',
    'g: |2+',
    '    kept',
    '',
    'h: >',
    '  fold',
    '  ed',
    '"quo\\"ted": \'it\'\'s\'',
    '1: one',
    'true: yes',
    '0x1A: hex',
    '.5: half',
    '~: tilde',
    'i: "a # not a comment"',
    'j: x # a comment | with a bar',
    'k: |-   # a header comment | with a bar',
    '  body',
    'l:',
    '  - a   # x | y',
    '  - |',
    '    text',
    'm: { "a": [ 1, 2 ], \'b\': { } }',
    'n: [',
    '  1,',
    '  2,',
    '  ]',
    'o: "multi',
    '  line quoted"',
    '...',
    '',
  ].join('\n');
  assert.equal(assertSame(text), 'same');
  assert.equal(assertSame(text.replace(/\n/g, '\r\n')), 'same');
  assert.equal(assertSame(`\uFEFF${text}`), 'same');
  assert.equal(assertSame('{"svcspec": 1, "purpose": {"name": "X", "users": [{"name": "a", "tasks": ["t"]}]}}\n'), 'same');
  // Keys and values the core schema reads as text though they look like YAML (`---`, `-`), an empty
  // value last in its collection, blank lines indented past a block's text, comments after the last item.
  for (const t of ['x:\n  ---: 1\n', 'x:\n  -: 1\n', 'x:\n  a: 1\n  --- a: 2\n', 'x:\n  null: 1\n  ---: 2\n', 'k: --- 1\n', '- --- 1\n', '{--- 1: a}\n',
    'a:\n  b: 1\n  c:\nd: 2\n', 'a:\n  - 1\n  -\nd: 2\n', 'a:\n', '- a\n-\n', 'a:\t\n', 'a:\n  c: # x\nd: 1\n', 'a: |\n  x\n   \n', 'a: |\n x\n\n  \n',
    'a:\n  b: 1\n    # deeper\n# c\n', '- a\n- b: c\n  d:\n    # c\n- - e\n']) {
    assert.equal(assertSame(t), 'same', JSON.stringify(t));
  }
  // What the events path leaves to `yaml`: an empty key, an explicit key, directives, an empty document.
  for (const t of [': v\n', '{: v}\n', '? a\n# c\n:\n', 'x:\n  ? ---\n  : 1\n', '%FOO a|b\n--- |\n  x\n', '--- # c\n']) {
    assert.equal(assertSame(t), 'declined', JSON.stringify(t));
  }
});

test('a tag is declined, and the loader still places every finding (through `yaml`)', () => {
  assert.equal(assertSame('a: !!str 1\nb: 2\n'), 'declined');
  const spec = load('svcspec: 1\npurpose:\n  name: !!str Shop\n  summary: 42\n');
  const d = spec.diagnostics.find((x) => x.pointer === '/purpose/summary');
  assert.ok(d, JSON.stringify(spec.diagnostics));
  assert.deepEqual({ line: d.location?.line, column: d.location?.column }, { line: 4, column: 12 });
});

const key = fc.oneof(
  fc.constantFrom('a', 'name', 'x y', '1', '200', 'true', 'null', '~', '-k', 'a:b', 'a #b', "it's", 'q"q', '', '.5', '0x1A', 'é'),
  fc.string({ maxLength: 8 }),
);
const text = fc.oneof(
  fc.constantFrom('', ' ', 'plain', 'a: b', '# x', 'x # y', 'line\nline', 'tail\n', '  lead', "it's", 'q"q', '\\', '\t', '1.0', 'true', '|', '> x', '- y', '[z]', '{w}', '@a', '`b', 'é', '😀'),
  fc.string({ maxLength: 20 }),
);
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('list'), tie('map')),
  list: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
})).value;

const writers = [
  fc.record({
    defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'),
    collectionStyle: fc.constantFrom('any', 'block', 'flow'),
    indent: fc.integer({ min: 1, max: 4 }),
    lineWidth: fc.constantFrom(0, 20, 80),
    nullStr: fc.constantFrom('null', '~', ''),
  }).map((o) => (v: unknown) => stringify(v, null, { ...o, defaultKeyType: 'PLAIN' } as ToStringOptions)),
  fc.record({
    flowLevel: fc.integer({ min: -1, max: 3 }),
    quotingType: fc.constantFrom("'", '"') as fc.Arbitrary<"'" | '"'>,
    forceQuotes: fc.boolean(),
    lineWidth: fc.constantFrom(-1, 20, 80),
    indent: fc.integer({ min: 1, max: 4 }),
  }).map((o) => (v: unknown) => dump(v, o)),
  fc.constant((v: unknown) => JSON.stringify(v, null, 2)),
];

test('generated documents in every style are indexed as `yaml` indexes them', () => {
  let same = 0;
  const outcomes = { same: 0, declined: 0, refused: 0 };
  fc.assert(
    fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 }), fc.oneof(...writers), fc.array(fc.nat(), { maxLength: 3 }), (data, write, comments) => {
      let written: string;
      try {
        written = write(data);
      } catch {
        return;
      }
      // Comment lines put between lines (where they make the text invalid, `yaml` refuses it and the case is skipped).
      const lines = written.split('\n');
      for (const at of comments) lines.splice(at % (lines.length + 1), 0, '# a comment');
      const outcome = assertSame(lines.join('\n'));
      if (outcome === 'same') same += 1;
      outcomes[outcome] += 1;
    }),
    { numRuns: Number(process.env.RUNS ?? 400) },
  );
  const runs = Number(process.env.RUNS ?? 400);
  if (process.env.RUNS) console.log(outcomes);
  assert.ok(same >= runs / 2, `only ${same} of ${runs} generated documents were compared`);
});
