/**
 * The lean forwarding core: HTTP/1.1 framed on plain sockets by llhttp, the parser node:http
 * itself runs (reached through node's `_http_common`; `wireParser()` says whether this Node
 * has it as expected, else the proxy runs on http-core.ts). Each client connection is paired
 * with one upstream connection of its own, so answers come back in the order the requests
 * went (RFC 9112 §9.3.2) with no pool to manage; node:http's per-message streams and
 * objects, most of what a node:http proxy costs, are not made at all.
 *
 * A request is read whole, then handed to the handler; a forwarded one is sent with its
 * fields less the hop-by-hop ones (RFC 9110 §7.6.1) and its body framed by Content-Length.
 * A body larger than the handler's cap (by its Content-Length, or once more has come) is
 * not held: the handler decides on the head, and the body streams upstream as it comes
 * (framed as it came: by its length, else chunked), the client read no faster than the
 * upstream takes it; or, refused by the proxy, it is dropped as it comes and the connection
 * closed after the answer (RFC 9110 §15.5.14). An answer's fields go back as they came less
 * the hop-by-hop ones; its body streams, by Content-Length when it has one, else chunked
 * (RFC 9112 §7.1), or whole when held (up to KEEP_BYTES: past it, it is let go and streams
 * on). What one read from the upstream yields goes out in one write (the socket is corked
 * meanwhile).
 * No body follows a HEAD's answer, a 204 or a 304 (RFC 9110 §6.4.1); 1xx interim answers
 * are not relayed (the proxy has read the whole request: it answers Expect: 100-continue
 * itself, as node:http does, and does not forward it). CONNECT is not served, and an
 * Upgrade is not relayed (the request is forwarded without it), as http-core.ts does.
 */
import { connect, createServer, type Socket } from 'node:net';
import { type Answer, type Core, fieldOf, type Forwarding, type Handler, HOP_BY_HOP, KEEP_BYTES, listening } from './core.ts';
import { type Llhttp, type OnHeadersComplete, wireParser } from './llhttp.ts';

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
const CRLF = '\r\n';
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

/** A request body too large to hold (CoreRequest.beyond), on its way upstream as it comes. */
interface Upload {
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
interface Entry {
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

class Connection {
  readonly #client: Socket;
  readonly #options: WireOptions;
  readonly #binding: Llhttp;
  readonly #queue: Entry[] = [];
  #up: Socket | undefined;
  /** Requests to forward, in order; one is on the upstream connection at a time (see #pump). */
  readonly #toSend: { readonly entry: Entry; readonly f: Forwarding }[] = [];
  #inFlight: Entry | undefined;
  #closing = false;
  // The request being read.
  #method = '';
  #url = '';
  #fields: string[] = [];
  #body: Buffer[] = [];
  #bodySize = 0;
  /** The request being read whose body is beyond the cap: its chunks stream upstream or are dropped. */
  #over: Entry | undefined;
  /** The client is paused until an upload can go on (its turn upstream, or the upstream's drain). */
  #uploadWaits = false;
  #keepAlive = true;
  #http10 = false;
  #partial: string[] = [];
  #partialUrl = '';
  /** Ends a request that takes longer than REQUEST_MS from its first byte to its last. */
  #requestTimer: NodeJS.Timeout | undefined;

  constructor(binding: Llhttp, options: WireOptions, client: Socket) {
    this.#binding = binding;
    this.#options = options;
    this.#client = client;
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
      if (this.#over) return this.#upload(this.#over, chunk);
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
      const u = over.upload;
      if (!u) return;
      if (over.closeAfter) this.#closing = true;
      u.complete = true;
      if (u.started && !u.dropped && u.length === undefined) over.socket?.write(`0${CRLF}${CRLF}`, 'latin1');
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
      this.#toSend.length = 0;
      this.#over = undefined;
      this.#up?.destroy();
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
    this.#up?.destroy();
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
    this.#send(entry, decision.forward);
    return entry;
  }

  /** A chunk of a body too large to hold: upstream when its request is there, else kept until it is (the client paused); dropped when there is nowhere to send it. */
  #upload(e: Entry, chunk: Buffer): void {
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

  /** Writes a chunk of an upload, framed as it goes; false when the upstream's buffer is full. */
  #uploadChunk(u: Upload, up: Socket, chunk: Buffer): boolean {
    if (u.length !== undefined) return up.write(chunk);
    up.write(`${chunk.length.toString(16)}${CRLF}`, 'latin1');
    up.write(chunk);
    return up.write(CRLF, 'latin1');
  }

  #pauseFor(): void {
    this.#uploadWaits = true;
    this.#client.pause();
  }

  #resumeFor(): void {
    this.#uploadWaits = false;
    this.#resume();
  }

  /** Reads the client again, unless an upload or too many requests waiting hold it. */
  #resume(): void {
    if (!this.#uploadWaits && this.#queue.length < MAX_WAITING && this.#client.isPaused()) this.#client.resume();
  }

