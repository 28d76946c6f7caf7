/**
 * The forwarding core: a node:http server that relays each request to the upstream over a
 * keep-alive agent and relays the answer back, status, fields and body as they come (in
 * report mode the body streams through; the proxy keeps a copy to judge once it is sent).
 * Hop-by-hop fields are not relayed (RFC 9110 §7.6.1); everything else is, Host included
 * as the upstream's own. In strict mode a request the spec refuses is answered by the proxy
 * with the declared error, and an answer is held until judged, so a violating one can be
 * marked (the `Svcspec-Findings` field names what it broke) before the client sees it.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Exchange } from '../conformance/http.ts';
import type { Finding } from './finding.ts';
import type { Arrival, Judge } from './judge.ts';
import { RELAY_PATH } from './parts/events.ts';

export type Mode = 'report' | 'strict';

/** The field a strict proxy marks a violating answer with. */
export const FINDINGS_HEADER = 'svcspec-findings';

/** Bodies kept for judging up to this size; a larger one streams through unjudged (its shape). */
const KEEP_BYTES = 4 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** RFC 9110 §7.6.1: fields meant for one connection, never relayed. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export interface ForwardOptions {
  readonly judge: Judge;
  readonly upstream: URL;
  readonly mode: Mode;
  readonly onFindings: (findings: readonly Finding[], exchange: Exchange) => void;
  /** The upstream could not be reached or broke off. */
  readonly onUpstreamError?: (message: string) => void;
  /** The clock exchanges are stamped with (default: this machine's); tests that move the service's clock pass the same one. */
  readonly now?: () => number;
  /** The client's webhook receiver: deliveries to the proxy's relay path are judged and relayed there. */
  readonly receiver?: string;
}

