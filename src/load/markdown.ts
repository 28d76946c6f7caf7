/**
 * Markdown in the nine-part layout. PLACEHOLDER until the Markdown loader lands:
 * returns an empty document, so every part is a gap.
 */
import type { Diagnostic } from '../spec/diagnostics.ts';
import type { PartName } from '../spec/parts.ts';
import type { PartNote } from './document.ts';
import type { SourceMap } from './source.ts';

export interface MarkdownSpec {
  /** The document assembled from the sections' yaml blocks: `{ title?, svcspec?, purpose: ..., ... }`. */
  readonly data: Record<string, unknown>;
  readonly notes: Partial<Record<PartName, PartNote>>;
  readonly diagnostics: Diagnostic[];
}

export function parseMarkdownSpec(_text: string, _options: { file: string; sourceMap: SourceMap }): MarkdownSpec {
  return { data: {}, notes: {}, diagnostics: [] };
}
