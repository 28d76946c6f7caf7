/**
 * Markdown in the nine-part layout of the founding document
 * (shared/seeds/000_a7ef063def403b81.txt):
 *
 *   # Title                        optional; the document's `title`
 *   ```yaml                        optional top block, before the first section:
 *   svcspec: 1                     only `svcspec` and `title` (a `title` here wins over the H1)
 *   ```
 *   ## What the service does       the nine level-2 sections, titled as PARTS[i].title
 *   prose ...                      (case-insensitive, and numbered or not: `## 1. What the
 *   ```yaml                        service does`, `## 1) …`, `## Part 1: …`, as the README
 *   name: ...                      numbers them); level-3+ headings are prose. yaml, yml or
 *   ```                            json blocks: the part's content, as it would stand under
 *                                  the part's key in YAML. Several blocks in a section are
 *                                  maps merged key by key; a key two blocks both give is an
 *                                  error, never a silent winner.
 *
 * A missing section is a gap; a section without a block whose prose says "not shown" is a
 * gap too (the founding document's wording); a block `none: reason` states the part does
 * not apply. Text between `<!-- svcspec:generated -->` and `<!-- /svcspec:generated -->`
 * (the tables `svcspec doc` writes for humans) is not read: it is derived from the blocks.
 * A region ends at its closing marker, or at the next level-2 heading when it is unclosed,
 * so a forgotten marker cannot swallow the sections after it. Only top-level yaml blocks
 * count; a block inside a list or a quote is prose. Text before the first section other
 * than the title and the top block is an introduction and is not kept.
 */
import { createRequire } from 'node:module';
import { diagnostic, didYouMean, type Diagnostic } from '../spec/diagnostics.ts';
import type { Location } from '../spec/model.ts';
import { PART_BY_NAME, PARTS, isPartName, type PartName } from '../spec/parts.ts';
import { pointer } from '../spec/pointer.ts';
import { LOAD_CODES } from './codes.ts';
import type { PartNote } from './document.ts';
import type { SourceMap } from './source.ts';
import { parseYaml } from './yaml.ts';

export interface MarkdownSpec {
  /** The document assembled from the sections' yaml blocks: `{ title?, svcspec?, purpose: ..., ... }`. */
  readonly data: Record<string, unknown>;
  readonly notes: Partial<Record<PartName, PartNote>>;
  readonly diagnostics: Diagnostic[];
}

/** The markers around generated, human-only content; the renderer writes them, the loader skips them. */
export const GENERATED_OPEN = '<!-- svcspec:generated -->';
export const GENERATED_CLOSE = '<!-- /svcspec:generated -->';

const OPEN = /^<!--\s*svcspec:generated\s*-->$/;
const CLOSE = /^<!--\s*\/svcspec:generated\s*-->$/;
const NOT_SHOWN = /\bnot shown\b/i;
/** The keys the top block may hold; the parts belong in their sections. */
const TOP_KEYS = ['svcspec', 'title'];

type Root = ReturnType<typeof import('mdast-util-from-markdown').fromMarkdown>;
type Block = Root['children'][number];
type Heading = Extract<Block, { type: 'heading' }>;
type Code = Extract<Block, { type: 'code' }>;
type Range = readonly [start: number, end: number];

interface Section {
  readonly heading: Heading;
  readonly title: string;
  readonly blocks: Code[];
  /** Offset where the next section starts. */
  end: number;
}

/** The blocks that hold content: YAML, and JSON (which YAML 1.2 reads as it is). */
export function isYamlBlock(lang: string | null | undefined): boolean {
  const l = (lang ?? '').toLowerCase();
  return l === 'yaml' || l === 'yml' || l === 'json';
}

