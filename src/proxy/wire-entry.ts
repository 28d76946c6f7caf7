/**
 * The wire core's (./wire.ts) record of one request, from its arrival to its answer's last
 * byte, and the text of the heads it writes to the client.
 */
import { type Forwarding, fieldOf, HOP_BY_HOP } from './core.ts';
import type { Socket } from 'node:net';

const { STATUS_CODES } = process.getBuiltinModule('node:http');

export const CRLF = '\r\n';
export const EMPTY = Buffer.alloc(0);

/** A request body too large to hold (CoreRequest.beyond), on its way upstream as it comes. */
export interface Upload {
  /** What came before the request could go upstream: at most the cap, and what one read brought past it. */
  readonly waiting: Buffer[];
  /** The client's Content-Length, by which it goes upstream; undefined: chunked (RFC 9112 §7.1). */
  readonly length: string | undefined;
  /** Its head has gone upstream: chunks go straight after it. */
  started: boolean;
  /** The client has sent the whole body. */
  complete: boolean;
  /** Nowhere to send the rest (the upstream's connection is gone or ended): dropped as it comes. */
  dropped: boolean;
}

/** One request, from its arrival to its answer's last byte. */
export interface Entry {
  readonly method: string;
  readonly url: string;
  /** The client wants the connection closed after this answer (or cannot keep it: HTTP/1.0 and no length). */
  closeAfter: boolean;
  readonly http10: boolean;
  /** The request came with a Content-Length or Transfer-Encoding (its body framed, maybe empty). */
  readonly framed: boolean;
  readonly forwarding?: Forwarding;
  /** Its body, too large to hold, streaming upstream. */
  upload?: Upload;
  /** Its body too large to hold, and the proxy answers it: the rest is dropped, the connection closed after the answer. */
  drop?: boolean;
  /** The upstream socket it went out on. */
  socket?: Socket;
  /** Output waiting for the entries before this one to be done. */
  readonly pending: (string | Buffer)[];
  done: boolean;
  // The answer, as it comes.
  status: number;
  text: string;
  fields: string[];
  hold: boolean;
  noBody: boolean;
  chunked: boolean;
  kept: Buffer[];
  size: number;
  headSent: boolean;
}
/** A body as bytes: text is UTF-8 (strings written to the socket as they are go out as Latin-1, the encoding of a head). */
export const bytes = (body: Buffer | string): Buffer => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

/** A status line and fields, with the framing the entry needs (fields past hop-by-hop filtering; Content-Length replaced when given). */
export function head(status: number, text: string, fields: readonly string[], e: Entry, length?: number, chunked = false): string {
  let out = `HTTP/1.1 ${status} ${text || STATUS_CODES[status] || ''}${CRLF}`;
  for (let i = 0; i < fields.length; i += 2) {
    if (length !== undefined && fields[i].length === 14 && fields[i].toLowerCase() === 'content-length') continue;
    out += `${fields[i]}: ${fields[i + 1]}${CRLF}`;
  }
  if (length !== undefined) out += `Content-Length: ${length}${CRLF}`;
  if (chunked) out += `Transfer-Encoding: chunked${CRLF}`;
  if (e.closeAfter) out += `Connection: close${CRLF}`;
  else if (e.http10) out += `Connection: keep-alive${CRLF}`;
  return out + CRLF;
}

/** Fields as they came less the hop-by-hop ones (RFC 9110 §7.6.1). */
export const endToEnd = (fields: readonly string[]): string[] => fields.filter((_v, i, all) => !HOP_BY_HOP.has(all[i - (i % 2)].toLowerCase()));

/**
 * The head of a streamed answer: its fields as they came less hop-by-hop ones, and the
 * framing the client can read. With no length, a body is chunked to an HTTP/1.1 client, and
 * ends with the connection to an HTTP/1.0 one (RFC 9112 §6.3): the entry is marked so.
 */
export function streamedHead(e: Entry): string {
  const fields = endToEnd(e.fields);
  if (!e.noBody) {
    const given = fieldOf(e.fields, 'content-length');
    if (given === undefined || fieldOf(e.fields, 'transfer-encoding') !== undefined) {
      for (let i = fields.length - 2; i >= 0; i -= 2) if (fields[i].toLowerCase() === 'content-length') fields.splice(i, 2);
      if (e.http10) e.closeAfter = true;
      else e.chunked = true;
    }
  }
  e.headSent = true;
  return head(e.status, e.text, fields, e, undefined, e.chunked);
}