  /** The proxy's own answer to a request. */
  #local(entry: Entry, answer: Answer): void {
    entry.status = answer.status;
    const body = bytes(answer.body);
    this.#write(entry, head(answer.status, '', answer.fields, entry, body.length));
    if (entry.method !== 'HEAD') this.#write(entry, body);
    this.#finish(entry);
  }

  /**
   * Requests go upstream one at a time, the next once the one before it is answered: an
   * upstream may close its connection after any answer (RFC 9112 §9.6), and requests already
   * sent behind that answer would be lost, and the service blamed. Pipelining clients still
   * get their answers in order.
   */
  #send(entry: Entry, f: Forwarding): void {
    this.#toSend.push({ entry, f });
    this.#pump();
  }

  #pump(): void {
    if (this.#inFlight && !this.#inFlight.done) return;
    const next = this.#toSend.shift();
    this.#inFlight = next?.entry;
    if (next) this.#forward(next.entry, next.f);
  }

  #forward(entry: Entry, f: Forwarding): void {
    let up = this.#up;
    if (!up || up.destroyed || !up.writable) up = this.#connect();
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

  /** This connection's own upstream connection, opened when a request needs it (again after the upstream closed the last one). */
  #connect(): Socket {
    const { HTTPParser: P } = this.#binding;
    const { upstream } = this.#options;
    const up = connect({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port: Number(upstream.port || 80), noDelay: true });
    this.#up = up;
    const p = new P();
    p.initialize(P.RESPONSE, {}, 0, 0);
    let fieldsSoFar: string[] = [];
    let interim = false;
    let closes = false;
    const current = (): Entry | undefined => {
      for (const e of this.#queue) if (e.socket === up && !e.done) return e;
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
      if (!e.hold) this.#streamHead(e);
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
        this.#streamHead(e);
        for (const held of e.kept) this.#bodyOut(e, held);
        e.kept = [];
      }
      let flowing = this.#bodyOut(e, chunk);
      if (!(e.forwarding as Forwarding).chunk(chunk)) {
        if (e.size + chunk.length <= KEEP_BYTES) e.kept.push(chunk);
        e.size += chunk.length;
      }
      if (!flowing && !up.isPaused()) {
        // The client reads slower than the upstream sends: the upstream waits (TCP's own flow control does the rest).
        up.pause();
        this.#client.once('drain', () => up.resume());
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
        const fields = answer.fields.filter((_v, i, all) => !HOP_BY_HOP.has(all[i - (i % 2)].toLowerCase()));
        const sent = bytes(answer.body);
        this.#write(e, head(answer.status, answer.status === e.status ? e.text : '', fields, e, e.noBody ? undefined : sent.length));
        if (!e.noBody) this.#write(e, sent);
      } else {
        if (e.chunked) this.#write(e, `0${CRLF}${CRLF}`);
        f.done(e.status, e.fields, body, e.size);
      }
      this.#finish(e);
      // The upstream said it closes this connection (RFC 9112 §9.6): the next request goes on a new one.
      if (closes) {
        if (this.#up === up) this.#up = undefined;
        up.end();
      }
      this.#pump();
    };
    up.on('data', (data: Buffer) => {
      this.#client.cork();
      const r = p.execute(data);
      this.#client.uncork();
      if (typeof r !== 'number') {
        up.destroy();
        this.#upstreamGone(up, r);
      }
    });
    up.on('end', () => {
      // An answer delimited by the connection's close ends here (RFC 9112 §6.3, rule 8).
      this.#client.cork();
      p.finish();
      this.#client.uncork();
      up.end();
    });
    up.on('error', (error) => this.#upstreamGone(up, error));
    up.once('close', () => {
      this.#upstreamGone(up, new Error('the service closed the connection before it answered'));
      if (this.#up === up) this.#up = undefined;
      p.free();
      setImmediate(() => p.close());
    });
    return up;
  }

  /** The upstream connection failed: each request sent on it still unanswered gets the proxy's answer, unless its answer had begun. */
  #upstreamGone(up: Socket, error: Error): void {
    if (this.#up === up) this.#up = undefined;
    // A copy: answering an entry (#local, #finish) takes it off the queue.
    for (const e of [...this.#queue]) {
      if (e.socket !== up || e.done) continue;
      if (e.headSent) {
        this.destroy();
        return;
      }
      e.kept = [];
      e.hold = true;
      e.status = 0;
      // The rest of a body streaming upstream has nowhere to go: dropped as it comes.
      if (e.upload) e.upload.dropped = true;
      this.#local(e, (e.forwarding as Forwarding).failed(error));
    }
    // An upload that waited for this connection's drain waits no more.
    if (this.#uploadWaits) this.#resumeFor();
    this.#pump();
  }

  /** A chunk of a streamed answer to the client, chunk-framed where the answer is; false when the client's buffer is full. */
  #bodyOut(e: Entry, chunk: Buffer): boolean {
    if (!e.chunked) return this.#write(e, chunk);
    this.#write(e, `${chunk.length.toString(16)}${CRLF}`);
    this.#write(e, chunk);
    return this.#write(e, CRLF);
  }

  /** The head of a streamed answer: its fields as they came less hop-by-hop ones, and the framing the client can read. */
  #streamHead(e: Entry): void {
    const fields = e.fields.filter((_v, i, all) => !HOP_BY_HOP.has(all[i - (i % 2)].toLowerCase()));
    if (!e.noBody) {
      const given = fieldOf(e.fields, 'content-length');
      // With no length, a body is chunked to an HTTP/1.1 client, and ends with the connection to an HTTP/1.0 one (RFC 9112 §6.3).
      if (given === undefined || fieldOf(e.fields, 'transfer-encoding') !== undefined) {
        for (let i = fields.length - 2; i >= 0; i -= 2) if (fields[i].toLowerCase() === 'content-length') fields.splice(i, 2);
        if (e.http10) e.closeAfter = true;
        else e.chunked = true;
      }
    }
    e.headSent = true;
    this.#write(e, head(e.status, e.text, fields, e, undefined, e.chunked));
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
        this.#up?.end();
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

const EMPTY = Buffer.alloc(0);

/** A body as bytes: text is UTF-8 (strings written to the socket as they are go out as Latin-1, the encoding of a head). */
const bytes = (body: Buffer | string): Buffer => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

/** A status line and fields, with the framing the entry needs (fields past hop-by-hop filtering; Content-Length replaced when given). */
function head(status: number, text: string, fields: readonly string[], e: Entry, length?: number, chunked = false): string {
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
