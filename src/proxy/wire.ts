/**
 * The lean forwarding core: HTTP/1.1 framed on plain sockets by llhttp, the parser node:http
 * itself runs (reached through node's `_http_common`; `wireParser()` says whether this Node
 * has it as expected, else the proxy runs on http-core.ts). Each client connection is paired
 * with one upstream connection of its own, so answers come back in the order the requests
 * went (RFC 9112 §9.3.2) with no pool to manage; node:http's per-message streams and
 * objects, most of what a node:http proxy costs, are not made at all.
 *
 * This module is the server and the client's side of a connection: a request is read whole,
 * then handed to the handler, and answered by the proxy or sent upstream (./wire-send.ts).
 * A body larger than the handler's cap (by its Content-Length, or once more has come) is
 * not held: the handler decides on the head, and the body streams upstream as it comes
 * (./wire-send.ts); or, refused by the proxy, it is dropped as it comes and the connection
 * closed after the answer (RFC 9110 §15.5.14). Answers go back in the order the requests
 * came: an answer's fields as they came less the hop-by-hop ones (RFC 9110 §7.6.1); its
 * body streams, by Content-Length when it has one, else chunked (RFC 9112 §7.1), or whole
 * when held (up to KEEP_BYTES: past it, it is let go and streams on). What one read from the
 * upstream yields goes out in one write (the socket is corked meanwhile).
 * No body follows a HEAD's answer, a 204 or a 304 (RFC 9110 §6.4.1); 1xx interim answers
 * are not relayed (the proxy has read the whole request: it answers Expect: 100-continue
 * itself, as node:http does, and does not forward it). CONNECT is not served, and an
 * Upgrade is not relayed (the request is forwarded without it), as http-core.ts does.
 * Requests going upstream are ./wire-send.ts; their answers read back, ./wire-upstream.ts;
 * a request's record and the heads, ./wire-entry.ts.
 */
import { createServer, type Socket } from 'node:net';
import { type Answer, type Core, fieldOf, type Handler, listening } from './core.ts';
import { type Llhttp, type OnHeadersComplete, wireParser } from './llhttp.ts';
import { bytes, CRLF, EMPTY, type Entry, head } from './wire-entry.ts';
import { Sender } from './wire-send.ts';

export { wireParser } from './llhttp.ts';

// getBuiltinModule, not an ES import of node:http, whose ES facade loads undici (see src/serve/events/delivery.ts).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Connections idle this long are closed (node:http's keepAliveTimeout, as http-core.ts sets it). */
const IDLE_MS = 5000;
/** As node:http's requestTimeout: from a request's first byte to its last. */
const REQUEST_MS = 300_000;
/** Past this many requests waiting for their answers, the client's connection is read no further until some are answered. */
const MAX_WAITING = 64;
/** After refusing a request whose body it does not read, the rest is read and dropped this long at most before the connection is cut (the client may not read the answer until it has sent all). */
const LINGER_MS = 5000;
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

export interface WireOptions {
  readonly handler: Handler;
  readonly upstream: URL;
  readonly port: number;
  readonly host: string;
  /** From a request's first byte to its last (default REQUEST_MS). */
  readonly requestTimeoutMs?: number;
}

export async function listenWire(options: WireOptions): Promise<Core> {
  const parser = wireParser();
  if (!parser) throw new Error('this Node has no llhttp binding the wire core can use');
  const connections = new Set<Connection>();
  const server = createServer({ noDelay: true }, (socket) => {
    const c = new Connection(parser, options, socket);
    connections.add(c);
    socket.once('close', () => connections.delete(c));
  });
  const url = await listening(server, options.port, options.host);
  return {
    url,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const c of connections) c.closeIfIdle();
      setTimeout(() => {
        for (const c of connections) c.destroy();
      }, 1000).unref();
    }),
  };
}

/** One client connection: its requests read and handed to the handler, their answers written back in the order they came. */
class Connection {
  readonly #client: Socket;
  readonly #options: WireOptions;
  readonly #queue: Entry[] = [];
  #closing = false;
  // The request being read.
  #method = '';
  #url = '';
  #fields: string[] = [];
  #body: Buffer[] = [];
  #bodySize = 0;
  /** The request being read whose body is beyond the cap: its chunks stream upstream or are dropped. */
  #over: Entry | undefined;
  #keepAlive = true;
  #http10 = false;
  #partial: string[] = [];
  #partialUrl = '';
  /** Ends a request that takes longer than REQUEST_MS from its first byte to its last. */
  #requestTimer: NodeJS.Timeout | undefined;
  /** The requests this connection forwards, on their way upstream (./wire-send.ts). */
  readonly #sender: Sender;

