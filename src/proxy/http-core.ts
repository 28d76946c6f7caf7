/**
 * The node:http forwarding core: a node:http server relays each request over a keep-alive
 * Agent and relays the answer back, status, fields and body as they come. The proxy runs on
 * it where node's llhttp binding is not as wire.ts expects (wireParser() is null), or when
 * asked (`core: 'http'`). Both cores pass the same contract suite (test/proxy/forward.test.ts).
 * As in wire.ts, a request body larger than the handler's cap is not held: it is piped
 * upstream as it comes, or dropped after the proxy's own answer, the connection then closed
 * in stages (closeInStages); a held answer is let go past KEEP_BYTES.
 */
import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type Answer, type Core, fieldOf, type Forwarding, type Handler, HOP_BY_HOP, KEEP_BYTES, listening } from './core.ts';

// getBuiltinModule, not an ES import of node:http, whose ES facade loads undici (see src/serve/events/delivery.ts).
const { Agent: AgentClass, createServer, request: httpRequest } = process.getBuiltinModule('node:http');

const EMPTY = Buffer.alloc(0);
/** After refusing a request whose body it does not read, the rest is read and dropped this long at most before the connection is cut (as wire.ts). */
const LINGER_MS = 5000;

export interface HttpCoreOptions {
  readonly handler: Handler;
  readonly upstream: URL;
  readonly port: number;
  readonly host: string;
}

export async function listenHttp(options: HttpCoreOptions): Promise<Core> {
  // Nagle's algorithm off on both sides (RFC 896; with delayed ACKs, RFC 1122 §4.2.3.2, a small write can wait 40 ms).
  const agent = new AgentClass({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256, noDelay: true } as ConstructorParameters<typeof AgentClass>[0]);
  const server = createServer({ keepAlive: true, noDelay: true }, (req, res) => serve(options, agent, req, res));
  // Expect: 100-continue (RFC 9110 §10.1.1) answered here, not by node:http, so a body the proxy refuses is not asked for.
  server.on('checkContinue', (req, res) => serve(options, agent, req, res, true));
  server.keepAliveTimeout = 5000;
  const url = await listening(server, options.port, options.host);
  return {
    url,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      agent.destroy();
      setTimeout(() => server.closeAllConnections(), 1000).unref();
    }),
  };
}

/** Fields less the hop-by-hop ones and those the core frames itself. */
function relayed(fields: readonly string[], drop: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < fields.length; i += 2) {
    const k = fields[i].toLowerCase();
    if (!HOP_BY_HOP.has(k) && !drop.includes(k)) out.push(fields[i], fields[i + 1]);
  }
  return out;
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  res.writeHead(answer.status, [...relayed(answer.fields, ['content-length']), 'content-length', String(Buffer.byteLength(answer.body))]);
  res.end(answer.body);
}

/**
 * A connection that closes after its answer is closed in stages (RFC 9112 §9.6): node:http
 * destroys it as soon as the answer is out, and a client still sending its body (a service,
 * or the proxy, answered before reading it all) then meets a refused write (EPIPE, or a
 * reset) and may never read the answer. Here the proxy's side is shut (FIN) with the answer,
 * the rest the client sends is still read (and piped upstream, or dropped), and the socket
 * goes when the client closes its side, or after LINGER_MS.
 */
function closeInStages(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = function lingering(this: Socket): void {
    if (req.complete) {
      this.end();
      if (this.writableFinished) this.destroy();
      else this.once('finish', () => this.destroy());
      return;
    }
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // The client's side closed, its body in or given up: nothing more to read.
    this.once('end', () => this.destroy());
    if (req.readableFlowing === null) req.resume();
  };
}

function serve(options: HttpCoreOptions, agent: Agent, req: IncomingMessage, res: ServerResponse, expectsContinue = false): void {
  const cap = options.handler.bodyCap;
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('error', () => res.destroy());
  // A body its Content-Length says is larger than the cap is decided on at once, before it comes.
  if (Number(req.headers['content-length']) > cap) {
    closeInStages(req);
    if (!beyond(options, agent, req, res, chunks) && expectsContinue) res.writeContinue();
    return;
  }
  if (expectsContinue) res.writeContinue();
  const onData = (c: Buffer) => {
    chunks.push(c);
    if ((size += c.length) <= cap) return;
    // Past the cap (a chunked body): decided on now, the rest not held. Still within this 'data' event, so nothing is missed.
    req.off('data', onData);
    req.off('end', onEnd);
    closeInStages(req);
    beyond(options, agent, req, res, chunks);
  };
  const onEnd = () => {
    const body = chunks.length === 1 ? chunks[0] : chunks.length === 0 ? EMPTY : Buffer.concat(chunks);
    const decision = options.handler.request({ method: req.method ?? 'GET', url: req.url ?? '/', fields: req.rawHeaders, body });
    if ('answer' in decision) {
      const a = decision.answer;
      if (a instanceof Promise) void a.then((answer) => send(res, answer), (error: Error) => send(res, { status: 500, fields: [], body: error.message }));
      else send(res, a);
      return;
    }
    forward(options, agent, req, res, decision.forward);
  };
  req.on('data', onData);
  req.on('end', onEnd);
}

