/**
 * Request bodies are I-JSON (RFC 7493): JSON text that is UTF-8 (RFC 8259 §8.1) whose strings
 * hold no unpaired surrogate, escaped or not (RFC 7493 §2.1: "MUST NOT include ... code
 * points that identify Surrogates or Noncharacters" — svcspec refuses the surrogates, which
 * no UTF-8 encoder could write back, and keeps noncharacters, which are valid Unicode). Bytes
 * that are not UTF-8 would otherwise become U+FFFD, and a lone `\ud800` would be stored as
 * sent and sent on to every reader that cannot encode it; both are 400 `malformed-body`.
 *
 * Fastify's own JSON parser stays underneath, for its prototype-poisoning protection
 * (`onProtoPoisoning: 'error'`). The check walks the parsed value with a stack of its own,
 * not by recursion: a body nested thousands of levels deep costs memory in proportion to its
 * size (bounded by the body limit), never the call stack.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';
import { escapeToken } from '../spec/pointer.ts';

/** With the u flag a pair is one code point, so only an unpaired surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

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
      if (error) return done(error);
      const at = unpairedSurrogate(value);
      if (at !== undefined) return done(new HttpError('malformed-body', { detail: `The body holds an unpaired surrogate (a lone \\ud800-\\udfff escape) at ${at === '' ? 'the top' : at}; I-JSON (RFC 7493 §2.1) forbids it.` }));
      done(null, value);
    });
  };
  for (const type of MEDIA_TYPES) {
    if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
    app.addContentTypeParser(type, { parseAs: 'buffer' }, parser);
  }
}

/** The JSON pointer of the first string (member name or value) with an unpaired surrogate, or undefined. */
export function unpairedSurrogate(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, pointer] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return pointer;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${pointer}/${i}`]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, member] of Object.entries(v)) {
        const at = `${pointer}/${escapeToken(k)}`;
        if (LONE_SURROGATE.test(k)) return at;
        stack.push([member, at]);
      }
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
