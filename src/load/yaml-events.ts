/**
 * The position index from js-yaml's event stream (`parseEvents`: every scalar with its source
 * range, every collection with its start), for the texts js-yaml reads: the common case.
 *
 * Why not `yaml`'s Document, as before: on the check bench's spec (121,000 lines) building
 * it took 0.9 s of the 1.9 s of `svcspec check`, for 30 findings; its CST parser alone is
 * ~7x js-yaml's whole load. The events take ~60 ms.
 *
 * The places are those `yaml` gives (test/load/yaml-events.test.ts compares the two indexes
 * over every spec in the repository, corner cases and generated documents):
 *   scalar       its first character: the quote of a quoted one, the `|` or `>` of a block;
 *                to the end of its value (after the closing quote; a block's last line
 *                that is not blank, or its last when kept with `+`)
 *   empty value  (`key:`) just after its `:` and the blanks after it, as `yaml` places its
 *                empty node; a flow map's key without a `:` (`{a, b: 1}`) stands for it
 *   collection   its first item (block) or bracket (flow); to the end of its last item,
 *                with that item's line (a comment on it, the line break: a block's) or
 *                after its closing bracket (flow)
 *   key          the key as written, quotes included; its member name as the loaded data
 *                has it (a plain key read by the core schema's implicit types: `1`, `true`)
 * One difference, on purpose: a block collection ends with its last item. `yaml` counts in
 * some comment lines after it (those indented deeper, not always); they are not the value's.
 * Collection ends are not in the events (a pop has no place), so they are read from the
 * text: after the last item, only blanks, commas, colons and comments can stand before the
 * closing bracket.
 *
 * What this does not index it declines, and the caller builds the index with `yaml` as
 * before: a tag, a key that is not a scalar, an empty or explicit (`? k`) key, directives,
 * an empty document, a block scalar of blank lines only. Texts with anchors never come here
 * (./yaml.ts).
 */
import { boolCoreTag, CHOMPING_MODE, EVENT_ID, floatCoreTag, getScalarValue, intCoreTag, NOT_RESOLVED, nullCoreTag, parseEvents, SCALAR_STYLE, type Event, type ScalarEvent } from 'js-yaml';
import type { Location } from '../spec/model.ts';
import { child } from '../spec/pointer.ts';
import type { TextScalar } from './text-offsets.ts';

/** Where positions go: the SourceMap, or a test's recorder. */
export interface PositionSink {
  setValue(pointer: string, location: Location): void;
  setKey(pointer: string, location: Location): void;
  setText(pointer: string, scalar: TextScalar): void;
}

/** Source offset to file:line:column (1-based, as `yaml`'s LineCounter). */
export function lineIndex(text: string, file: string, lineOffset: number): (offset: number) => Location {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { file, line: lo + 1 + lineOffset, column: offset - starts[lo]! + 1 };
  };
}

const STYLE_NAMES: Record<number, string> = {
  [SCALAR_STYLE.PLAIN]: 'PLAIN',
  [SCALAR_STYLE.SINGLE_QUOTED]: 'QUOTE_SINGLE',
  [SCALAR_STYLE.DOUBLE_QUOTED]: 'QUOTE_DOUBLE',
  [SCALAR_STYLE.LITERAL_BLOCK]: 'BLOCK_LITERAL',
  [SCALAR_STYLE.FOLDED_BLOCK]: 'BLOCK_FOLDED',
};

/** A plain scalar that the core schema may read as other than a string (a number, a boolean, null). */
const MAYBE_NOT_TEXT = /^(?:[-+.0-9~]|(?:true|false|null|True|False|Null|TRUE|FALSE|NULL)$)/;

interface Frame {
  readonly pointer: string;
  readonly start: number;
  readonly flow: boolean;
  readonly map: boolean;
  /** Items seen (a sequence's next index). */
  index: number;
  /** A map's key just read, awaiting its value: its pointer and where its `:` search starts. */
  key: string | undefined;
  keyStart: number;
  keyEnd: number;
  /** The end of the last item's value, and of its node (with its line, in a block). */
  lastValueEnd: number;
  lastNodeEnd: number;
}

/**
 * Indexes `text` into `sink`; false (and nothing indexed) when the text has what this does
 * not index, or js-yaml does not read it.
 */