export function parseMarkdownSpec(text: string, options: { file: string; sourceMap: SourceMap }): MarkdownSpec {
  const { file, sourceMap } = options;
  // The Markdown parser (about 40 modules) is loaded with the first Markdown spec, not with the
  // loader (issue #20, start-up); synchronously, as loading is (require of an ES module, Node ≥ 22.12).
  // The CLI's bundle has a `require` in scope and bundles the literal call, evaluated on first use (src/spec/domain/cel.ts).
  const { fromMarkdown } = (typeof require === 'function' ? require('mdast-util-from-markdown') : createRequire(import.meta.url)('mdast-util-from-markdown')) as typeof import('mdast-util-from-markdown');
  const tree = fromMarkdown(text);
  const diagnostics: Diagnostic[] = [];
  const lines = lineStarts(text);
  const regions = generatedRegions(tree.children, text.length);

  // One walk over the top-level blocks: title, top blocks, sections and their yaml blocks.
  let h1: Heading | undefined;
  const topBlocks: Code[] = [];
  const sections: Section[] = [];
  for (const node of tree.children) {
    if (regions.skipped.has(node)) continue;
    const current = sections.at(-1);
    if (node.type === 'heading' && node.depth === 2) {
      sections.push({ heading: node, title: plainText(node), blocks: [], end: text.length });
      if (current) current.end = startOf(node);
    } else if (node.type === 'heading' && node.depth === 1 && !current && !h1) {
      h1 = node;
    } else if (node.type === 'code' && isYamlBlock(node.lang)) {
      (current ? current.blocks : topBlocks).push(node);
    }
  }

  const data: Record<string, unknown> = {};
  const yamlOf = (node: Code, pointerPrefix: string) => {
    const { source, lineOffset } = blockSource(text, lines, node);
    const language = (node.lang ?? '').toLowerCase() === 'json' ? 'JSON' : 'YAML';
    const parsed = parseYaml(source, { file, language, lineOffset, pointerPrefix, sourceMap });
    diagnostics.push(...parsed.diagnostics);
    return parsed.data;
  };
  /** A section's blocks as one value: one block as it is; several, maps merged key by key. */
  const contentOf = (blocks: readonly Code[], pointerPrefix: string, title: string): unknown => {
    if (blocks.length === 0) return undefined;
    if (blocks.length === 1) return yamlOf(blocks[0], pointerPrefix);
    let merged: Record<string, unknown> = {};
    const firstLine = new Map<string, number>();
    for (const block of blocks) {
      const value = yamlOf(block, pointerPrefix);
      if (value === undefined || value === null) continue;
      if (typeof value !== 'object' || Array.isArray(value)) {
        diagnostics.push(diagnostic(LOAD_CODES.markdownManyBlocks, { title, count: blocks.length }, { pointer: pointerPrefix, location: locationOf(file, block) }));
        continue;
      }
      merged = mergeMaps(merged, value as Record<string, unknown>, pointerPrefix, (p) => {
        const key = p.slice(pointerPrefix.length + 1).split('/').join('.');
        let first: string | undefined = p;
        while (first && !firstLine.has(first)) first = first.slice(0, first.lastIndexOf('/')) || undefined;
        diagnostics.push(diagnostic(LOAD_CODES.markdownKeyTwice, { key, title, line: (first && firstLine.get(first)) ?? '?' }, { pointer: p, location: sourceMap.locateKey(p) }));
      }, (p) => firstLine.set(p, block.position?.start.line ?? 0));
    }
    return merged;
  };

  // The top block: format version and title.
  if (topBlocks[0]) diagnostics.push(...readTopBlock(contentOf(topBlocks, '', '(top of the document)'), locationOf(file, topBlocks[0]), data, sourceMap));
  // The whole document, not the top block, stands for the root.
  sourceMap.setValue('', { file, line: 1, column: 1 });
  if (data.title === undefined && h1) {
    const title = headingSource(text, h1);
    if (title) {
      data.title = title;
      sourceMap.setValue('/title', locationOf(file, h1));
      sourceMap.setKey('/title', locationOf(file, h1));
    }
  }

  // The sections, in document order, so that document.ts can check the order of the parts.
  const notes: Partial<Record<PartName, PartNote>> = {};
  const seen = new Set<PartName>();
  for (const section of sections) {
    const key = normalizeTitle(withoutNumber(section.title));
    const part = PARTS.find((p) => normalizeTitle(p.title) === key);
    const location = locationOf(file, section.heading);
    if (!part) {
      diagnostics.push(diagnostic(LOAD_CODES.markdownUnknownSection, { title: section.title, hint: sectionHint(section.title) }, { location }));
      continue;
    }
    if (seen.has(part.name)) {
      diagnostics.push(diagnostic(LOAD_CODES.markdownDuplicateSection, { title: section.title }, { pointer: pointer(part.name), location }));
      continue;
    }
    seen.add(part.name);
    const p = pointer(part.name);
    // Findings about the part as a whole (a gap, its order) point at its heading.
    sourceMap.setKey(p, location);
    sourceMap.setValue(p, location);
    const block = section.blocks[0];
    data[part.name] = contentOf(section.blocks, p, section.title);
    const cut: Range[] = [...section.blocks.map((b) => [startOf(b), endOf(b)] as const), ...regions.ranges];
    const prose = proseBetween(text, endOf(section.heading), section.end, cut);
    const notShown = !block && NOT_SHOWN.test(prose);
    if (prose || notShown) notes[part.name] = { ...(prose ? { prose } : {}), ...(notShown ? { notShown } : {}) };
  }
  return { data, notes, diagnostics };
}

