/**
 * npm run gen: writes the artefacts generated from the catalogs and the format schema.
 *
 *   node scripts/gen.ts           write every artefact that changed
 *   node scripts/gen.ts --check   write nothing; exit 1 naming the artefacts that are out of date
 *
 * Output is deterministic (stable order, no dates, one trailing newline), so the check
 * mode can run in CI and in test/gen.test.ts.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FORMAT_SCHEMA } from '../src/spec/format-schema.ts';
import { renderDiagnosticsDoc } from './gen/diagnostics-doc.ts';
import { renderFormatDoc } from './gen/format-doc.ts';
import { renderFormatValidator } from './gen/format-validator.ts';
import { renderHttpErrorsDoc } from './gen/http-errors-doc.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface Artefact {
  /** Relative to the project root, with forward slashes. */
  readonly path: string;
  readonly content: string;
}

/** Every generated artefact, with what the sources leave unsaid (printed, never fatal). */
export function artefacts(): { files: Artefact[]; warnings: string[] } {
  const format = renderFormatDoc();
  const diagnostics = renderDiagnosticsDoc();
  return {
    files: [
      { path: 'schema/svcspec.schema.json', content: `${JSON.stringify(FORMAT_SCHEMA, null, 2)}\n` },
      { path: 'docs/format.md', content: format.text },
      { path: 'docs/diagnostics.md', content: diagnostics.text },
      { path: 'docs/http-errors.md', content: renderHttpErrorsDoc() },
      { path: 'src/load/format-validator.generated.ts', content: renderFormatValidator() },
    ],
    warnings: [...format.warnings, ...diagnostics.warnings],
  };
}

async function current(path: string): Promise<string | undefined> {
  try {
    return await readFile(join(ROOT, path), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length) {
    process.stderr.write(`gen: unknown argument ${unknown.join(' ')}; usage: node scripts/gen.ts [--check]\n`);
    return 2;
  }
  const check = argv.includes('--check');
  const { files, warnings } = artefacts();
  for (const w of warnings) process.stderr.write(`gen: warning: ${w}\n`);
  const stale: string[] = [];
  for (const file of files) {
    const before = await current(file.path);
    if (before === file.content) continue;
    stale.push(file.path);
    if (check) continue;
    await mkdir(dirname(join(ROOT, file.path)), { recursive: true });
    await writeFile(join(ROOT, file.path), file.content);
    process.stdout.write(`gen: wrote ${file.path}\n`);
  }
  if (check && stale.length) {
    process.stderr.write(`gen: out of date: ${stale.join(', ')}. Run \`npm run gen\` and commit the result.\n`);
    return 1;
  }
  if (!stale.length) process.stdout.write(`gen: ${files.length} files up to date.\n`);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
