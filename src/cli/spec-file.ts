/**
 * The spec a command works on when none is named: the one `svcspec init` writes, looked
 * for in the current folder, as `tsc` finds tsconfig.json and eslint its config.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './errors.ts';

/** In this order; the first that exists is taken. */
export const DEFAULT_SPEC_FILES = ['svcspec.yaml', 'svcspec.yml', 'svcspec.json', 'svcspec.md'] as const;

export function specFileOf(given: string | undefined, cwd = process.cwd()): string {
  if (given !== undefined && given !== '') return given;
  const found = DEFAULT_SPEC_FILES.find((name) => existsSync(join(cwd, name)));
  if (found) return found;
  throw new CliError(`no spec named, and no ${DEFAULT_SPEC_FILES.join(', ')} in ${cwd}. Name the spec, or write one with 'svcspec init'.`);
}
