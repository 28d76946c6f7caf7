/**
 * doc: the Spec as a document for people, in Markdown (which loads back into the same
 * Spec) or as one self-contained HTML page. Both are written from the same sections
 * (sections.ts) and the same per-part blocks (parts/).
 */
import type { Diagnostic } from '../spec/diagnostics.ts';
import type { Spec } from '../spec/model.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';

export type DocFormat = 'md' | 'html';

export interface DocOptions {
  readonly format: DocFormat;
  /**
   * The text of the spec's file. Given, each part's "as written" block is that text, so a
   * reader sees what the author wrote, not what the loader made of it (a misspelled key,
   * a type it did not know). Without it, the block is labelled as the spec read back.
   */
  readonly source?: string;
  /** Errors to mark in the document (`svcspec doc --allow-errors`): listed at the top and in their part. */
  readonly errors?: readonly Diagnostic[];
}

export function renderDocument(spec: Spec, options: DocOptions): string {
  return options.format === 'html' ? renderHtml(spec, options) : renderMarkdown(spec, options);
}

export { renderHtml, renderMarkdown };