/** The top block: `svcspec` and `title` go into the document; anything else is a finding. */
function readTopBlock(value: unknown, where: Location, data: Record<string, unknown>, sourceMap: SourceMap): Diagnostic[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) {
    const actual = Array.isArray(value) ? 'a list' : `the ${typeof value} '${String(value)}'`;
    return [diagnostic(LOAD_CODES.wrongType, { where: 'The top yaml block', expected: "a map of 'svcspec' and 'title'", actual }, { location: where })];
  }
  const out: Diagnostic[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (TOP_KEYS.includes(key)) {
      data[key] = v;
      continue;
    }
    const hint = isPartName(key)
      ? ` Put the content of '${key}' in the yaml block of its section, '## ${PART_BY_NAME[key].title}'.`
      : didYouMean(key, TOP_KEYS);
    const p = pointer(key);
    out.push(diagnostic(LOAD_CODES.unknownKey, { key, where: 'the top yaml block', hint }, { pointer: p, location: sourceMap.locateKey(p) }));
  }
  return out;
}

/** Whitespace-collapsed, lower-case: titles compare case-insensitively and trimmed. */
function normalizeTitle(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** `1. `, `1) `, `Part 1: `, `1 - ` before a part's title: numbering, as the README's table numbers the parts. */
function withoutNumber(title: string): string {
  return title.trim().replace(/^(?:part\s+)?\d+\s*(?:[.):]|\s-)?\s+/i, '');
}

/**
 * `into` with `from`'s members added; maps under the same key merge in turn. A key both give
 * with a value that is not a map on both sides is reported (by its pointer), and the first kept.
 */
function mergeMaps(into: Record<string, unknown>, from: Record<string, unknown>, at: string, twice: (pointer: string) => void, added: (pointer: string) => void): Record<string, unknown> {
  const out = { ...into };
  for (const [key, value] of Object.entries(from)) {
    const p = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (!Object.hasOwn(out, key)) {
      out[key] = value;
      added(p);
    } else if (isMap(out[key]) && isMap(value)) {
      out[key] = mergeMaps(out[key], value, p, twice, added);
    } else {
      twice(p);
    }
  }
  return out;
}

function sectionHint(title: string): string {
  title = withoutNumber(title);
  // `## Purpose` names a part by its key rather than its title: say which title it needs.
  const byName = PARTS.find((p) => p.name === normalizeTitle(title));
  if (byName) return ` Did you mean '${byName.title}'?`;
  return didYouMean(title.trim(), PARTS.map((p) => p.title));
}

