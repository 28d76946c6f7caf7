/**
 * Page cursors: opaque to clients, stable across restarts (no server secret), and checked
 * on the way back in. A cursor is the keyset position of the last record of a page — the
 * values of its sort fields and its insertion sequence — not an offset, so records
 * inserted while a client walks the pages never shift what follows.
 *
 *   cursor  = base64url( VERSION-byte  checksum(4 bytes)  JSON )
 *   JSON    = { "r": resource, "o": sort ("title,-createdAt", "" for none), "v": [values], "s": seq }
 *
 * The checksum (the first 4 bytes of SHA-256 over the JSON) catches corrupted and edited
 * cursors; it is not a signature. A forged but well-formed cursor only moves the starting
 * point: filters and ownership are applied by the server on every page regardless.
 * A cursor made for another resource or another sort order is refused.
 */
import { hash } from 'node:crypto';
import type { ScalarValue, SortKey } from '../store/store.ts';

const VERSION = 1;
const CHECKSUM_BYTES = 4;
/** Far above any honest cursor; stops a client from making the server parse megabytes. */
const MAX_CURSOR_CHARS = 4096;

export interface CursorPosition {
  readonly values: readonly ScalarValue[];
  readonly seq: number;
}

export function sortSignature(sort: readonly SortKey[]): string {
  return sort.map((k) => (k.direction === 'desc' ? `-${k.field}` : k.field)).join(',');
}

function checksum(json: Buffer): Buffer {
  // crypto.hash: the one-shot digest, cheaper than a Hash object for small inputs.
  return hash('sha256', json, 'buffer').subarray(0, CHECKSUM_BYTES);
}

export function encodeCursor(resource: string, sort: readonly SortKey[], position: CursorPosition): string {
  const json = Buffer.from(JSON.stringify({ r: resource, o: sortSignature(sort), v: position.values, s: position.seq }), 'utf8');
  return Buffer.concat([Buffer.from([VERSION]), checksum(json), json]).toString('base64url');
}

export type CursorDecoding = { readonly ok: true; readonly position: CursorPosition } | { readonly ok: false; readonly message: string };

const isScalar = (v: unknown): v is ScalarValue => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Reads a cursor back; any defect is refused with a message for the client. */
export function decodeCursor(token: string, resource: string, sort: readonly SortKey[]): CursorDecoding {
  const bad = { ok: false, message: 'is not a cursor this service issued, or it was altered; send the next cursor of the previous page as it is' } as const;
  if (token.length === 0 || token.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return bad;
  const bytes = Buffer.from(token, 'base64url');
  // Buffer decoding is lenient; a canonical round trip makes any stray character count.
  if (bytes.toString('base64url') !== token || bytes.length <= 1 + CHECKSUM_BYTES || bytes[0] !== VERSION) return bad;
  const json = bytes.subarray(1 + CHECKSUM_BYTES);
  if (!checksum(json).equals(bytes.subarray(1, 1 + CHECKSUM_BYTES))) return bad;
  let data: unknown;
  try {
    data = JSON.parse(json.toString('utf8'));
  } catch {
    return bad;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return bad;
  const { r, o, v, s } = data as Record<string, unknown>;
  if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0 || !Array.isArray(v) || !v.every(isScalar)) return bad;
  if (r !== resource) return { ok: false, message: 'is a cursor of another collection' };
  if (o !== sortSignature(sort) || v.length !== sort.length) {
    return { ok: false, message: `was issued for another sort order ('${String(o)}'); keep the sort of the first page while following its cursors` };
  }
  return { ok: true, position: { values: v, seq: s } };
}
