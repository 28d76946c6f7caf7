/**
 * The document as one self-contained HTML page: inline CSS, no scripts, no external
 * resources. A header with the service's name and summary, the nine parts listed with
 * their status, then one section per part with the author's prose, the same tables as
 * the Markdown document, and the part as written in the format. All spec text is escaped.
 */
import { locationText, type Diagnostic } from '../spec/diagnostics.ts';
import type { Spec } from '../spec/model.ts';
import type { Block, Inline, Text } from './blocks.ts';
import { anchor, escapeHtml } from './escape.ts';
import { HTML_STYLE } from './html-style.ts';
import { proseToHtml } from './prose.ts';
import { displayTitle, documentSections, STATEMENT_LABEL, statementCounts, type Section } from './sections.ts';
import { toYaml } from './yaml.ts';

export function renderHtml(spec: Spec, options: { source?: string; errors?: readonly Diagnostic[] } = {}): string {
  const sections = documentSections(spec);
  const errors = options.errors ?? [];
  const written = options.source === undefined ? undefined : writtenPart(spec, options.source);
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
    ...(errors.length ? [errorsHtml(errors, `This specification has ${errors.length} error${errors.length === 1 ? '' : 's'}; the document shows what could be read.`, 'errors')] : []),
    '<nav aria-label="Contents">',
    '<h2>Contents</h2>',
    '<ol>',
    ...sections.map((s) => `<li><a href="#${anchor(s.part.name)}">${escapeHtml(s.part.title)}</a> ${badge(s)}</li>`),
    '</ol>',
    '</nav>',
    '<main>',
    ...sections.map((s) => sectionHtml(s, errors.filter((e) => partOf(e) === s.part.name), written)),
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

function sectionHtml(s: Section, errors: readonly Diagnostic[], written: ((s: Section) => string | undefined) | undefined): string {
  const note = s.statement === 'gap' ? 'gap-note' : s.statement === 'none' ? 'none-note' : undefined;
  const body = s.blocks.map(blockHtml).join('\n');
  return [
    `<section id="${anchor(s.part.name)}">`,
    `<h2><span class="number">${s.part.number}.</span> ${escapeHtml(s.part.title)} ${badge(s)}</h2>`,
    ...(errors.length ? [errorsHtml(errors, `Errors in this part (${errors.length}):`, 'errors part-errors')] : []),
    ...(s.prose ? [proseToHtml(s.prose)] : []),
    ...(body ? [note ? `<div class="${note}">${body}</div>` : body] : []),
    ...sourceHtml(s, written),
    '</section>',
  ].join('\n');
}

/**
 * The part as the author wrote it: the lines of the source file under the part's key (YAML,
 * JSON) or in its section's block (Markdown). Without the source text, the part as read
 * back, labelled so: never the loader's corrections presented as the author's words.
 */
function sourceHtml(s: Section, written: ((s: Section) => string | undefined) | undefined): string[] {
  const text = written?.(s);
  if (text !== undefined) return [`<details class="source"><summary>As written in the specification</summary><pre><code>${escapeHtml(text)}</code></pre></details>`];
  if (s.content === undefined) return [];
  return [`<details class="source"><summary>As read from the specification (YAML)</summary><pre><code>${escapeHtml(toYaml(s.content))}</code></pre></details>`];
}

function writtenPart(spec: Spec, source: string): (s: Section) => string | undefined {
  const lines = source.split(/\r?\n/);
  return (s) => {
    const pointer = `/${s.part.name}`;
    if (s.statement === 'gap' || !spec.source.has(pointer)) return undefined;
    const value = spec.source.locate(pointer);
    const key = spec.source.locateKey(pointer);
    // YAML and JSON: from the part's key to the end of its value. Markdown: the section's block.
    const first = spec.source.kind === 'markdown' ? value.line : Math.min(key.line, value.line);
    const last = value.endLine ?? value.line;
    if (value.line === 1 && value.column === 1 && last === 1 && spec.source.kind !== 'markdown') return undefined;
    const picked = lines.slice(first - 1, last);
    // The end of a Markdown block's value is the closing fence's line.
    while (picked.length && (picked.at(-1)!.trim() === '' || (spec.source.kind === 'markdown' && /^\s*(`{3,}|~{3,})\s*$/.test(picked.at(-1)!)))) picked.pop();
    const indent = Math.min(...picked.filter((l) => l.trim() !== '').map((l) => /^\s*/.exec(l)![0].length));
    return picked.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
  };
}

function partOf(d: Diagnostic): string | undefined {
  return d.part ?? /^\/([^/]+)/.exec(d.pointer ?? '')?.[1];
}

function errorsHtml(errors: readonly Diagnostic[], heading: string, className: string): string {
  return [
    `<div class="${className}" role="note">`,
    `<p><strong>${escapeHtml(heading)}</strong></p>`,
    '<ul>',
    ...errors.map((e) => `<li><code>${escapeHtml(locationText(e.location))}</code> ${escapeHtml(e.message)} <span class="code">[${escapeHtml(e.code)}]</span></li>`),
    '</ul>',
    '</div>',
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
  // Code with no space nor '/' is one word: a hyphen or '=' in it (`malformed-body`) is no place to break a line.
  if ('code' in part) return /^[^\s/]+$/.test(part.code) ? `<code class="word">${escapeHtml(part.code)}</code>` : `<code>${escapeHtml(part.code)}</code>`;
  return `<strong>${escapeHtml(part.strong)}</strong>`;
}

