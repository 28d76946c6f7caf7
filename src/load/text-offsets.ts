/**
 * From a character of a text value to where it is written. A CEL expression's error has an
 * offset into the expression; the expression is a YAML or JSON scalar, written plain, in
 * quotes (with escapes: `''`, `\"`, `\u00e9`) or as a block (`|`, `>`) indented under its
 * key. Reading the source text from the scalar's start gives the place of the character, so
 * a finding points inside the expression, not at its first quote.
 */
import type { Location } from '../spec/model.ts';

export interface TextScalar {
  /** The whole source text the scalar stands in. */
  readonly text: string;
  /** The offset of the scalar's first character (its quote, its `|`). */
  readonly start: number;
  /** yaml's scalar types: PLAIN, QUOTE_SINGLE, QUOTE_DOUBLE, BLOCK_LITERAL, BLOCK_FOLDED. */
  readonly style: string;
  /** The value it gives. */
  readonly value: string;
  /** Source offset to file:line:column. */
  readonly at: (offset: number) => Location;
}

/** The source offset of the value's character at `offset`; undefined when the text cannot be followed. */
export function sourceOffset(scalar: TextScalar, offset: number): number | undefined {
  const { text, style, value } = scalar;
  if (offset < 0 || offset > value.length) return undefined;
  let i: number;
  let v = 0;
  if (style === 'BLOCK_LITERAL' || style === 'BLOCK_FOLDED') {
    i = text.indexOf('\n', scalar.start) + 1;
    if (i === 0) return undefined;
    const indent = /^[ ]*/.exec(text.slice(i))![0].length;
    i += indent;
    while (v < offset && i < text.length) {
      if (text[i] === '\n') {
        i += 1;
        // The next line's indentation is not part of the value.
        let n = 0;
        while (n < indent && text[i] === ' ') { i += 1; n += 1; }
      } else i += 1;
      v += 1;
    }
  } else {
    const quote = style === 'QUOTE_SINGLE' || style === 'QUOTE_DOUBLE';
    i = scalar.start + (quote ? 1 : 0);
    while (v < offset && i < text.length) {
      const c = text[i];
      if (c === '\n') {
        // A line break in a flow scalar folds, with the next line's indentation, into one space.
        i += 1;
        while (text[i] === ' ' || text[i] === '\t') i += 1;
      } else if (style === 'QUOTE_SINGLE' && c === "'" && text[i + 1] === "'") i += 2;
      else if (style === 'QUOTE_DOUBLE' && c === '\\') {
        const e = text[i + 1];
        i += e === 'x' ? 4 : e === 'u' ? 6 : e === 'U' ? 10 : 2;
      } else i += 1;
      v += 1;
    }
  }
  if (v < offset) return undefined;
  // Only a place whose character is the value's: anything this reading got wrong falls back.
  if (offset < value.length) {
    const c = value[offset];
    const written = text[i];
    const escaped = style === 'QUOTE_DOUBLE' && written === '\\';
    if (c !== written && !escaped && !(style === 'QUOTE_SINGLE' && c === "'")) return undefined;
  }
  return i;
}
