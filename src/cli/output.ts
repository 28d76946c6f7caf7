/** Small output helpers shared by the commands. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { locationText, type Diagnostic } from '../spec/diagnostics.ts';
import { CliError } from './errors.ts';

export function printDiagnostics(diagnostics: readonly Diagnostic[], stream: NodeJS.WritableStream = process.stderr): void {
  for (const d of diagnostics) stream.write(diagnosticLine(d));
}

function diagnosticLine(d: Diagnostic): string {
  return `${locationText(d.location) || 'svcspec'}: ${d.severity}: ${d.message} [${d.code}]\n`;
}

/**
 * Many findings summarised by code: errors in full (each is something to fix), then one line
 * per code of the rest, with its count and its first occurrence. `svcspec import` of a large
 * document says thousands of things; the summary is what a reader takes in, `--verbose`
 * prints every line.
 */
export function printDiagnosticsSummary(diagnostics: readonly Diagnostic[], stream: NodeJS.WritableStream = process.stderr): void {
  const byCode = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    if (d.severity === 'error') stream.write(diagnosticLine(d));
    else byCode.set(d.code, [...(byCode.get(d.code) ?? []), d]);
  }
  const order = { error: 0, warning: 1, info: 2 } as const;
  const rows = [...byCode].sort(([, a], [, b]) => order[a[0].severity] - order[b[0].severity] || b.length - a.length);
  for (const [code, list] of rows) {
    const first = list[0];
    if (list.length === 1) stream.write(diagnosticLine(first));
    else stream.write(`svcspec: ${list.length} × ${first.severity} [${code}], the first at ${locationText(first.location) || 'svcspec'}: ${first.message}\n`);
  }
  if (rows.some(([, list]) => list.length > 1)) stream.write(`svcspec: ${diagnostics.length} findings, summarised by code; --verbose prints every one.\n`);
}

export function useColor(stream: NodeJS.WriteStream, flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

/** Writes to a file, or to stdout when no file is named. */
export async function emit(text: string, out: string | undefined): Promise<void> {
  if (!out || out === '-') {
    process.stdout.write(text);
    return;
  }
  try {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, text, 'utf8');
  } catch (error) {
    throw new CliError(`cannot write '${out}': ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CliError(`--${name} must be one of ${allowed.join(', ')}; '${value}' is not.`);
}
