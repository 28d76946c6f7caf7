/**
 * Parses YAML (and JSON, which the same parsers read) keeping the position of every node.
 *
 * Two parsers, each for what it does best. js-yaml reads the data (an order of magnitude
 * faster on large specs) and, from its event stream, the position index
 * (./yaml-events.ts), built lazily when a finding first asks for a place: a clean spec
 * never pays for it. `yaml` knows every construct's place: it builds the index of what the
 * events do not cover (tags). When js-yaml refuses the text, `yaml` parses it again to say
 * what is wrong, with its error codes (duplicate keys, syntax) and positions. Documents with
 * anchors take the `yaml` path, which bounds alias expansion.
 */
import { createRequire } from 'node:module';
import { CORE_SCHEMA, load as fastLoad } from 'js-yaml';
import type { Document, Node } from 'yaml';
import { diagnostic, type Diagnostic } from '../spec/diagnostics.ts';
import type { Location } from '../spec/model.ts';
import { child } from '../spec/pointer.ts';
import { LOAD_CODES } from './codes.ts';
import { readSections, type SectionCache, type Sectioned } from './sections.ts';
import type { SourceMap } from './source.ts';
import { indexEvents, lineIndex, type PositionSink } from './yaml-events.ts';

export interface ParseOptions {
  readonly file: string;
  readonly language: 'YAML' | 'JSON';
  /** Lines before the text in its file (a Markdown fence), added to every position. */
  readonly lineOffset?: number;
  /** Prefix for every pointer (a Markdown section's part: `/resources`). */
  readonly pointerPrefix?: string;
  readonly sourceMap: SourceMap;
  /** Sections of the text kept from earlier loads (./sections.ts): serve passes its build's. */
  readonly sections?: SectionCache;
}

export interface Parsed {
  /** The plain data, or undefined when the text could not be parsed at all. */
  readonly data: unknown;
  readonly diagnostics: Diagnostic[];
  /** Read section by section (options.sections): what was known of them, and how to keep what is learnt. */
  readonly sectioned?: Sectioned;
}

