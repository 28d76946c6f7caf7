/**
 * The upstream side of a wire core connection (./wire.ts): one upstream connection per client
 * connection (its requests written by ./wire-send.ts), its answers read by llhttp and written
 * back through the client side in the order the requests came. An answer the handler holds (Forwarding.hold) is kept whole, up
 * to KEEP_BYTES, and judged before it goes; any other streams as it comes, the upstream read
 * no faster than the client takes it.
 */
import { connect, type Socket } from 'node:net';
import { type Forwarding, KEEP_BYTES } from './core.ts';
import type { Llhttp, OnHeadersComplete } from './llhttp.ts';
import { bytes, CRLF, EMPTY, endToEnd, type Entry, head, streamedHead } from './wire-entry.ts';

/** What the upstream side needs of its client connection (./wire.ts) and of its sender (./wire-send.ts: pump, gone, released). */
export interface UpstreamSide {
  readonly client: Socket;
  /** The entries waiting for their answers, in the order the requests came. */
  readonly queue: readonly Entry[];
  /** Writes an entry's output: to the client when every answer before it is out, else kept until then; false when the client's buffer is full. */
  write(e: Entry, data: string | Buffer): boolean;
  /** A chunk of a streamed answer, chunk-framed where the answer is; false when the client's buffer is full. */
  bodyOut(e: Entry, chunk: Buffer): boolean;
  /** The entry is answered. */
  finish(e: Entry): void;
  /** The next request may go upstream. */
  pump(): void;
  /** The upstream connection failed: what was sent on it and not answered gets the proxy's answer. */
  gone(up: Socket, error: Error): void;
  /** The upstream connection is closed or closing: the next request goes on a new one. */
  released(up: Socket): void;
}

/** A client connection's own upstream connection, its answers read into the side's entries. */
export function connectUpstream(binding: Llhttp, upstream: URL, side: UpstreamSide): Socket {
  const { HTTPParser: P } = binding;
  const up = connect({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port: Number(upstream.port || 80), noDelay: true });
  const p = new P();
  p.initialize(P.RESPONSE, {}, 0, 0);
  let fieldsSoFar: string[] = [];
  let interim = false;
  let closes = false;
  const current = (): Entry | undefined => {
    for (const e of side.queue) if (e.socket === up && !e.done) return e;
    return undefined;
  };
  p[P.kOnHeaders] = (fields: string[]) => void fieldsSoFar.push(...fields);
  p[P.kOnHeadersComplete] = ((_major, _minor, fields, _method, _url, status, text, _upgrade, keepAlive) => {
    const all = fields ?? fieldsSoFar;
    fieldsSoFar = [];
    const e = current();
    if (!e) return 0;
    // An interim answer (RFC 9110 §15.2): not relayed; the final one follows on the same message stream.
    interim = status >= 100 && status < 200 && status !== 101;
    if (interim) return 0;
    e.status = status;
    e.text = text;
    e.fields = all;
    e.noBody = e.method === 'HEAD' || status === 204 || status === 304;
    if (!keepAlive) closes = true;
    e.hold = (e.forwarding as Forwarding).hold(status, all);
    if (!e.hold) side.write(e, streamedHead(e));
    return e.method === 'HEAD' ? 1 : 0;
  }) satisfies OnHeadersComplete;
  p[P.kOnBody] = (chunk: Buffer) => {
    const e = current();
    if (!e) return;
    if (e.hold) {
      if (e.size + chunk.length <= KEEP_BYTES) {
        e.kept.push(chunk);
        e.size += chunk.length;
        return;
      }
      // Larger than an answer may make the proxy hold: let go, its head and what was held sent as they came, the rest streamed (not judged, not marked).
      e.hold = false;
      side.write(e, streamedHead(e));
      for (const held of e.kept) side.bodyOut(e, held);
      e.kept = [];
    }
    let flowing = side.bodyOut(e, chunk);
    if (!(e.forwarding as Forwarding).chunk(chunk)) {
      if (e.size + chunk.length <= KEEP_BYTES) e.kept.push(chunk);
      e.size += chunk.length;
    }
    if (!flowing && !up.isPaused()) {
      // The client reads slower than the upstream sends: the upstream waits (TCP's own flow control does the rest).
      up.pause();
      side.client.once('drain', () => up.resume());
    }
  };
  p[P.kOnMessageComplete] = () => {
    fieldsSoFar = [];
    if (interim) return void (interim = false);
    const e = current();
    if (!e) return;
    const body = e.kept.length === 1 ? e.kept[0] : e.kept.length === 0 ? EMPTY : Buffer.concat(e.kept);
    e.kept = [];
    const f = e.forwarding as Forwarding;
    if (e.hold) {
      const answer = f.done(e.status, e.fields, body, e.size) ?? { status: e.status, fields: e.fields, body };
      const fields = endToEnd(answer.fields);
      const sent = bytes(answer.body);
      side.write(e, head(answer.status, answer.status === e.status ? e.text : '', fields, e, e.noBody ? undefined : sent.length));
      if (!e.noBody) side.write(e, sent);
    } else {
      if (e.chunked) side.write(e, `0${CRLF}${CRLF}`);
      f.done(e.status, e.fields, body, e.size);
    }
    side.finish(e);
    // The upstream said it closes this connection (RFC 9112 §9.6): the next request goes on a new one.
    if (closes) {
      side.released(up);
      up.end();
    }
    side.pump();
  };
  up.on('data', (data: Buffer) => {
    side.client.cork();
    const r = p.execute(data);
    side.client.uncork();
    if (typeof r !== 'number') {
      up.destroy();
      side.gone(up, r);
    }
  });
  up.on('end', () => {
    // An answer delimited by the connection's close ends here (RFC 9112 §6.3, rule 8).
    side.client.cork();
    p.finish();
    side.client.uncork();
    up.end();
  });
  up.on('error', (error) => side.gone(up, error));
  up.once('close', () => {
    side.gone(up, new Error('the service closed the connection before it answered'));
    side.released(up);
    p.free();
    setImmediate(() => p.close());
  });
  return up;
}