export interface Forwarder {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

export async function listen(options: ForwardOptions, port: number, host: string): Promise<Forwarder> {
  // Nagle's algorithm off on both sides (RFC 896; with delayed ACKs, RFC 1122 §4.2.3.2, a small write can wait 40 ms).
  const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256, noDelay: true } as ConstructorParameters<typeof Agent>[0]);
  const self = { url: '' };
  const server = createServer({ keepAlive: true, noDelay: true }, (req, res) => handle(options, agent, self, req, res));
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => (server.off('error', reject), resolve()));
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  self.url = `http://${shown}:${address.port}`;
  return {
    server,
    url: `http://${shown}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      agent.destroy();
      setTimeout(() => server.closeAllConnections(), 1000).unref();
    }),
  };
}

function handle(options: ForwardOptions, agent: Agent, self: { url: string }, req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('error', () => res.destroy());
  req.on('end', () => {
    const started = performance.now();
    const at = options.now ? options.now() : Date.now();
    let raw = chunks.length === 1 ? chunks[0] : chunks.length === 0 ? EMPTY : Buffer.concat(chunks);
    // The fields once: as the judge reads them (one string each), and as relayed (less the hop-by-hop ones).
    const headers: Record<string, string> = {};
    const out: OutgoingHttpHeaders = {};
    const given = req.headers;
    for (const k in given) {
      const v = given[k];
      if (v === undefined) continue;
      headers[k] = Array.isArray(v) ? v.join(k === 'set-cookie' ? '\n' : ', ') : v;
      if (!HOP_BY_HOP.has(k)) out[k] = v;
    }
    if (options.receiver && req.method === 'POST' && (req.url ?? '').split('?')[0] === RELAY_PATH) {
      // The receiver the subscription named travels in the relay address; only one under the given receiver is relayed to.
      const to = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('to') ?? options.receiver;
      if (!to.startsWith(options.receiver)) return void res.writeHead(404).end();
      return void deliver(options, to, headers, raw, at, started, res);
    }
    // A subscription to the receiver is made to the proxy's relay address, so its deliveries pass through the proxy.
    const hooks = options.judge.spec.events.webhooks;
    if (options.receiver && hooks?.path && req.method === 'POST' && options.judge.router.route('POST', req.url ?? '/').path.replace(/\/$/, '') === hooks.path) {
      try {
        const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        if (body && typeof body.url === 'string' && body.url.startsWith(options.receiver)) raw = Buffer.from(JSON.stringify({ ...body, url: `${self.url}${RELAY_PATH}?to=${encodeURIComponent(body.url)}` }));
      } catch {
        // Not JSON: relayed as it is, for the service to refuse.
      }
    }
    const request: Exchange['request'] = { method: req.method ?? 'GET', url: `${options.upstream.origin}${req.url ?? '/'}`, headers, ...(raw.length ? { body: raw.toString('utf8') } : {}) };
    const arrival = options.judge.arrive(request);
    const refusal = options.mode === 'strict' ? arrival.problems[0] : undefined;
    if (refusal) {
      const error = options.judge.errors.body(refusal.situation, refusal.message, refusal.at !== undefined ? arrival.problems.filter((p) => p.at !== undefined).map((p) => ({ pointer: p.at as string, message: p.message })) : undefined);
      options.judge.counts.refused++;
      res.writeHead(error.status, { 'content-type': error.mediaType, 'content-length': Buffer.byteLength(error.text), [FINDINGS_HEADER]: arrival.problems.map((p) => p.id).join(', ') });
      res.end(error.text);
      return;
    }
    out.host = options.upstream.host;
    if (raw.length) out['content-length'] = raw.length;
    const upstream = httpRequest({ agent, protocol: options.upstream.protocol, hostname: options.upstream.hostname, port: options.upstream.port, method: request.method, path: req.url, headers: out });
    upstream.on('error', (error) => {
      options.onUpstreamError?.(`${request.method} ${request.url}: ${error.message}`);
      if (res.headersSent) return void res.destroy();
      const e = options.judge.errors.body('unavailable', `the proxy could not reach the service at ${options.upstream.origin}: ${error.message}`);
      res.writeHead(502, { 'content-type': e.mediaType, 'content-length': Buffer.byteLength(e.text) });
      res.end(e.text);
    });
    upstream.on('response', (answer) => relay(options, self, arrival, request, started, at, answer, res));
    upstream.end(raw.length ? raw : undefined);
  });
}

/** A webhook delivery: judged as it came, relayed to the receiver, the receiver's answer relayed back. */
async function deliver(options: ForwardOptions, receiver: string, headers: Record<string, string>, raw: Buffer, at: number, started: number, res: ServerResponse): Promise<void> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k) && k !== 'host' && k !== 'content-length') out[k] = v;
  let status = 502;
  let text = '';
  let answerHeaders: Record<string, string> = {};
  try {
    const answer = await fetch(receiver, { method: 'POST', headers: out, body: new Uint8Array(raw), redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    status = answer.status;
    text = await answer.text();
    answerHeaders = Object.fromEntries(answer.headers);
  } catch (error) {
    options.onUpstreamError?.(`delivery to ${receiver}: ${(error as Error).message}`);
  }
  res.writeHead(status, { 'content-type': answerHeaders['content-type'] ?? 'text/plain' }).end(text);
  const exchange: Exchange = { request: { method: 'POST', url: receiver, headers, body: raw.toString('utf8') }, response: { status, headers: answerHeaders, text, json: parseJson(text, answerHeaders['content-type']) }, ms: performance.now() - started, at };
  options.onFindings(options.judge.delivery(exchange, raw), exchange);
}

function relay(options: ForwardOptions, self: { url: string }, arrival: Arrival, request: Exchange['request'], started: number, at: number, answer: IncomingMessage, res: ServerResponse): void {
  // The fields as they came, in order and spelling (a flat list), less the hop-by-hop ones.
  const raw = answer.rawHeaders;
  const headers: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i].toLowerCase())) headers.push(raw[i], raw[i + 1]);
  const status = answer.statusCode ?? 502;
  const streaming = (answer.headers['content-type'] ?? '').startsWith('text/event-stream');
  // A body of a known length is sent with the fields in one write when it is whole (the
  // common answer: fewer system calls than a write per chunk); strict mode holds every
  // answer but a stream until it is judged; a stream, or a body of unknown length, flows.
  const length = Number(answer.headers['content-length']);
  const hold = !streaming && (options.mode === 'strict' || (Number.isFinite(length) && length <= KEEP_BYTES));
  if (!hold) {
    res.writeHead(status, headers);
    if (streaming) res.flushHeaders();
  }
  const kept: Buffer[] = [];
  let size = 0;
  // The event stream is judged event by event as it passes (parts/stream.ts), never held.
  const head: Exchange | undefined = streaming ? { request, response: { status, headers: flat(answer.headers), text: '', json: undefined }, ms: 0, at } : undefined;
  const watch = head && options.judge.stream(arrival, head);
  answer.on('data', (c: Buffer) => {
    if (watch && head) {
      res.write(c);
      const findings = watch(c);
      if (findings.length) options.onFindings(findings, head);
      // Kept as other bodies are, for a record of the traffic (--record).
      if (size <= KEEP_BYTES) kept.push(c);
      size += c.length;
      return;
    }
    if (hold || size <= KEEP_BYTES) kept.push(c);
    size += c.length;
    if (!hold) res.write(c);
  });
  answer.on('error', () => res.destroy());
  answer.on('end', () => {
    let body = kept.length === 1 ? kept[0] : Buffer.concat(kept);
    const ms = performance.now() - started;
    // A subscription the proxy made to its relay address is shown to the client with the receiver's URL it asked for.
    const relayed = hold && options.receiver ? `${self.url}${RELAY_PATH}?to=` : '';
    const judge = (text: string) => {
      const exchange: Exchange = {
        request,
        response: { status: answer.statusCode ?? 0, headers: flat(answer.headers), text, json: parseJson(text, answer.headers['content-type']) },
        ms,
        at,
      };
      return { exchange, findings: options.judge.answer(arrival, exchange) };
    };
    if (options.mode !== 'strict' && !relayed) {
      // Report mode: the answer goes out as it came, and is judged once this turn's answers
      // have gone out (decoding and parsing its body included), in the order they completed.
      if (hold) res.writeHead(status, headers).end(body);
      else res.end();
      return later(() => {
        const { exchange, findings } = judge(size > KEEP_BYTES ? '' : body.toString('utf8'));
        options.onFindings(findings, exchange);
      });
    }
    let text = size > KEEP_BYTES ? '' : body.toString('utf8');
    if (relayed && text.includes(relayed)) {
      text = text.replace(new RegExp(`${relayed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^"]*)`, 'g'), (_all, to: string) => decodeURIComponent(to));
      body = Buffer.from(text);
      const i = headers.findIndex((h, n) => n % 2 === 0 && h.toLowerCase() === 'content-length');
      if (i >= 0) headers[i + 1] = String(body.length);
    }
    if (!hold) res.end();
    else if (options.mode !== 'strict') res.writeHead(status, headers).end(body);
    const { exchange, findings } = judge(text);
    if (hold && options.mode === 'strict') {
      if (findings.length) headers.push(FINDINGS_HEADER, [...new Set(findings.map((f) => f.id))].join(', '));
      res.writeHead(status, headers).end(body);
    }
    options.onFindings(findings, exchange);
  });
}

/** Judgements waiting for this turn's answers to go out: run together, first come first judged. */
const waiting: (() => void)[] = [];
function later(job: () => void): void {
  if (waiting.push(job) === 1) setImmediate(drain);
}
function drain(): void {
  // Jobs queued while draining (none today: judging is synchronous) wait for the next turn.
  for (const job of waiting.splice(0)) job();
}

/** Header fields as one string each (a repeated field joined by ", ", RFC 9110 §5.3; Set-Cookie kept apart by newlines). */
function flat(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(k === 'set-cookie' ? '\n' : ', ') : v;
  return out;
}

function parseJson(text: string, type: string | undefined): unknown {
  if (text === '' || !/json/i.test(type ?? '')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
