/** Test helpers: load a spec from text, as the loader would from a file. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

/** The founding document, beside the repository (../shared/seeds); tests of it skip loudly, naming the path, where it is absent. */
export const FOUNDING_PATH = fileURLToPath(new URL('../../../shared/seeds/000_a7ef063def403b81.txt', import.meta.url));
export const FOUNDING_SKIP: string | false = existsSync(FOUNDING_PATH) ? false : `founding document not found at ${FOUNDING_PATH}`;
