/**
 * The wire core's (./wire.ts) requests on their way upstream: each client connection's own
 * upstream connection, opened when needed (./wire-upstream.ts reads its answers back), and
 * its requests written to it one at a time, in the order they came.
 *
 * A forwarded request is sent with its fields less the hop-by-hop ones (RFC 9110 §7.6.1) and
 * its body framed by Content-Length. A body larger than the handler's cap is not held: it
 * streams upstream as it comes, framed as it came (by its length, else chunked, RFC 9112
 * §7.1), the client read no faster than the upstream takes it. This module owns that flow
 * control (the client's connection paused for an upload), the connection reading requests
 * owns the rest of it (./wire.ts: paused for too many requests waiting).
 */
import type { Socket } from 'node:net';
import { type Answer, type Forwarding, HOP_BY_HOP } from './core.ts';
import type { Llhttp } from './llhttp.ts';
import { CRLF, type Entry, type Upload } from './wire-entry.ts';
import { connectUpstream, type UpstreamSide } from './wire-upstream.ts';

/** What sending needs of its client connection: the upstream side's writers, and three more. */
export interface ClientSide extends Pick<UpstreamSide, 'client' | 'queue' | 'write' | 'bodyOut' | 'finish'> {
  /** The proxy's own answer to a request. */
  local(e: Entry, answer: Answer): void;
  /** Closes the client's connection, and the upstream's with it. */
  destroy(): void;
  /** Reads the client again, unless an upload (Sender.waits) or too many requests waiting hold it. */
  resume(): void;
}

/** A client connection's requests going upstream, on an upstream connection of its own. */
export class Sender {
  readonly #binding: Llhttp;
  readonly #upstream: URL;
  readonly #conn: ClientSide;
  /** What the upstream connection's reader (./wire-upstream.ts) writes its answers through. */
  readonly #side: UpstreamSide;
  #up: Socket | undefined;
  /** Requests to forward, in order; one is on the upstream connection at a time (see send). */
  readonly #toSend: { readonly entry: Entry; readonly f: Forwarding }[] = [];
  #inFlight: Entry | undefined;
  /** The client is paused until an upload can go on (its turn upstream, or the upstream's drain). */
  #uploadWaits = false;

  constructor(binding: Llhttp, upstream: URL, conn: ClientSide) {
    this.#binding = binding;
    this.#upstream = upstream;
    this.#conn = conn;
    this.#side = {
      client: conn.client,
      queue: conn.queue,
      write: conn.write,
      bodyOut: conn.bodyOut,
      finish: conn.finish,
      pump: () => this.#pump(),
      gone: (up, error) => this.#upstreamGone(up, error),
      released: (up) => {
        if (this.#up === up) this.#up = undefined;
      },
    };
  }

  /** An upload holds the client: it is not to be read again until the upload can go on. */
  get waits(): boolean {
    return this.#uploadWaits;
  }

  /**
   * Requests go upstream one at a time, the next once the one before it is answered: an
   * upstream may close its connection after any answer (RFC 9112 §9.6), and requests already
   * sent behind that answer would be lost, and the service blamed. Pipelining clients still
   * get their answers in order.
   */
  send(entry: Entry, f: Forwarding): void {
    this.#toSend.push({ entry, f });
    this.#pump();
  }