  constructor(binding: Llhttp, options: WireOptions, client: Socket) {
    this.#options = options;
    this.#client = client;
    this.#sender = new Sender(binding, options.upstream, {
      client,
      queue: this.#queue,
      write: (e, data) => this.#write(e, data),
      bodyOut: (e, chunk) => this.#bodyOut(e, chunk),
      finish: (e) => this.#finish(e),
      local: (e, answer) => this.#local(e, answer),
      destroy: () => this.destroy(),
      resume: () => this.#resume(),
    });
    const P = binding.HTTPParser;
    const p = new P();
    p.initialize(P.REQUEST, {}, 0, 0);
    p[P.kOnHeaders] = (fields: string[], url: string) => {
      this.#partial.push(...fields);
      this.#partialUrl += url;
    };
    p[P.kOnHeadersComplete] = ((major, minor, fields, method, url, _status, _text, upgrade, keepAlive) => {
      this.#fields = fields ?? this.#partial;
      this.#url = url ?? this.#partialUrl;
      this.#partial = [];
      this.#partialUrl = '';
      this.#method = binding.methods[method ?? 0] ?? 'GET';
      // After an Upgrade request llhttp reads no more of the connection as HTTP (it expects
      // another protocol): the request is answered, not upgraded, and the connection closed,
      // as node:http does, so nothing after it is left unread or unrefused.
      this.#keepAlive = keepAlive && !upgrade;
      this.#http10 = major === 1 && minor === 0;
      this.#body = [];
      this.#bodySize = 0;
      if (this.#method === 'CONNECT') {
        // Not a proxy for tunnels: node:http without a 'connect' listener closes the connection too.
        this.destroy();
        return 2;
      }
      const first = this.#queue.length === 0;
      // A body its Content-Length says is larger than the cap is decided on before it comes (no 100 Continue for one the proxy refuses).
      const length = fieldOf(this.#fields, 'content-length');
      const refused = length !== undefined && Number(length) > options.handler.bodyCap && this.#request(true).drop;
      if (!refused && !this.#http10 && first && /^100-continue$/i.test(fieldOf(this.#fields, 'expect') ?? '')) client.write(CONTINUE);
      return 0;
    }) satisfies OnHeadersComplete;
    p[P.kOnBody] = (chunk: Buffer) => {
      if (this.#over) return this.#sender.upload(this.#over, chunk);
      this.#body.push(chunk);
      // Past the cap (a chunked body, or one longer than its Content-Length said is refused by llhttp): decided on now, not held.
      if ((this.#bodySize += chunk.length) > options.handler.bodyCap) this.#request(true);
    };
    p[P.kOnMessageComplete] = () => {
      if (this.#partial.length) this.#partial = []; // trailer fields: not relayed
      clearTimeout(this.#requestTimer);
      this.#requestTimer = undefined;
      const over = this.#over;
      if (!over) return this.#request();
      this.#over = undefined;
      if (!over.upload) return;
      if (over.closeAfter) this.#closing = true;
      this.#sender.uploaded(over);
    };
    client.setNoDelay(true);
    client.setTimeout(IDLE_MS, () => {
      if (this.#queue.length === 0) this.destroy();
    });
    client.on('data', (data: Buffer) => {
      // A request has REQUEST_MS from its first byte to its last, however its bytes trickle in
      // (the idle time-out alone lets a byte every few seconds hold a connection for good).
      this.#requestTimer ??= setTimeout(() => this.#tooSlow(), options.requestTimeoutMs ?? REQUEST_MS).unref();
      // llhttp stops after an Upgrade request (it expects another protocol to follow); the
      // Upgrade is not relayed, so HTTP/1.1 goes on with the rest of what was read.
      for (let at = 0; at < data.length && !this.#closing;) {
        const r = p.execute(at ? data.subarray(at) : data);
        if (typeof r !== 'number') return this.#refuseMalformed(r);
        // Nothing read of what is left: the parser will read no more of this connection.
        if (r === 0) return this.#closing ? undefined : this.#refuseMalformed(new Error('unreadable'));
        at += r;
      }
    });
    client.on('end', () => {
      this.#closing = true;
      if (this.#queue.length === 0) client.end();
    });
    client.on('error', () => this.destroy());
    client.once('close', () => {
      clearTimeout(this.#requestTimer);
      // The client is gone: what it waited for is let go, and is no failure of the upstream's.
      this.#closing = true;
      this.#queue.length = 0;
      this.#over = undefined;
      this.#sender.abandon();
      p.free();
      setImmediate(() => p.close());
    });
  }

  closeIfIdle(): void {
    this.#closing = true;
    if (this.#queue.length === 0) this.#client.end();
  }

  destroy(): void {
    this.#closing = true;
    this.#queue.length = 0;
    this.#client.destroy();
    this.#sender.destroy();
  }

  /** A request not whole within REQUEST_MS: 408 (RFC 9110 §15.5.9) and the connection closed, as node:http's requestTimeout does. */
  #tooSlow(): void {
    this.#closing = true;
    if (this.#queue.length === 0) this.#client.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else this.#client.destroy();
  }

  /** A message llhttp cannot read: 400 (431 when its fields are too large, RFC 6585 §5), and the connection closed, as node:http does. */
  #refuseMalformed(error: Error): void {
    this.#closing = true;
    const status = (error as { code?: string }).code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    if (this.#queue.length === 0) this.#client.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else this.#client.destroy();
  }

  /** The request read (or, `beyond`, its head: its body larger than the cap), handed to the handler, and queued for its answer. */
  #request(beyond = false): Entry {
    const body = beyond ? EMPTY : this.#body.length === 1 ? this.#body[0] : this.#body.length === 0 ? EMPTY : Buffer.concat(this.#body);
    const held = this.#body;
    this.#body = [];
    const fields = this.#fields;
    const decision = this.#options.handler.request({ method: this.#method, url: this.#url, fields, body, ...(beyond ? { beyond } : {}) });
    const entry: Entry = {
      method: this.#method,
      url: this.#url,
      closeAfter: !this.#keepAlive,
      http10: this.#http10,
      framed: fieldOf(fields, 'content-length') !== undefined || fieldOf(fields, 'transfer-encoding') !== undefined,
      pending: [],
      done: false,
      status: 0,
      text: '',
      fields: [],
      hold: true,
      noBody: false,
      chunked: false,
      kept: [],
      size: 0,
      headSent: false,
      ...('forward' in decision ? { forwarding: decision.forward } : {}),
    };
    if (beyond) {
      this.#over = entry;
      if ('forward' in decision) entry.upload = { waiting: held, length: fieldOf(fields, 'content-length'), started: false, complete: false, dropped: false };
      else entry.closeAfter = entry.drop = true;
    }
    // The connection reads no more requests after this one; one whose body streams upstream is read to its end first.
    if (entry.closeAfter && !entry.upload) this.#closing = true;
    this.#queue.push(entry);
    if (this.#queue.length >= MAX_WAITING) this.#client.pause();
    if ('answer' in decision) {
      const a = decision.answer;
      if (a instanceof Promise) void a.then((answer) => this.#local(entry, answer), (error: Error) => this.#local(entry, { status: 500, fields: [], body: error.message }));
      else this.#local(entry, a);
      return entry;
    }
    this.#sender.send(entry, decision.forward);
    return entry;
  }

  /** Reads the client again, unless an upload or too many requests waiting hold it. */
  #resume(): void {
    if (!this.#sender.waits && this.#queue.length < MAX_WAITING && this.#client.isPaused()) this.#client.resume();
  }

  /** The proxy's own answer to a request. */
  #local(entry: Entry, answer: Answer): void {
    entry.status = answer.status;
    const body = bytes(answer.body);
    this.#write(entry, head(answer.status, '', answer.fields, entry, body.length));
    if (entry.method !== 'HEAD') this.#write(entry, body);
    this.#finish(entry);
  }

  /** A chunk of a streamed answer to the client, chunk-framed where the answer is; false when the client's buffer is full. */
  #bodyOut(e: Entry, chunk: Buffer): boolean {
    if (!e.chunked) return this.#write(e, chunk);
    this.#write(e, `${chunk.length.toString(16)}${CRLF}`);
    this.#write(e, chunk);
    return this.#write(e, CRLF);
  }

  /** Writes an entry's output: to the client when every answer before it is out, else kept until then. */
  #write(e: Entry, data: string | Buffer): boolean {
    if (this.#queue[0] !== e) {
      e.pending.push(data);
      return true;
    }
    return typeof data === 'string' ? this.#client.write(data, 'latin1') : this.#client.write(data);
  }

  #finish(e: Entry): void {
    e.done = true;
    if (this.#queue[0] !== e) return;
    while (this.#queue.length && this.#queue[0].done) {
      const done = this.#queue.shift() as Entry;
      if (done.closeAfter) {
        this.#closing = true;
        this.#queue.length = 0;
        this.#client.end();
        this.#sender.end();
        // A refused body still coming is read and dropped a while (the client may read the answer only once it has sent all), then cut.
        if (done.drop) {
          clearTimeout(this.#requestTimer);
          setTimeout(() => this.#client.destroy(), LINGER_MS).unref();
        }
        return;
      }
      const next = this.#queue[0];
      if (next) for (const data of next.pending.splice(0)) typeof data === 'string' ? this.#client.write(data, 'latin1') : this.#client.write(data);
    }
    this.#resume();
    if (this.#queue.length === 0 && this.#closing) this.#client.end();
  }
}
