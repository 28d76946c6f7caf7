/**
 * Positions in a JSON document by JSON pointer (RFC 6901), for file:line:column in findings.
 * Large OpenAPI documents are JSON (Box's is 1.7 MB, Stripe's 4 MB): parsing them with
 * JSON.parse and indexing positions with one pass of this scanner, on the first finding,
 * costs a fraction of composing a YAML document of them (the loader's SourceMap), which is
 * what made the import of a 4 MB document take seconds. The text is valid JSON already
 * (JSON.parse read it), so the scanner does not validate.
 */
import type { Location } from '../../spec/model.ts';
import { parentPointer } from '../../spec/pointer.ts';

export function jsonLocator(file: string, text: string): (pointer: string) => Location {
  let index: { offsets: Map<string, number>; lines: number[] } | undefined;
  return (pointer) => {
    index ??= { offsets: scan(text), lines: lineStarts(text) };
    for (let p: string | undefined = pointer; p !== undefined; p = parentPointer(p)) {
      const offset = index.offsets.get(p);
      if (offset !== undefined) return position(file, index.lines, offset);
    }
    return { file, line: 1, column: 1 };
  };
}

function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

function position(file: string, lines: readonly number[], offset: number): Location {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { file, line: lo + 1, column: offset - lines[lo] + 1 };
}

const escapeToken = (t: string) => (t.includes('~') || t.includes('/') ? t.replace(/~/g, '~0').replace(/\//g, '~1') : t);

/** The offset where each value starts, by pointer. */
function scan(text: string): Map<string, number> {
  const out = new Map<string, number>();
  let i = 0;
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  };
  const string = (): string => {
    const start = i;
    let escaped = false;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        escaped = true;
        i++;
      } else if (c === 34) break;
    }
    i++;
    const raw = text.slice(start, i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  };
  const value = (pointer: string): void => {
    ws();
    out.set(pointer, i);
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = string();
        ws();
        i++; // :
        value(`${pointer}/${escapeToken(key)}`);
        ws();
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${pointer}/${n}`);
        ws();
        if (text[i++] === ']') return;
      }
    }
    if (c === '"') {
      string();
      return;
    }
    // A number, true, false or null: up to the next delimiter.
    while (i < text.length && !',}] \n\r\t'.includes(text[i])) i++;
  };
  value('');
  return out;
}