export function indexEvents(text: string, at: (offset: number) => Location, root: string, sink: PositionSink): boolean {
  // Directives come before the document: a header search from the text's start would read them.
  if (/^\uFEFF?%/.test(text)) return false;
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch {
    return false;
  }
  const found: [kind: 0 | 1 | 2, pointer: string, value: Location | TextScalar][] = [];
  const range = (start: number, end: number): Location => {
    const to = at(end);
    return { ...at(start), endLine: to.line, endColumn: to.column };
  };
  /** The end of a block item's node: its value, then blanks, a comment and the line break. */
  const lineEnd = (offset: number): number => {
    // A block scalar's value ends with its line break.
    if (text[offset - 1] === '\n') return offset;
    let i = offset;
    while (text[i] === ' ' || text[i] === '\t') i += 1;
    if (text[i] === '#') {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? text.length : nl;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') i += 1;
    if (text[i] === '\n') i += 1;
    return i;
  };
  /** The next character of `chars` at or after `offset`, comments skipped. */
  const next = (offset: number, chars: string): number => {
    for (let i = offset; i < text.length; i += 1) {
      const c = text[i]!;
      if (chars.includes(c)) return i;
      if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
        const nl = text.indexOf('\n', i);
        if (nl === -1) return -1;
        i = nl;
      }
    }
    return -1;
  };

  const stack: Frame[] = [];
  /** Records a value node that has ended: its place, and its parent's last item. */
  const ended = (pointer: string, start: number, valueEnd: number, parent: Frame | undefined, kind: 'node' | 'block' | 'empty' = 'node'): void => {
    found.push([0, pointer, range(start, valueEnd)]);
    if (parent) {
      parent.lastValueEnd = valueEnd;
      // A block collection's end is already past its last line; an empty value's node
      // (`key:`) takes its line only with a comment on it, as `yaml` reads it.
      const own = parent.flow || kind === 'block' || (kind === 'empty' && text[valueEnd] !== '#');
      parent.lastNodeEnd = own ? valueEnd : lineEnd(valueEnd);
    }
  };
  /** The pointer of the value about to be read, and its parent; undefined at the root. */
  const place = (): { pointer: string; parent: Frame | undefined } => {
    const parent = stack.at(-1);
    if (!parent) return { pointer: root, parent };
    if (parent.map) {
      const pointer = parent.key!;
      parent.key = undefined;
      return { pointer, parent };
    }
    return { pointer: child(parent.pointer, parent.index++), parent };
  };

  let documents = 0;
  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        documents += 1;
        if (documents > 1) return false;
        continue;
      case EVENT_ID.ALIAS:
        return false;
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE: {
        if (event.tagStart !== -1 || event.anchorStart !== -1) return false;
        const top = stack.at(-1);
        if (top?.map && top.key === undefined) return false; // a collection as a key
        const { pointer } = place();
        // Before the first item: after a flow collection's bracket, at a block sequence's first `-`.
        const flow = event.style === 2;
        const first = flow ? event.start + 1 : event.start;
        stack.push({ pointer, start: event.start, flow, map: event.type === EVENT_ID.MAPPING, index: 0, key: undefined, keyStart: 0, keyEnd: 0, lastValueEnd: first, lastNodeEnd: first });
        continue;
      }
      case EVENT_ID.POP: {
        const frame = stack.pop();
        if (!frame) continue; // the document's
        let end: number;
        if (frame.flow) {
          const close = next(frame.lastValueEnd, frame.map ? '}' : ']');
          if (close === -1) return false;
          end = close + 1;
        } else end = frame.lastNodeEnd;
        const parent = stack.at(-1);
        ended(frame.pointer, frame.start, end, parent, frame.flow ? 'node' : 'block');
        continue;
      }
      case EVENT_ID.SCALAR: {
        if (event.tagStart !== -1 || event.anchorStart !== -1) return false;
        const top = stack.at(-1);
        if (top?.map && top.key === undefined) {
          // A key: its text names the member, as the loaded data does. An empty one (`: v`) is declined.
          if (event.valueStart === -1) return false;
          const extent = written(event, text, top.lastNodeEnd);
          if (!extent) return false;
          const [start, end] = extent;
          // An explicit key (`? a`): `yaml` ends its empty value otherwise; declined, as rare in specs.
          let before = start - 1;
          while (text[before] === ' ' || text[before] === '\t') before -= 1;
          if (text[before] === '?') return false;
          top.key = child(top.pointer, keyText(text, event));
          top.keyStart = start;
          top.keyEnd = end;
          found.push([1, top.key, range(start, end)]);
          top.lastValueEnd = end;
          continue;
        }
        const keyEnd = top?.map ? top.keyEnd : undefined;
        const { pointer, parent } = place();
        if (event.valueStart === -1 && !parent) return false; // an empty document: `yaml` places it after its `---`
        if (event.valueStart === -1) {
          // An empty value, where `yaml` places it: after its `:` (its `-`) and the blanks
          // that follow; a flow map's key without a `:` (`{a, b: 1}`) stands for it.
          let offset: number;
          let to: number;
          if (keyEnd !== undefined) {
            const colon = nextMark(text, keyEnd);
            [offset, to] = text[colon] === ':' ? [blanks(text, colon + 1), -1] : [top!.keyStart, keyEnd];
          } else {
            const dash = parent ? next(parent.lastNodeEnd, '-') : -1;
            [offset, to] = [dash === -1 ? 0 : blanks(text, dash + 1), -1];
          }
          ended(pointer, offset, to === -1 ? offset : to, parent, 'empty');
          continue;
        }
        const extent = written(event, text, parent ? parent.lastValueEnd : 0);
        if (!extent) return false;
        const [start, end] = extent;
        ended(pointer, start, end, parent);
        const value = getScalarValue(text, event);
        if (event.style !== SCALAR_STYLE.PLAIN || !MAYBE_NOT_TEXT.test(value) || typeof core(value) === 'string') {
          found.push([2, pointer, { text, start, style: STYLE_NAMES[event.style]!, value, at }]);
        }
        continue;
      }
    }
  }
  for (const [kind, pointer, value] of found) {
    if (kind === 0) sink.setValue(pointer, value as Location);
    else if (kind === 1) sink.setKey(pointer, value as Location);
    else sink.setText(pointer, value as TextScalar);
  }
  return true;
}

