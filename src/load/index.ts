/**
 * load: a file (YAML, JSON, or Markdown in the nine-part layout) -> Spec plus findings.
 * I/O failures and bad input are findings with a location, never a throw.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { diagnostic, type Diagnostic, type Result } from '../spec/diagnostics.ts';
import type { Spec, SpecSource } from '../spec/model.ts';
import { LOAD_CODES } from './codes.ts';
import { specFromDocument } from './document.ts';
import { parseMarkdownSpec } from './markdown.ts';
import { SourceMap } from './source.ts';
import type { SectionCache } from './sections.ts';
import { parseYaml } from './yaml.ts';

export type SourceKind = SpecSource['kind'];

export function kindOf(file: string): SourceKind | undefined {
  const ext = extname(file).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json') return 'json';
  if (ext === '.md' || ext === '.markdown' || ext === '.txt') return 'markdown';
  return undefined;
}

/** A source file's text, or why it cannot be read (not found, a directory, no permission). */
export async function readSourceFile(file: string): Promise<string | Diagnostic> {
  const whole = { file, line: 1, column: 1 };
  try {
    const info = await stat(file);
    if (info.isDirectory()) return diagnostic(LOAD_CODES.fileUnreadable, { file, reason: 'it is a directory' }, { location: whole });
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return diagnostic(LOAD_CODES.fileNotFound, { file }, { location: whole });
    return diagnostic(LOAD_CODES.fileUnreadable, { file, reason: code ?? String(error) }, { location: whole });
  }
}

export async function loadSpec(file: string): Promise<Result<Spec | undefined>> {
  return (await readSpec(file)).loaded;
}

/** loadSpec, and the text it read (for a caller that keys something on exactly that text). */
export async function readSpec(file: string, options: { sections?: SectionCache } = {}): Promise<{ loaded: Result<Spec | undefined>; text?: string }> {
  const whole = { file, line: 1, column: 1 };
  const kind = kindOf(file);
  const text = await readSourceFile(file);
  if (typeof text !== 'string') return { loaded: fail(text) };
  if (!kind) return { loaded: fail(diagnostic(LOAD_CODES.fileType, { file }, { location: whole })) };
  return { loaded: loadSpecText(text, { file, kind, ...options }), text };
}

/** `sections`: sections of YAML texts kept from earlier loads (./sections.ts), for serve's first start after an edit. */
export function loadSpecText(text: string, options: { file: string; kind: SourceKind; sections?: SectionCache }): Result<Spec | undefined> {
  const { file, kind } = options;
  if (text.trim() === '') return fail(diagnostic(LOAD_CODES.fileEmpty, { file }, { location: { file, line: 1, column: 1 } }));
  const sourceMap = new SourceMap(file, kind);
  if (kind === 'markdown') {
    const md = parseMarkdownSpec(text, { file, sourceMap });
    const built = specFromDocument(md.data, sourceMap, md.notes);
    return { value: built.value, diagnostics: byPosition([...md.diagnostics, ...built.diagnostics]) };
  }
  const parsed = parseYaml(text, { file, language: kind === 'json' ? 'JSON' : 'YAML', sourceMap, ...(options.sections ? { sections: options.sections } : {}) });
  if (parsed.data === undefined && parsed.diagnostics.length > 0) return { value: undefined, diagnostics: parsed.diagnostics };
  const { sectioned } = parsed;
  const built = specFromDocument(parsed.data, sourceMap, {}, sectioned ? { valid: sectioned.valid, validated: (passed) => sectioned.keep(passed) } : undefined);
  return { value: built.value, diagnostics: byPosition([...parsed.diagnostics, ...built.diagnostics]) };
}

/** Findings in reading order. */
export function byPosition(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => (a.location?.line ?? 0) - (b.location?.line ?? 0) || (a.location?.column ?? 0) - (b.location?.column ?? 0));
}

function fail(d: ReturnType<typeof diagnostic>): Result<undefined> {
  return { value: undefined, diagnostics: [d] };
}
