/**
 * The document as Markdown in the nine-part layout, which the Markdown loader reads back
 * into the same Spec: each section holds the author's prose, a generated region of
 * tables for readers (between the markers the loader skips), and the part's content as a
 * yaml block. The title is a plain H1 when it reads back exactly; otherwise it goes into
 * the top block beside `svcspec`, and the H1 shown to readers is generated.
 */
import { GENERATED_CLOSE, GENERATED_OPEN } from '../load/markdown.ts';
import { locationText, type Diagnostic } from '../spec/diagnostics.ts';
import type { Spec } from '../spec/model.ts';
import { toDocument } from '../spec/serialize.ts';
import type { Block, Inline, Text } from './blocks.ts';
import { displayTitle, documentSections, STATEMENT_LABEL, statementCounts, type Section } from './sections.ts';
import { toYaml } from './yaml.ts';

export function renderMarkdown(spec: Spec, options: { errors?: readonly Diagnostic[] } = {}): string {
  const sections = documentSections(spec);
  const out: string[] = [];
  const plainTitle = spec.title !== undefined && isPlainTitle(spec.title);
  out.push(plainTitle ? `# ${spec.title}` : generated([`# ${inline([displayTitle(spec)])}`]));
  const { svcspec, title } = toDocument(spec);
  const top = { ...(svcspec !== undefined ? { svcspec } : {}), ...(title !== undefined && !plainTitle ? { title } : {}) };
  if (Object.keys(top).length) out.push(yamlBlock(toYaml(top)));
  const errors = options.errors ?? [];
  const errorBlocks: Block[] = errors.length
    ? [
        { kind: 'paragraph', text: [{ strong: `This specification has ${errors.length} error${errors.length === 1 ? '' : 's'}; the document shows what could be read.` }] },
        { kind: 'list', items: errors.map((e) => [{ code: locationText(e.location) }, ` ${e.message} [${e.code}]`]) },
      ]
    : [];
  out.push(generated(blocks([...errorBlocks, ...introBlocks(sections)])));
  for (const section of sections) out.push(...sectionMarkdown(section));
  return `${out.join('\n\n')}\n`;
}

function sectionMarkdown(section: Section): string[] {
  const out = [`## ${section.part.title}`];
  if (section.prose) out.push(section.prose);
  if (section.blocks.length) out.push(generated(blocks(section.blocks)));
  if (section.content !== undefined) out.push(yamlBlock(toYaml(section.content)));
  return out;
}

function introBlocks(sections: readonly Section[]): Block[] {
  const counts = statementCounts(sections);
  return [
    { kind: 'paragraph', text: [`This document states the nine parts of the service interface, in order: ${counts.given} given, ${counts.none} stated as not applicable, ${counts.gap} not shown.`] },
    { kind: 'table', columns: ['Part', 'Status'], rows: sections.map((s) => [[`${s.part.number}. ${s.part.title}`], [STATEMENT_LABEL[s.statement]]]) },
  ];
}

/** A title the loader reads back as written: no Markdown syntax, no surrounding space. */
function isPlainTitle(title: string): boolean {
  return title !== '' && title === title.trim() && !/[\r\n\\`*_[\]<>#|~!&]/.test(title);
}

function generated(lines: readonly string[]): string {
  return [GENERATED_OPEN, ...lines, GENERATED_CLOSE].join('\n\n');
}

/** A fence longer than any run of backticks in the text, so nothing inside can close it. */
function yamlBlock(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}yaml\n${text.endsWith('\n') ? text : `${text}\n`}${fence}`;
}

function blocks(list: readonly Block[]): string[] {
  return list.map(block);
}

function block(b: Block): string {
  switch (b.kind) {
    case 'paragraph':
      return lineStart(inline(b.text));
    case 'heading':
      return `### ${inline(b.text)}`;
    case 'list':
      return b.items.map((item) => `- ${lineStart(inline(item))}`).join('\n');
    case 'facts':
      return b.items.map(([label, value]) => `- **${escapeText(label)}:** ${inline(value)}`).join('\n');
    case 'table': {
      const row = (cells: readonly string[]) => `| ${cells.map((c) => c || ' ').join(' | ')} |`;
      return [row(b.columns.map(escapeText)), row(b.columns.map(() => '---')), ...b.rows.map((r) => row(r.map((cell) => inline(cell, true))))].join('\n');
    }
  }
}

function inline(text: Text, inTable = false): string {
  return text.map((part) => inlinePart(part, inTable)).join('').trim();
}

function inlinePart(part: Inline, inTable: boolean): string {
  if (typeof part === 'string') return escapeText(part);
  if ('code' in part) return codeSpan(part.code, inTable);
  const value = part.strong.trim();
  return value ? `**${escapeText(value)}**` : '';
}

/**
 * Spec text as literal Markdown text: white space collapsed (a line break could start a
 * heading or a list) and every character with a meaning backslash-escaped (CommonMark
 * allows escaping any ASCII punctuation).
 */
function escapeText(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>#|~!&]/g, '\\$&');
}

/** What would start a list, a quote or a setext underline at the start of a line. */
function lineStart(text: string): string {
  return text.replace(/^([-+=])/, '\\$1').replace(/^([0-9]+)([.)])/, '$1\\$2');
}

function codeSpan(value: string, inTable: boolean): string {
  let v = value.replace(/\s+/g, ' ');
  if (v === '') return '';
  // Inside a table a pipe ends the cell even in code; GFM lets it be escaped there.
  if (inTable) v = v.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...v.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = v.startsWith('`') || v.endsWith('`') || (v.startsWith(' ') && v.endsWith(' ')) ? ' ' : '';
  return `${ticks}${pad}${v}${pad}${ticks}`;
}