const ANCHOR = /(^|[\s[{,:-])&[^\s]/m;

type YamlModule = typeof import('yaml');
let yamlModule: YamlModule | undefined;
/**
 * `yaml` (72 modules) is loaded when it is first needed — a finding's place, a text js-yaml
 * refuses, an anchor — not with the loader: serving or testing a clean spec never needs it
 * (issue #20, start-up). Synchronously, as the position look-up is; `yaml` ships CommonJS.
 */
const yaml = (): YamlModule =>
  // The CLI's bundle has a `require` in scope and bundles the literal call, evaluated on first use (src/spec/domain/cel.ts).
  (yamlModule ??= (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as YamlModule);

export function parseYaml(text: string, options: ParseOptions): Parsed {
  if (!ANCHOR.test(text)) {
    try {
      const load = (t: string) => fastLoad(t, { schema: CORE_SCHEMA, filename: options.file });
      // Only a whole document (not a Markdown fence) is read by sections.
      const sectioned = options.sections && options.language === 'YAML' && options.pointerPrefix === undefined && !options.lineOffset ? readSections(text, options.sections, load) : undefined;
      const data = sectioned ? sectioned.data : load(text);
      options.sourceMap.setData(options.pointerPrefix ?? '', data);
      options.sourceMap.defer(() => {
        const root = options.pointerPrefix ?? '';
        let indexed = false;
        try {
          indexed = indexEvents(text, lineIndex(text, options.file, options.lineOffset ?? 0), root, options.sourceMap);
        } catch {
          // A text the events path cannot follow is `yaml`'s to index, as one it declines.
        }
        if (!indexed) indexPositions(composeDocument(text, options), root, options.sourceMap);
      });
      return { data, diagnostics: [], ...(sectioned ? { sectioned } : {}) };
    } catch {
      // Fall through: `yaml` says what is wrong, in its terms and with positions.
    }
  }
  const parsed = composeDocument(text, options);
  if (parsed.diagnostics.length > 0) return { data: undefined, diagnostics: parsed.diagnostics };
  indexPositions(parsed, options.pointerPrefix ?? '', options.sourceMap);
  const data = parsed.doc.toJS({ maxAliasCount: 100 }) as unknown;
  options.sourceMap.setData(options.pointerPrefix ?? '', data);
  return { data, diagnostics: [] };
}

export interface Composed {
  readonly doc: Document.Parsed;
  readonly text: string;
  readonly at: (offset: number) => Location;
  readonly diagnostics: Diagnostic[];
}

/** `yaml`'s Document of the text, with its errors as findings. */
export function composeDocument(text: string, options: Pick<ParseOptions, 'file' | 'language' | 'lineOffset'>): Composed {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, keepSourceTokens: false });
  const lineOffset = options.lineOffset ?? 0;
  const at = (offset: number): Location => {
    const { line, col } = lineCounter.linePos(offset);
    return { file: options.file, line: line + lineOffset, column: col };
  };
  const diagnostics: Diagnostic[] = [];
  let misindented = -1;
  for (const error of doc.errors) {
    // A key indented deeper than the keys before it reads to `yaml` as the value above going
    // on over two lines; said so, at the key, once (its errors point at the line above it).
    const deeper = error.code === 'BLOCK_AS_IMPLICIT_KEY' || error.code === 'MULTILINE_IMPLICIT_KEY' ? deeperKey(text, error.pos[0]) : undefined;
    if (deeper) {
      if (deeper.offset !== misindented) diagnostics.push(diagnostic(LOAD_CODES.syntax, { language: options.language, reason: deeper.reason }, { location: at(deeper.offset) }));
      misindented = deeper.offset;
      continue;
    }
    const location = at(error.pos[0]);
    if (error.code === 'DUPLICATE_KEY') {
      diagnostics.push(diagnostic(LOAD_CODES.duplicateKey, { key: keyAt(text, error.pos[0]) }, { location }));
    } else {
      diagnostics.push(diagnostic(LOAD_CODES.syntax, { language: options.language, reason: firstSentence(error.message) }, { location }));
    }
  }
  return { doc, at, text, diagnostics };
}

/** The position index from `yaml`'s Document: for what ./yaml-events.ts declines, and texts with anchors. */
export function indexPositions({ doc, at, text }: Composed, root: string, sink: PositionSink): void {
  const { isMap, isPair, isScalar, isSeq } = yaml();
  const range = (start: number, end: number): Location => {
    const to = at(end);
    return { ...at(start), endLine: to.line, endColumn: to.column };
  };
  const record = (node: Node | null | undefined, pointer: string): void => {
    if (!node) return;
    if (node.range) sink.setValue(pointer, range(node.range[0], node.range[1]));
    if (isScalar(node) && typeof node.value === 'string' && node.range) {
      sink.setText(pointer, { text, start: node.range[0], style: node.type ?? 'PLAIN', value: node.value, at });
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as Node | null;
        const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
        const p = child(pointer, key);
        if (keyNode?.range) sink.setKey(p, range(keyNode.range[0], keyNode.range[1]));
        // An empty value (`key:`) has no node of its own: place it at its key.
        if (!pair.value && keyNode?.range) sink.setValue(p, range(keyNode.range[0], keyNode.range[1]));
        record(pair.value as Node | null, p);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => record(item as Node, child(pointer, index)));
    }
  };
  record(doc.contents as Node | null, root);
}

/**
 * The key on the line after `offset` when it stands deeper than the line of `offset`
 * (`name: Todo` then `   summary: …` one column further in): where, and what to say.
 */
function deeperKey(text: string, offset: number): { offset: number; reason: string } | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const nextStart = text.indexOf('\n', offset) + 1;
  if (nextStart === 0) return undefined;
  const line = text.slice(lineStart, nextStart);
  const next = text.slice(nextStart, text.indexOf('\n', nextStart) === -1 ? undefined : text.indexOf('\n', nextStart));
  const indent = /^ */.exec(line)![0].length;
  const nextIndent = /^ */.exec(next)![0].length;
  const key = /^ *(?:- +)?([^\s:#][^:#]*?|"[^"]*"|'[^']*') *:(?:\s|$)/.exec(next);
  if (!key || nextIndent <= indent || /^ *- /.test(line)) return undefined;
  const name = key[1]!.trim();
  return { offset: nextStart + nextIndent, reason: `'${name}' is indented ${nextIndent - indent} column${nextIndent - indent === 1 ? '' : 's'} deeper than the key before it; the keys of one mapping start at the same column (and a value on the key's line cannot be followed by keys under it)` };
}

/** yaml's messages carry the position and a code excerpt; we print our own position. */
function firstSentence(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '').replace(/\.$/, '');
}

/**
 * The key written at an offset. The parser's DUPLICATE_KEY error spans only the key's first
 * character, so the key is read from there: quoted, or plain up to ': ' (or the end of a flow entry).
 */
export function keyAt(text: string, offset: number): string {
  const rest = text.slice(offset, text.indexOf('\n', offset) === -1 ? undefined : text.indexOf('\n', offset));
  const quoted = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'/.exec(rest);
  if (quoted) return quoted[1] ?? quoted[2].replace(/''/g, "'");
  return (/^(.*?)\s*:(?:\s|$)/.exec(rest)?.[1] ?? /^[^,}\]]*/.exec(rest)![0]).trim();
}
