/**
 * The author's Markdown prose on the HTML page, rendered by micromark. Its defaults keep
 * the page safe: raw HTML in the prose is escaped, and link targets with unsafe protocols
 * (javascript:, ...) are dropped.
 */
import { micromark } from 'micromark';

export function proseToHtml(markdown: string): string {
  return `<div class="prose">${micromark(markdown)}</div>`;
}
