/**
 * Request bodies are I-JSON (RFC 7493): JSON text that is UTF-8 (RFC 8259 §8.1) whose strings
 * hold no unpaired surrogate, escaped or not (RFC 7493 §2.1: "MUST NOT include ... code
 * points that identify Surrogates or Noncharacters" — svcspec refuses the surrogates, which
 * no UTF-8 encoder could write back, and keeps noncharacters, which are valid Unicode). Bytes
 * that are not UTF-8 would otherwise become U+FFFD, and a lone `\ud800` would be stored as
 * sent and sent on to every reader that cannot encode it; both are 400 `malformed-body`.
 *
 * Nesting is bounded (RFC 8259 §9: "An implementation may set limits on the maximum depth of
 * nesting"): a body nested deeper than MAX_DEPTH levels is 400 `malformed-body`. V8's
 * JSON.stringify recurses and overflows the stack at about 4,500 levels, so a 10 KB body of
 * brackets in a free-form `object` field was a 500 when stored; 1,000 is Jackson's default
 * bound, far above any API payload. It is a bound of the HTTP layer, like the 100 characters
 * of a path segment, not a value a spec could declare.
 *
 * Fastify's own JSON parser stays underneath, for its prototype-poisoning protection
 * (`onProtoPoisoning: 'error'`). The checks walk the parsed value with a stack of their own,
 * not by recursion, so no body, however deep, reaches the call stack's limit here.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';
import { escapeToken } from '../spec/pointer.ts';

/**
 * The error of a body Fastify's parser refused: where it stops being JSON, in V8's words (the
 * echo of the text V8 adds is left out); or, for JSON that parses, the prototype-poisoning
 * members the parser refuses (`onProtoPoisoning`, `onConstructorPoisoning`).
 */
function notJson(text: string): HttpError {
  try {
    JSON.parse(text);
  } catch (error) {
    // "Expected ',' or '}' after property value in JSON at position 13 (line 1 column 14)"
    // "Unexpected token '}', "{"a": tru}" is not valid JSON", "…, ..."1,1,x,2"... is not valid JSON"
    // ""NaN" is not valid JSON": V8 echoes the text, which is never sent back.
    const raw = (error as Error).message;
    const message = /^"[\s\S]*" is not valid JSON$/.test(raw) ? 'it is not a JSON value' : raw.replace(/, (?:\.\.\.)?"[\s\S]*$/, '');
    const where = /^(.*?)(?: in JSON)?(?: at position \d+)?(?: \(line (\d+) column (\d+)\))?$/s.exec(message);
    const place = where?.[2] ? ` at line ${where[2]}, column ${where[3]}` : '';
    return new HttpError('malformed-body', { detail: `The body is not well-formed JSON (RFC 8259)${place}: ${where?.[1] ?? message}.` });
  }
  return new HttpError('malformed-body', { detail: 'The body holds a "__proto__" member, or a "constructor" with a "prototype": refused, as they could change what objects inherit in a JavaScript reader (prototype poisoning).' });
}

/** With the u flag a pair is one code point, so only an unpaired surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Levels of arrays and objects a body may nest (see the header). */
export const MAX_DEPTH = 1_000;

const MEDIA_TYPES = ['application/json', 'application/merge-patch+json'] as const;

/** Replaces the JSON parsers of the media types bodies may have (app.ts acceptJsonOnly). */
export function parseStrictJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parser = (request: FastifyRequest, body: Buffer, done: (err: Error | null, value?: unknown) => void): void => {
    let text: string;
    try {
      text = decoder.decode(body);
    } catch {
      return done(new HttpError('malformed-body', { detail: `The body is not valid UTF-8 (RFC 8259 §8.1): ${firstBadByte(body)}.` }));
    }
    parse(request, text, (error: Error | null, value?: unknown) => {
      if (error) return done((error as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? notJson(text) : error);
      // Neither defect fits in most bodies, and the walk builds a pointer per member: a depth
      // past MAX_DEPTH takes an opening and a closing bracket a level, and a lone surrogate
      // comes only from a \u escape (the fatal decoder above never makes one).
      if (text.length < 2 * (MAX_DEPTH + 1) && !text.includes('\\u')) return done(null, value);
      const defect = notIJson(value, MAX_DEPTH);
      if (defect === undefined) return done(null, value);
      const detail = defect.kind === 'depth'
        ? `The body nests arrays and objects deeper than ${MAX_DEPTH} levels (at ${defect.pointer.slice(0, 120)}…); this service reads at most ${MAX_DEPTH} (RFC 8259 §9).`
        : `The body holds an unpaired surrogate (a lone \\ud800-\\udfff escape) at ${defect.pointer === '' ? 'the top' : defect.pointer}; I-JSON (RFC 7493 §2.1) forbids it.`;
      done(new HttpError('malformed-body', { detail }));
    });
  };
  for (const type of MEDIA_TYPES) {
    if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
    app.addContentTypeParser(type, { parseAs: 'buffer' }, parser);
  }
}

/**
 * The first defect of a parsed body, in one walk: an array or object nested deeper than `max`
 * levels, or a string (member name or value) with an unpaired surrogate; with its JSON pointer.
 */
export function notIJson(value: unknown, max: number): { readonly kind: 'depth' | 'surrogate'; readonly pointer: string } | undefined {
  const stack: [unknown, number, string][] = [[value, 0, '']];
  while (stack.length > 0) {
    const [v, depth, pointer] = stack.pop() as [unknown, number, string];
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return { kind: 'surrogate', pointer };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return { kind: 'depth', pointer };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], depth + 1, `${pointer}/${i}`]);
      continue;
    }
    for (const [k, member] of Object.entries(v)) {
      const at = `${pointer}/${escapeToken(k)}`;
      if (LONE_SURROGATE.test(k)) return { kind: 'surrogate', pointer: at };
      stack.push([member, depth + 1, at]);
    }
  }
  return undefined;
}

function firstBadByte(body: Buffer): string {
  // The longest prefix a streaming decoder takes without error; the next byte cannot be UTF-8 there.
  let lo = 0;
  let hi = body.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  // When that byte cuts a sequence short, the sequence starts at its lead byte, up to 3 before.
  let start = lo;
  for (let k = lo - 1; k >= Math.max(0, lo - 3); k--) {
    if (body[k] >= 0xc0) {
      start = k;
      break;
    }
    if (body[k] < 0x80) break;
  }
  return `the bytes from offset ${start} are not a UTF-8 sequence`;
}
