/** Doc test helpers: the examples as they load today, and a Spec compared without its source. */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../../src/load/index.ts';
import { hasErrors } from '../../src/spec/diagnostics.ts';
import type { Spec } from '../../src/spec/model.ts';

export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples/', import.meta.url));
export const FOUNDING = fileURLToPath(new URL('../../../shared/seeds/000_a7ef063def403b81.txt', import.meta.url));

export interface Example {
  readonly name: string;
  /** Undefined when the example does not load (yet): someone may still be writing it. */
  readonly spec?: Spec;
  readonly problem?: string;
}

export async function examples(): Promise<Example[]> {
  const names = (await readdir(EXAMPLES_DIR)).filter((n) => /\.ya?ml$/.test(n)).sort();
  return Promise.all(names.map(async (name): Promise<Example> => {
    const { value, diagnostics } = await loadSpec(`${EXAMPLES_DIR}${name}`);
    if (!value || hasErrors(diagnostics)) {
      const first = diagnostics.find((d) => d.severity === 'error');
      return { name, problem: first ? `${first.location?.line}:${first.location?.column} ${first.message}` : 'it did not load' };
    }
    return { name, spec: value };
  }));
}

/** The Spec without its source: what must survive a round trip. */
export function withoutSource(spec: Spec | undefined): Omit<Spec, 'source'> | undefined {
  if (!spec) return undefined;
  const { source: _source, ...rest } = spec;
  return rest;
}
