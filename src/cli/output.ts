/** Small output helpers shared by the commands. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { locationText, type Diagnostic } from '../spec/diagnostics.ts';
import { CliError } from './errors.ts';

export function printDiagnostics(diagnostics: readonly Diagnostic[], stream: NodeJS.WritableStream = process.stderr): void {
  for (const d of diagnostics) stream.write(`${locationText(d.location) || 'svcspec'}: ${d.severity}: ${d.message} [${d.code}]\n`);
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
