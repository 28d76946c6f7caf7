/** The generated artefacts (npm run gen): current, complete, and consistent with their sources. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DIAGNOSTIC_CATALOG } from '../src/check/catalog.ts';
import { checkSpec } from '../src/check/index.ts';
import { FORMAT_SCHEMA } from '../src/spec/format-schema.ts';
import { SITUATIONS } from '../src/spec/http-errors.ts';
import { FORMAT_EXAMPLE } from '../scripts/gen/format-example.ts';
import { load } from './support/spec.ts';

const root = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const read = (path: string) => readFileSync(root(path), 'utf8');

test('the committed artefacts are what npm run gen writes (gen --check exits 0)', () => {
  const run = spawnSync(process.execPath, [root('scripts/gen.ts'), '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `scripts/gen.ts --check failed; run npm run gen.\n${run.stderr}`);
});

test('schema/svcspec.schema.json is FORMAT_SCHEMA as JSON', () => {
  assert.deepEqual(JSON.parse(read('schema/svcspec.schema.json')), JSON.parse(JSON.stringify(FORMAT_SCHEMA)));
});

test('every diagnostic code is unique', () => {
  const codes = DIAGNOSTIC_CATALOG.map((d) => d.code);
  const twice = codes.filter((c, i) => codes.indexOf(c) !== i);
  assert.deepEqual(twice, [], `defined more than once: ${twice.join(', ')}`);
});

test('every diagnostic code has its row, with an anchor, in docs/diagnostics.md', () => {
  const doc = read('docs/diagnostics.md');
  const missing = DIAGNOSTIC_CATALOG.filter((d) => !doc.includes(`<a id="${d.code}"></a>\`${d.code}\``)).map((d) => d.code);
  assert.deepEqual(missing, []);
});

test('every link between the generated documents leads to an anchor', () => {
  const docs = ['format', 'diagnostics', 'http-errors'] as const;
  const anchors = new Map(docs.map((d) => [d, new Set([...read(`docs/${d}.md`).matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]))]));
  const broken: string[] = [];
  for (const d of docs) {
    for (const [, file, id] of read(`docs/${d}.md`).matchAll(/\]\((?:([a-z-]+)\.md)?#([^)]+)\)/g)) {
      const target = (file ?? d) as (typeof docs)[number];
      if (!anchors.get(target)?.has(id!)) broken.push(`docs/${d}.md -> ${target}.md#${id}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the example at the top of docs/format.md is a complete, consistent spec', () => {
  assert.ok(read('docs/format.md').includes(FORMAT_EXAMPLE.trimEnd()));
  const { spec, diagnostics } = load(FORMAT_EXAMPLE);
  const report = checkSpec(spec, diagnostics);
  assert.deepEqual(report.diagnostics.map((d) => `${d.location?.line}:${d.location?.column} ${d.code} ${d.message}`), []);
  assert.deepEqual(report.parts.map((p) => p.status), Array(9).fill('complete'));
});

test("the schema's `for` lists exactly the situations of HTTP_ERRORS", () => {
  const forNode = FORMAT_SCHEMA.definitions.errors.properties.catalog.additionalProperties.properties.for;
  assert.deepEqual([...forNode.anyOf[0].enum], [...SITUATIONS]);
  assert.deepEqual([...forNode.anyOf[1].items.enum], [...SITUATIONS]);
});
