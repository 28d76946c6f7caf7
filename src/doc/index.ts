/**
 * doc: the Spec as a document for people, in Markdown (which loads back into the same
 * Spec) or as one self-contained HTML page. Both are written from the same sections
 * (sections.ts) and the same per-part blocks (parts/).
 */
import type { Spec } from '../spec/model.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';

export type DocFormat = 'md' | 'html';

export function renderDocument(spec: Spec, options: { format: DocFormat }): string {
  return options.format === 'html' ? renderHtml(spec) : renderMarkdown(spec);
}

export { renderHtml, renderMarkdown };