  /** A chunk of a body too large to hold: upstream when its request is there, else kept until it is (the client paused); dropped when there is nowhere to send it. */
  upload(e: Entry, chunk: Buffer): void {
    const u = e.upload;
    if (!u || u.dropped) return;
    if (!u.started) {
      u.waiting.push(chunk);
      this.#pauseFor();
      return;
    }
    const up = e.socket as Socket;
    if (!up.writable) {
      u.dropped = true;
      return;
    }
    if (!this.#uploadChunk(u, up, chunk)) {
      // The upstream reads slower than the client sends: the client waits (TCP's flow control does the rest).
      if (!this.#uploadWaits) up.once('drain', () => this.#resumeFor());
      this.#pauseFor();
    }
  }

  /** The client has sent the whole of a body too large to hold: a chunked one is ended upstream if it is still going there. */
  uploaded(e: Entry): void {
    const u = e.upload;
    if (!u) return;
    u.complete = true;
    if (u.started && !u.dropped && u.length === undefined) e.socket?.write(`0${CRLF}${CRLF}`, 'latin1');
  }

  /** The client's connection is closing after an answer: the upstream's closes too. */
  end(): void {
    this.#up?.end();
  }

  /** The client's connection is cut: the upstream's is too. */
  destroy(): void {
    this.#up?.destroy();
  }

  /** The client is gone: nothing more is sent, and the upstream's connection is cut. */
  abandon(): void {
    this.#toSend.length = 0;
    this.#up?.destroy();
  }

  /** Writes a chunk of an upload, framed as it goes; false when the upstream's buffer is full. */
  #uploadChunk(u: Upload, up: Socket, chunk: Buffer): boolean {
    if (u.length !== undefined) return up.write(chunk);
    up.write(`${chunk.length.toString(16)}${CRLF}`, 'latin1');
    up.write(chunk);
    return up.write(CRLF, 'latin1');
  }

  #pauseFor(): void {
    this.#uploadWaits = true;
    this.#conn.client.pause();
  }

  #resumeFor(): void {
    this.#uploadWaits = false;
    this.#conn.resume();
  }

  #pump(): void {
    if (this.#inFlight && !this.#inFlight.done) return;
    const next = this.#toSend.shift();
    this.#inFlight = next?.entry;
    if (next) this.#forward(next.entry, next.f);
  }

  #forward(entry: Entry, f: Forwarding): void {
    let up = this.#up;
    if (!up || up.destroyed || !up.writable) up = this.#up = connectUpstream(this.#binding, this.#upstream, this.#side);
    entry.socket = up;
    let text = `${entry.method} ${entry.url} HTTP/1.1${CRLF}`;
    for (let i = 0; i < f.fields.length; i += 2) {
      const name = f.fields[i].toLowerCase();
      if (HOP_BY_HOP.has(name) || name === 'content-length' || name === 'expect') continue;
      text += `${f.fields[i]}: ${f.fields[i + 1]}${CRLF}`;
    }
    const u = entry.upload;
    if (u) {
      // A body too large to hold: framed as the client framed it, sent as it comes.
      text += u.length !== undefined ? `Content-Length: ${u.length}${CRLF}${CRLF}` : `Transfer-Encoding: chunked${CRLF}${CRLF}`;
      up.cork();
      up.write(text, 'latin1');
      u.started = true;
      let flowing = true;
      for (const chunk of u.waiting.splice(0)) flowing = this.#uploadChunk(u, up, chunk);
      if (u.complete && u.length === undefined) up.write(`0${CRLF}${CRLF}`, 'latin1');
      up.uncork();
      if (flowing) this.#resumeFor();
      else up.once('drain', () => this.#resumeFor());
      return;
    }
    // A body's length; 0 where the client framed an empty one, or a method that carries one
    // sends none (as node:http does: some servers answer 411 without it).
    if (f.body.length || entry.framed || entry.method === 'POST' || entry.method === 'PUT' || entry.method === 'PATCH') text += `Content-Length: ${f.body.length}${CRLF}`;
    text += CRLF;
    if (f.body.length) {
      up.cork();
      up.write(text, 'latin1');
      up.write(f.body);
      up.uncork();
    } else up.write(text, 'latin1');
  }

  /** The upstream connection failed: each request sent on it still unanswered gets the proxy's answer, unless its answer had begun. */
  #upstreamGone(up: Socket, error: Error): void {
    if (this.#up === up) this.#up = undefined;
    // A copy: answering an entry (local, finish) takes it off the queue.
    for (const e of [...this.#conn.queue]) {
      if (e.socket !== up || e.done) continue;
      if (e.headSent) {
        this.#conn.destroy();
        return;
      }
      e.kept = [];
      e.hold = true;
      e.status = 0;
      // The rest of a body streaming upstream has nowhere to go: dropped as it comes.
      if (e.upload) e.upload.dropped = true;
      this.#conn.local(e, (e.forwarding as Forwarding).failed(error));
    }
    // An upload that waited for this connection's drain waits no more.
    if (this.#uploadWaits) this.#resumeFor();
    this.#pump();
  }
}
