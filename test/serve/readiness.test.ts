/**
 * serve's readiness verdict (src/serve/readiness.ts) runs only what it needs of `check` (the
 * rules that can find an error, the gaps, the safety defaults): on every spec of the examples
 * and of the tests it must say what the verdict read from the whole check report says.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkSpec } from '../../src/check/index.ts';
import { loadSpec } from '../../src/load/index.ts';
import { mustLoad } from '../support/spec.ts';
import { errorLines, readiness, type Readiness } from '../../src/serve/readiness.ts';
import { PART_BY_NAME, type PartName } from '../../src/spec/parts.ts';
import type { Diagnostic } from '../../src/spec/diagnostics.ts';
import type { Spec } from '../../src/spec/model.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The verdict as serve read it from checkSpec's whole report, before it ran only the error rules. */
function fromWholeReport(spec: Spec, diagnostics: readonly Diagnostic[]): Readiness {
  const report = checkSpec(spec, diagnostics);
  const gaps = report.parts.filter((p) => p.status === 'gap');
  if (gaps.length === report.parts.length) return { ok: false, reasons: ['Nothing to serve: every part of the spec is not shown.'], notes: [] };
  const reasons: string[] = [];
  for (const part of ['resources', 'endpoints'] as PartName[]) {
    if (spec.parts[part].statement !== 'given') reasons.push(`Part ${PART_BY_NAME[part].number}, ${PART_BY_NAME[part].title}, is ${spec.parts[part].statement === 'gap' ? 'not shown' : 'stated as none'}: there is nothing to serve without it.`);
  }
  const errors = report.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) reasons.push(`The spec has ${errors.length === 1 ? 'an error' : `${errors.length} errors`}: ${errorLines(errors).join('; ')}${errors.length > 3 ? `; and ${errors.length - 3} more` : ''}. Run 'svcspec check ${spec.source.file}' for ${errors.length === 1 ? 'it' : 'all of them'} in context.`);
  const notes = [...gaps.map((p) => `Part ${p.number}, ${p.title}: not shown, so not enforced.`), ...report.defaults.map((d) => `Default ${d.key}: ${d.value} (the spec is silent).`)];
  return { ok: reasons.length === 0, reasons, notes };
}

function specFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : specFiles(path);
    return /\.(ya?ml|json|md)$/.test(e.name) ? [path] : [];
  });
}

test('readiness: the verdict of the error rules is the verdict of the whole check, on every spec of the examples and tests', async () => {
  const files = [...specFiles(join(ROOT, 'examples')), ...specFiles(join(ROOT, 'test')), ...specFiles(join(ROOT, 'bench/fixtures'))];
  let compared = 0;
  for (const file of files) {
    const loaded = await loadSpec(file);
    if (!loaded.value) continue;
    assert.deepEqual(readiness(loaded.value, loaded.diagnostics), fromWholeReport(loaded.value, loaded.diagnostics), file);
    compared++;
  }
  assert.ok(compared >= 10, `only ${compared} specs compared`);
});

test('readiness: a refusal names the first errors, placed, with their codes', () => {
  const spec = mustLoad(`svcspec: 1
purpose: {name: Notes, summary: Keeps notes., users: [{name: writer, tasks: [write]}]}
resources:
  note:
    plural: notes
    id: {field: id, assigned: uuid}
    fields: {id: {type: string, readOnly: true}, text: string}
states: {none: None.}
endpoints:
  note:
    read: {path: '/notes/{id}/revisions/{id}'}
authentication: {none: Open.}
events: {none: None.}
errors: {shape: problem, catalog: {not-found: {status: 404, title: Not found}}}
limits: {none: None.}
versioning: {none: One.}
`);
  const verdict = readiness(spec, []);
  assert.equal(verdict.ok, false);
  assert.match(verdict.reasons.join('\n'), /^The spec has an error: \S*:11:\d+: Endpoint 'note\.read' names the parameter 'id' twice in its path \/notes\/\{id\}\/revisions\/\{id\}\. \[endpoint-path-param-repeated\]\. Run 'svcspec check \S+' for it in context\.$/m);
});
