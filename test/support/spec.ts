/** Test helpers: load a spec from text, as the loader would from a file. */
import { loadSpecText } from '../../src/load/index.ts';
import type { Diagnostic } from '../../src/spec/diagnostics.ts';
import type { Spec } from '../../src/spec/model.ts';

export function load(text: string, kind: 'yaml' | 'json' | 'markdown' = 'yaml'): { spec: Spec | undefined; diagnostics: readonly Diagnostic[] } {
  const r = loadSpecText(text, { file: `test.${kind === 'markdown' ? 'md' : kind}`, kind });
  return { spec: r.value, diagnostics: r.diagnostics };
}

/** Loads text that must load; fails the test with the findings otherwise. */
export function mustLoad(text: string, kind: 'yaml' | 'json' | 'markdown' = 'yaml'): Spec {
  const { spec, diagnostics } = load(text, kind);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!spec || errors.length) throw new Error(`spec did not load:\n${errors.map((d) => `${d.location?.line}:${d.location?.column} ${d.code} ${d.message}`).join('\n')}`);
  return spec;
}
