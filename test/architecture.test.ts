/**
 * Imports point one way (STYLE.md): cli -> serve/conformance/proxy/export/import -> check/load ->
 * spec. The tester, the proxy and export never import the reference service (what several
 * stages must agree on lives in src/spec/conventions), and src/spec imports no stage. The
 * proxy reuses the tester's pure pieces (its Exchange, shapes, report formats, redaction):
 * both judge by the spec alone, so proxy -> conformance is allowed, and never the reverse.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The stage a source file belongs to: its first folder under src (or `root`). */
function stageOf(file: string): string {
  const rel = relative(SRC, file).split('/');
  return rel.length > 1 ? rel[0] : 'root';
}

/** Each stage and the stages it may import (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  spec: [],
  load: ['spec'],
  check: ['spec', 'load'],
  doc: ['spec', 'load', 'check'],
  store: ['spec'],
  export: ['spec', 'load', 'check'],
  import: ['spec', 'load', 'check', 'export'],
  conformance: ['spec', 'load', 'check'],
  proxy: ['spec', 'load', 'check', 'conformance'],
  serve: ['spec', 'load', 'check', 'store', 'doc', 'export'],
  cli: ['spec', 'load', 'check', 'doc', 'store', 'serve', 'conformance', 'proxy', 'export', 'import', 'root'],
  root: ['spec', 'load', 'check', 'doc', 'export', 'import', 'root'],
};

test('architecture: every import of src points the way STYLE.md draws it', () => {
  const wrong: string[] = [];
  for (const file of files(SRC)) {
    const from = stageOf(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)) {
      const spec = m[1] ?? m[2];
      const to = stageOf(resolve(dirname(file), spec));
      // The one diagnostic catalog gathers each stage's codes (pure data, no behaviour).
      if (relative(SRC, file) === 'check/catalog.ts' && spec.endsWith('/codes.ts')) continue;
      if (to !== from && !ALLOWED[from]?.includes(to)) wrong.push(`${relative(SRC, file)} imports ${spec} (${from} -> ${to})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('architecture: the proxy never imports the reference service, nor the tester the proxy', () => {
  assert.ok(!ALLOWED.proxy.includes('serve'));
  assert.ok(!ALLOWED.conformance.includes('proxy'));
});