/**
 * The generated regions: the top-level nodes they cover (markers included) and their
 * source ranges. Regions do not nest; a stray closing marker is skipped as well.
 */
function generatedRegions(children: readonly Block[], textLength: number): { skipped: Set<Block>; ranges: Range[] } {
  const skipped = new Set<Block>();
  const ranges: Range[] = [];
  let start: number | undefined;
  for (const node of children) {
    const marker = node.type === 'html' ? node.value.trim() : '';
    if (start === undefined) {
      if (OPEN.test(marker)) start = startOf(node);
      else if (CLOSE.test(marker)) ranges.push([startOf(node), endOf(node)]);
      else continue;
      skipped.add(node);
    } else if (node.type === 'heading' && node.depth === 2) {
      ranges.push([start, startOf(node)]);
      start = undefined;
    } else {
      skipped.add(node);
      if (CLOSE.test(marker)) {
        ranges.push([start, endOf(node)]);
        start = undefined;
      }
    }
  }
  if (start !== undefined) ranges.push([start, textLength]);
  return { skipped, ranges };
}

/** The section's own text between two offsets, without the cut ranges; trimmed. */
function proseBetween(text: string, from: number, to: number, cut: readonly Range[]): string {
  const inside = cut.filter(([s, e]) => e > from && s < to).sort((a, b) => a[0] - b[0]);
  const pieces: string[] = [];
  let at = from;
  for (const [s, e] of inside) {
    if (s > at) pieces.push(text.slice(at, s));
    at = Math.max(at, e);
  }
  if (at < to) pieces.push(text.slice(at, to));
  return pieces.map(trimBlankLines).filter((p) => p !== '').join('\n\n');
}

/** Leading blank lines and trailing white space go; the first line's indentation stays (it may be code). */
function trimBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
}

/**
 * The raw lines between the fences of a block, so that YAML columns are the file's own
 * (mdast strips a fence's indentation from its value), and the line of the opening fence.
 */
function blockSource(text: string, lines: readonly number[], node: Code): { source: string; lineOffset: number } {
  const first = node.position?.start.line ?? 1;
  const last = node.position?.end.line ?? first;
  const fence = /^[ \t]*(`{3,}|~{3,})/.exec(lineText(text, lines, first));
  let to = endOf(node);
  if (fence && last > first) {
    const char = fence[1][0] === '`' ? '`' : '~';
    const closing = new RegExp(`^ {0,3}${char}{${fence[1].length},}[ \\t]*\\r?$`);
    if (closing.test(lineText(text, lines, last))) to = lines[last - 1];
  }
  const from = lines[first] ?? text.length;
  return { source: text.slice(from, Math.max(from, to)), lineOffset: first };
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineText(text: string, lines: readonly number[], line: number): string {
  const start = lines[line - 1] ?? text.length;
  const next = lines[line];
  return text.slice(start, next === undefined ? text.length : next - 1);
}

/** A heading's text as written (markup included), without its `#` marks. */
function headingSource(text: string, heading: Heading): string {
  const first = heading.children[0];
  const last = heading.children.at(-1);
  if (!first || !last) return '';
  return text.slice(startOf(first), endOf(last)).trim();
}

function plainText(node: { value?: unknown; children?: readonly unknown[] }): string {
  if (typeof node.value === 'string') return node.value;
  return (node.children ?? []).map((c) => plainText(c as typeof node)).join('');
}

interface Positioned {
  readonly position?: { readonly start: { line: number; column: number; offset?: number }; readonly end: { line: number; column: number; offset?: number } };
}

function startOf(node: Positioned): number {
  return node.position?.start.offset ?? 0;
}

function endOf(node: Positioned): number {
  return node.position?.end.offset ?? 0;
}

function locationOf(file: string, node: Positioned): Location {
  const start = node.position?.start ?? { line: 1, column: 1 };
  const end = node.position?.end ?? start;
  return { file, line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
}