/** A request whose body is larger than the cap: forwarded with the body piped through as it comes, or answered by the proxy (true) with the rest dropped and the connection closed. */
function beyond(options: HttpCoreOptions, agent: Agent, req: IncomingMessage, res: ServerResponse, waiting: Buffer[]): boolean {
  const decision = options.handler.request({ method: req.method ?? 'GET', url: req.url ?? '/', fields: req.rawHeaders, body: EMPTY, beyond: true });
  if ('forward' in decision) {
    forward(options, agent, req, res, decision.forward, waiting);
    return false;
  }
  waiting.length = 0;
  // Read and dropped a while (the client may read the answer only once it has sent all), then
  // cut: the connection closes after the answer, in stages (closeInStages, called before this).
  req.resume();
  res.shouldKeepAlive = false;
  const a = decision.answer;
  if (a instanceof Promise) void a.then((answer) => send(res, answer), (error: Error) => send(res, { status: 500, fields: [], body: error.message }));
  else send(res, a);
  return true;
}

/** A request upstream: its body whole, or (`waiting`, a body too large to hold) what came of it so far and the rest piped as it comes, framed as the client framed it. */
function forward(options: HttpCoreOptions, agent: Agent, req: IncomingMessage, res: ServerResponse, f: import('./core.ts').Forwarding, waiting?: Buffer[]): void {
  // As an object: node:http frames a body by the Content-Length it finds there (a list of fields, it would chunk the body too).
  const headers: Record<string, string | string[]> = {};
  const list = relayed(f.fields, ['content-length', 'expect']);
  for (let i = 0; i < list.length; i += 2) {
    const k = list[i].toLowerCase();
    const had = headers[k];
    headers[k] = had === undefined ? list[i + 1] : [...(Array.isArray(had) ? had : [had]), list[i + 1]];
  }
  const given = req.headers['content-length'];
  if (waiting) {
    if (given !== undefined) headers['content-length'] = given;
    else headers['transfer-encoding'] = 'chunked';
  } else if (f.body.length) headers['content-length'] = String(f.body.length);
  const up = httpRequest({ agent, hostname: options.upstream.hostname, port: options.upstream.port, method: req.method, path: req.url, headers });
  // A client that leaves before its answer is whole: the upstream's answer is let go too, and that is no failure of the upstream's.
  let left = false;
  res.on('close', () => {
    if (!res.writableFinished) (left = true), up.destroy();
  });
  // The service answered before it read the whole body: the rest is dropped here, not sent.
  let cut = false;
  up.on('error', (error) => {
    if (cut) return;
    if (waiting) {
      // The rest of the body has nowhere to go: dropped as it comes.
      req.unpipe(up);
      req.resume();
    }
    if (left) return;
    if (res.headersSent) res.destroy();
    else send(res, f.failed(error));
  });
  up.on('response', (answer) => {
    relay(f, req.method === 'HEAD', answer, res);
    // A service that answered before reading the whole body wants no more of it: the rest is
    // read and dropped here (closeInStages), and the upstream connection, its request cut
    // short, is not used again.
    if (waiting) {
      answer.once('end', () => {
        if (req.complete) return;
        cut = true;
        req.unpipe(up);
        req.resume();
        up.destroy();
      });
    }
  });
  if (!waiting) {
    up.end(f.body.length ? f.body : undefined);
    return;
  }
  for (const chunk of waiting.splice(0)) up.write(chunk);
  if (req.readableEnded) up.end();
  else req.pipe(up);
}

function relay(f: Forwarding, head: boolean, answer: IncomingMessage, res: ServerResponse): void {
  const fields = answer.rawHeaders;
  const status = answer.statusCode ?? 502;
  const hold = f.hold(status, fields);
  const streaming = (fieldOf(fields, 'content-type') ?? '').startsWith('text/event-stream');
  // A body of a known length is sent with the fields in one write when it is whole (fewer
  // system calls than a write per chunk); a stream, or a body of unknown length, flows.
  const length = Number(fieldOf(fields, 'content-length'));
  let whole = hold || (!streaming && Number.isFinite(length) && length <= KEEP_BYTES);
  if (!whole) {
    res.writeHead(status, relayed(fields));
    if (streaming) res.flushHeaders();
  }
  const kept: Buffer[] = [];
  let size = 0;
  let held = hold;
  answer.on('data', (c: Buffer) => {
    if (held && size + c.length > KEEP_BYTES) {
      // Larger than an answer may make the proxy hold: let go, its head and what was held sent as they came, the rest streamed (not judged, not marked).
      held = false;
      whole = false;
      res.writeHead(status, relayed(fields));
      for (const k of kept.splice(0)) res.write(k);
    }
    if (!whole) {
      res.write(c);
      if (f.chunk(c)) return;
    }
    if (whole || size + c.length <= KEEP_BYTES) kept.push(c);
    size += c.length;
  });
  answer.on('error', () => res.destroy());
  answer.on('end', () => {
    const body = kept.length === 1 ? kept[0] : kept.length === 0 ? EMPTY : Buffer.concat(kept);
    if (!held) {
      if (whole) res.writeHead(status, relayed(fields)).end(body);
      else res.end();
      f.done(status, fields, body, size);
      return;
    }
    const a = f.done(status, fields, body, size) ?? { status, fields, body };
    // HEAD's answer, 204 and 304 carry their fields as they came, no body (node:http writes none).
    if (head || status === 204 || status === 304) res.writeHead(a.status, relayed(a.fields)).end();
    else send(res, a);
  });
}