/** The offset after `offset`'s blanks (spaces and tabs, on its line). */
function blanks(text: string, offset: number): number {
  let i = offset;
  while (text[i] === ' ' || text[i] === '\t') i += 1;
  return i;
}

/** The first character at or after `offset` that is not white space or in a comment. */
function nextMark(text: string, offset: number): number {
  let i = offset;
  for (; i < text.length; i += 1) {
    if (text[i] === '#') {
      const nl = text.indexOf('\n', i);
      if (nl === -1) return text.length;
      i = nl;
    } else if (!/\s/.test(text[i]!)) break;
  }
  return i;
}

/** A scalar's written extent: its quotes, its block header (searched for from `from`). */
function written(event: ScalarEvent, text: string, from: number): [number, number] | undefined {
  const start = event.valueStart;
  const end = event.valueEnd;
  switch (event.style) {
    case SCALAR_STYLE.SINGLE_QUOTED:
    case SCALAR_STYLE.DOUBLE_QUOTED:
      return [start - 1, end + 1];
    case SCALAR_STYLE.LITERAL_BLOCK:
    case SCALAR_STYLE.FOLDED_BLOCK: {
      // The header (`|`, `>-`, `|2`) is the first indicator after the item's start, comments skipped.
      // Its value ends with its last line that is not blank, but when kept (`|+`) whole. A line
      // of spaces past the block's indentation is not blank: those spaces are text.
      let last = end;
      if (event.chomping !== CHOMPING_MODE.KEEP) {
        const blank = new RegExp(`^ {0,${Math.max(event.indent, 0)}}\\r?\\n?$`);
        while (last > start) {
          const lineStart = text.lastIndexOf('\n', last - 2) + 1;
          if (lineStart < start || !blank.test(text.slice(lineStart, last))) break;
          last = lineStart;
        }
        if (last === start) return undefined; // all blank: `yaml` places it otherwise; declined
      }
      for (let i = from; i < start; i += 1) {
        const c = text[i];
        if (c === '|' || c === '>') return [i, last];
        if (c === '#') i = text.indexOf('\n', i);
        if (i === -1) break;
      }
      return [start, last];
    }
    default:
      return [start, end];
  }
}

/** A key's member name: its text, or for a plain key the core schema's reading of it (`1`, `true`). */
function keyText(text: string, event: ScalarEvent): string {
  const value = getScalarValue(text, event);
  if (event.style !== SCALAR_STYLE.PLAIN || !MAYBE_NOT_TEXT.test(value)) return value;
  return String(core(value));
}

/** The core schema's implicit types, in its order (CORE_SCHEMA's own): what a plain scalar may be besides text. */
const IMPLICIT = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag];

/** A plain scalar as the core schema reads it, as the loader's js-yaml does; else its text. */
function core(value: string): unknown {
  for (const tag of IMPLICIT) {
    const read = tag.resolve(value, false, tag.tagName);
    if (read !== NOT_RESOLVED) return read;
  }
  return value;
}
