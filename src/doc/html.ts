/**
 * The document as one self-contained HTML page: inline CSS, no scripts, no external
 * resources. A header with the service's name and summary, the nine parts listed with
 * their status, then one section per part with the author's prose, the same tables as
 * the Markdown document, and the part as written in the format. All spec text is escaped.
 */
import type { Spec } from '../spec/model.ts';
import type { Block, Inline, Text } from './blocks.ts';
import { anchor, escapeHtml } from './escape.ts';
import { HTML_STYLE } from './html-style.ts';
import { proseToHtml } from './prose.ts';
import { displayTitle, documentSections, STATEMENT_LABEL, statementCounts, type Section } from './sections.ts';
import { toYaml } from './yaml.ts';

export function renderHtml(spec: Spec): string {
  const sections = documentSections(spec);
  const title = displayTitle(spec);
  const counts = statementCounts(sections);
  const meta = [
    ...(spec.title !== undefined && spec.purpose.name !== undefined && spec.purpose.name !== spec.title ? [`Service: ${spec.purpose.name}`] : []),
    ...(spec.formatVersion !== undefined ? [`svcspec format ${spec.formatVersion}`] : []),
    `${counts.given} of 9 parts given, ${counts.none} not applicable, ${counts.gap} not shown`,
  ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${HTML_STYLE}</style>`,
    '</head>',
    '<body>',
    '<header>',
    `<h1>${escapeHtml(title)}</h1>`,
    ...(spec.purpose.summary !== undefined ? [`<p class="summary">${escapeHtml(spec.purpose.summary.trim())}</p>`] : []),
    `<p class="meta">${meta.map(escapeHtml).join(' · ')}</p>`,
    '</header>',
    '<nav aria-label="Contents">',
    '<h2>Contents</h2>',
    '<ol>',
    ...sections.map((s) => `<li><a href="#${anchor(s.part.name)}">${escapeHtml(s.part.title)}</a> ${badge(s)}</li>`),
    '</ol>',
    '</nav>',
    '<main>',
    ...sections.map(sectionHtml),
    '</main>',
    '<footer>Written by svcspec from the specification. Paths are relative to the base address, {base_url}.</footer>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function badge(s: Section): string {
  return `<span class="badge ${s.statement}">${escapeHtml(STATEMENT_LABEL[s.statement])}</span>`;
}

function sectionHtml(s: Section): string {
  const note = s.statement === 'gap' ? 'gap-note' : s.statement === 'none' ? 'none-note' : undefined;
  const body = s.blocks.map(blockHtml).join('\n');
  return [
    `<section id="${anchor(s.part.name)}">`,
    `<h2><span class="number">${s.part.number}.</span> ${escapeHtml(s.part.title)} ${badge(s)}</h2>`,
    ...(s.prose ? [proseToHtml(s.prose)] : []),
    ...(body ? [note ? `<div class="${note}">${body}</div>` : body] : []),
    ...(s.content !== undefined
      ? [`<details class="source"><summary>As written in the specification (YAML)</summary><pre><code>${escapeHtml(toYaml(s.content))}</code></pre></details>`]
      : []),
    '</section>',
  ].join('\n');
}

function blockHtml(b: Block): string {
  switch (b.kind) {
    case 'paragraph':
      return `<p>${inline(b.text)}</p>`;
    case 'heading':
      return `<h3>${inline(b.text)}</h3>`;
    case 'list':
      return `<ul>\n${b.items.map((item) => `<li>${inline(item)}</li>`).join('\n')}\n</ul>`;
    case 'facts':
      return `<dl>\n${b.items.map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${inline(value)}</dd>`).join('\n')}\n</dl>`;
    case 'table':
      return [
        '<div class="table-wrap"><table>',
        `<thead><tr>${b.columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('')}</tr></thead>`,
        '<tbody>',
        ...b.rows.map((row) => `<tr>${row.map((cell) => `<td>${inline(cell)}</td>`).join('')}</tr>`),
        '</tbody>',
        '</table></div>',
      ].join('\n');
  }
}

function inline(text: Text): string {
  return text.map(inlinePart).join('');
}

function inlinePart(part: Inline): string {
  if (typeof part === 'string') return escapeHtml(part);
  if ('code' in part) return `<code>${escapeHtml(part.code)}</code>`;
  return `<strong>${escapeHtml(part.strong)}</strong>`;
}
