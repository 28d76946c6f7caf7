/**
 * Page cursors: opaque to clients, stable across restarts (no server secret), and checked
 * on the way back in. A cursor is the keyset position of the last record of a page — the
 * values of its sort fields and its insertion sequence — not an offset, so records
 * inserted while a client walks the pages never shift what follows.
 *
 *   cursor  = "2"  checksum (8 hex digits)  base64url( JSON )
 *   JSON    = [ resource, sort ("title,-createdAt", "" for none), [values], seq ]
 *
 * The checksum (32-bit FNV-1a over the JSON text) catches corrupted and edited cursors; it
 * is not a signature. A forged but well-formed cursor only moves the starting point:
 * filters and ownership are applied by the server on every page regardless. A cursor made
 * for another resource or another sort order is refused.
 *
 * Cursors are made and read on every page, so this is plain string work: no Buffer
 * concatenation, no hash object. Cursors of the first format (version 1, SHA-256-checked,
 * always starting with `A`) are still read, so a client walking pages across an upgrade
 * keeps its place:
 *   cursor  = base64url( 0x01  SHA-256(JSON)[0..4]  JSON )
 *   JSON    = { "r": resource, "o": sort, "v": [values], "s": seq }
 */
import { hash } from 'node:crypto';
import type { ScalarValue, SortKey } from '../store/store.ts';

const VERSION = '2';
const CHECKSUM_CHARS = 8;
/** Far above any honest cursor; stops a client from making the server parse megabytes. */
const MAX_CURSOR_CHARS = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface CursorPosition {
  readonly values: readonly ScalarValue[];
  readonly seq: number;
}

export function sortSignature(sort: readonly SortKey[]): string {
  if (sort.length === 0) return '';
  return sort.map((k) => (k.direction === 'desc' ? `-${k.field}` : k.field)).join(',');
}

const HEX = '0123456789abcdef';

/** 32-bit FNV-1a over the UTF-16 code units, as 8 hex digits. */
function checksum(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  // Digit by digit: Number#toString(16) of a value past 2^31 divides with fmod, digit by digit, in C++.
  let hex = '';
  for (let shift = 28; shift >= 0; shift -= 4) hex += HEX[(h >>> shift) & 0xf]!;
  return hex;
}

/** `["<resource>","",[],` per resource: a plain page's cursor JSON up to its sequence. */
const plainHeads = new Map<string, string>();

export function encodeCursor(resource: string, sort: readonly SortKey[], position: CursorPosition): string {
  // A plain page (no sort): the JSON is the resource's head and the sequence, as
  // JSON.stringify writes it (a safe integer is its decimal digits), without an array made
  // and serialized each page.
  let json: string;
  if (sort.length === 0 && position.values.length === 0 && Number.isSafeInteger(position.seq)) {
    let head = plainHeads.get(resource);
    if (head === undefined) plainHeads.set(resource, (head = JSON.stringify([resource, '', []]).slice(0, -1) + ','));
    json = `${head}${position.seq}]`;
  } else json = JSON.stringify([resource, sortSignature(sort), position.values, position.seq]);
  return `${VERSION}${checksum(json)}${Buffer.from(json, 'utf8').toString('base64url')}`;
}

export type CursorDecoding = { readonly ok: true; readonly position: CursorPosition } | { readonly ok: false; readonly message: string };

const isScalar = (v: unknown): v is ScalarValue => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

const BAD = { ok: false, message: 'is not a cursor this service issued, or it was altered; send the next cursor of the previous page as it is' } as const;

/** Reads a cursor back; any defect is refused with a message for the client. */
export function decodeCursor(token: string, resource: string, sort: readonly SortKey[]): CursorDecoding {
  if (token.length <= 1 + CHECKSUM_CHARS || token.length > MAX_CURSOR_CHARS || !BASE64URL.test(token)) return BAD;
  const fields = token[0] === VERSION ? readV2(token) : token[0] === 'A' ? readV1(token) : undefined;
  if (!fields) return BAD;
  const { r, o, v, s } = fields;
  if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0 || !Array.isArray(v) || !v.every(isScalar)) return BAD;
  if (r !== resource) return { ok: false, message: 'is a cursor of another collection' };
  if (o !== sortSignature(sort) || v.length !== sort.length) {
    return { ok: false, message: `was issued for another sort order ('${String(o)}'); keep the sort of the first page while following its cursors` };
  }
  return { ok: true, position: { values: v, seq: s } };
}

interface Fields {
  readonly r: unknown;
  readonly o: unknown;
  readonly v: unknown;
  readonly s: unknown;
}

function readV2(token: string): Fields | undefined {
  const body = token.slice(1 + CHECKSUM_CHARS);
  // Buffer decoding is lenient; only the canonical spelling of the bytes is taken, so any stray
  // character counts. (decodeCursor has checked the alphabet: canonicalBase64url reads only the end.)
  if (!canonicalBase64url(body)) return undefined;
  const json = Buffer.from(body, 'base64url').toString('utf8');
  if (checksum(json) !== token.slice(1, 1 + CHECKSUM_CHARS)) return undefined;
  const data = parse(json);
  if (!Array.isArray(data) || data.length !== 4) return undefined;
  return { r: data[0], o: data[1], v: data[2], s: data[3] };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether unpadded base64url text (its alphabet checked already) is the one spelling of its
 * bytes (RFC 4648 §3.5): no length that leaves a lone character, and the bits of the last
 * character that fall past the last byte are zero. What a decode and an encode back compare.
 */
function canonicalBase64url(text: string): boolean {
  const tail = text.length % 4;
  if (tail === 0) return true;
  if (tail === 1) return false;
  const last = ALPHABET.indexOf(text[text.length - 1]!);
  return (last & (tail === 2 ? 0x0f : 0x03)) === 0;
}

function readV1(token: string): Fields | undefined {
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.toString('base64url') !== token || bytes.length <= 5 || bytes[0] !== 1) return undefined;
  const json = bytes.subarray(5);
  if (!hash('sha256', json, 'buffer').subarray(0, 4).equals(bytes.subarray(1, 5))) return undefined;
  const data = parse(json.toString('utf8'));
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  return data as Fields;
}

function parse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}
