/**
 * What the proxy does with each request and its answer, whichever core frames them (core.ts):
 * wire.ts (llhttp on plain sockets, the default) or http-core.ts (node:http). A request is
 * read whole, up to the body size limit (src/spec/conventions/body.ts: the declared one, else
 * the runtime's safety default), and judged on arrival; a larger body is not held, its
 * request judged without it (over a declared limit, it is one the spec refuses). In strict
 * mode a request the spec refuses is answered by the proxy with the declared error.
 * Otherwise it is forwarded with every field but the hop-by-hop ones (RFC 9110 §7.6.1), Host
 * as the upstream's own, a body too large to hold streaming through as it comes. In report
 * mode the answer streams through and is judged once it has gone out; in strict mode an
 * answer is held until judged (up to KEEP_BYTES), so a violating one can be marked (the
 * `Svcspec-Findings` field names what it broke) before the client sees it.
 */
import type { Exchange } from '../conformance/http.ts';
import { bodyLimit } from '../spec/conventions/body.ts';
import { type Answer, type Core, type CoreRequest, type Decision, fieldOf, HOP_BY_HOP, type Handler, KEEP_BYTES } from './core.ts';
import type { Finding } from './finding.ts';
import { listenHttp } from './http-core.ts';
import type { Arrival, Judge } from './judge.ts';
import { challenges, realmOf } from '../spec/conventions/challenges.ts';
import { allowedMethods } from '../spec/conventions/endpoints.ts';
import { RELAY_PATH } from './parts/events.ts';
import { listenWire, wireParser } from './wire.ts';

export type Mode = 'report' | 'strict';

/** The field a strict proxy marks a violating answer with. */
export const FINDINGS_HEADER = 'svcspec-findings';

export interface ForwardOptions {
  readonly judge: Judge;
  readonly upstream: URL;
  readonly mode: Mode;
  /** `partial`: findings of an exchange still under way (an event stream's), not its record. */
  readonly onFindings: (findings: readonly Finding[], exchange: Exchange, partial?: boolean) => void;
  /** The upstream could not be reached or broke off. */
  readonly onUpstreamError?: (message: string) => void;
  /** The clock exchanges are stamped with (default: this machine's); tests that move the service's clock pass the same one. */
  readonly now?: () => number;
  /** The client's webhook receiver: deliveries to the proxy's relay path are judged and relayed there. */
  readonly receiver?: string;
  /** The forwarding core (default: wire, where this Node's llhttp binding is as it expects; else http). */
  readonly core?: 'wire' | 'http';
}

export interface Forwarder {
  readonly url: string;
  readonly core: 'wire' | 'http';
  close(): Promise<void>;
}

export async function listen(options: ForwardOptions, port: number, host: string): Promise<Forwarder> {
  const self = { url: '' };
  const handler: Handler = { bodyCap: bodyLimit(options.judge.spec).maxBytes, request: (request) => decide(options, self, request) };
  // SVCSPEC_PROXY_CORE=http: the node:http core, should the wire core ever misbehave on some Node.
  const asked = options.core ?? (process.env.SVCSPEC_PROXY_CORE === 'http' ? 'http' : 'wire');
  const core = asked === 'wire' && !wireParser() ? 'http' : asked;
  const running: Core = await (core === 'wire' ? listenWire : listenHttp)({ handler, upstream: options.upstream, port, host });
  self.url = running.url;
  return { url: running.url, core, close: () => running.close() };
}

/** What to do with a request (exported for the proxy bench's judging harness, bench/proxy-judge.bench.ts). */
export function decide(options: ForwardOptions, self: { url: string }, req: CoreRequest): Decision {
  const started = performance.now();
  const at = options.now ? options.now() : Date.now();
  let raw = req.body;
  // The fields once: as the judge reads them (one string each, a repeated field joined by
  // ", ", RFC 9110 §5.3; Set-Cookie kept apart by newlines), and as relayed (less the hop-by-hop ones).
  const headers: Record<string, string> = {};
  const out: string[] = [];
  const given = req.fields;
  for (let i = 0; i < given.length; i += 2) {
    const k = given[i].toLowerCase();
    const v = given[i + 1];
    const had = headers[k];
    headers[k] = had === undefined ? v : `${had}${k === 'set-cookie' ? '\n' : ', '}${v}`;
    if (k === 'host') {
      // RFC 9112 §3.2: a request with more than one Host is answered 400 (and would be two Hosts upstream).
      if (had !== undefined) return { answer: { status: 400, fields: ['content-type', 'text/plain; charset=utf-8'], body: 'A request carries one Host field (RFC 9112 §3.2); this one has more.' } };
      out.push(given[i], options.upstream.host);
    }
    else if (!HOP_BY_HOP.has(k)) out.push(given[i], v);
  }
  if (headers.host === undefined) out.push('host', options.upstream.host);
  const url = req.url;
  if (options.receiver && req.method === 'POST' && url.split('?')[0] === RELAY_PATH) {
    // The receiver the subscription named travels in the relay address; only one under the given receiver is relayed to.
    const to = new URLSearchParams(url.split('?')[1] ?? '').get('to') ?? options.receiver;
    if (!to.startsWith(options.receiver)) return { answer: { status: 404, fields: [], body: '' } };
    // A delivery is judged and relayed whole: one larger than the proxy holds is refused (RFC 9110 §15.5.14).
    if (req.beyond) return { answer: { status: 413, fields: ['content-type', 'text/plain; charset=utf-8'], body: `A delivery through the proxy is at most ${bodyLimit(options.judge.spec).maxBytes} bytes.` } };
    return { answer: deliver(options, to, headers, raw, at, started) };
  }
  // A subscription to the receiver is made to the proxy's relay address, so its deliveries pass through the proxy.
  const hooks = options.judge.spec.events.webhooks;
  if (options.receiver && hooks?.path && req.method === 'POST' && !req.beyond && options.judge.router.route('POST', url).path.replace(/\/$/, '') === hooks.path) {
    try {
      const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      if (body && typeof body.url === 'string' && body.url.startsWith(options.receiver)) raw = Buffer.from(JSON.stringify({ ...body, url: `${self.url}${RELAY_PATH}?to=${encodeURIComponent(body.url)}` }));
    } catch {
      // Not JSON: relayed as it is, for the service to refuse.
    }
  }
  const request: Exchange['request'] = { method: req.method, url: `${options.upstream.origin}${url}`, headers, ...(raw.length ? { body: raw.toString('utf8') } : {}) };
  // The body's size in bytes as they came (its text may be longer: parts/limits.ts sizeProblem).
  const arrival = options.judge.arrive(request, req.beyond, raw.length);
  const refusal = options.mode === 'strict' ? arrival.problems[0] : undefined;
  if (refusal) {
    const error = options.judge.errors.body(refusal.situation, refusal.message, refusal.at !== undefined ? arrival.problems.filter((p) => p.at !== undefined).map((p) => ({ pointer: p.at as string, message: p.message })) : undefined, url.split('?')[0]);
    options.judge.counts.refused++;
    return { answer: { status: error.status, fields: ['content-type', error.mediaType, ...refusalFields(options.judge, arrival.seen, error.status), FINDINGS_HEADER, arrival.problems.map((p) => p.id).join(', ')], body: error.text } };
  }
  // A subscription the proxy made to its relay address is shown to the client with the receiver's URL it asked for.
  const relayed = options.receiver ? `${self.url}${RELAY_PATH}?to=` : '';
  let held = false;
  // The event stream is judged event by event as it passes (parts/stream.ts), never held.
  let watch: ((chunk: Buffer) => Finding[]) | undefined;
  let head: Exchange | undefined;
  return {
    forward: {
      fields: out,
      body: raw,
      hold: (status, fields) => {
        const streaming = (fieldOf(fields, 'content-type') ?? '').startsWith('text/event-stream');
        if (streaming) {
          head = { request, response: { status, headers: flat(fields), text: '', json: undefined }, ms: 0, at };
          watch = options.judge.stream(arrival, head);
        }
        // With a receiver, an answer may name the relay address (a subscription's): such
        // answers are JSON of a known, bounded length, held to be rewritten; the rest flow.
        const length = Number(fieldOf(fields, 'content-length'));
        const rewritable = relayed !== '' && /json/i.test(fieldOf(fields, 'content-type') ?? '') && Number.isFinite(length) && length <= KEEP_BYTES;
        // Held up to KEEP_BYTES: an answer that says it is larger streams from its start (one that grows larger is let go by the core).
        return (held = (rewritable || (options.mode === 'strict' && !(length > KEEP_BYTES))) && !streaming);
      },
      chunk: (data) => {
        if (!watch || !head) return false;
        const findings = watch(data);
        if (findings.length) options.onFindings(findings, head, true);
        // Judged live, and not kept: a stream ends when its client leaves, and such an exchange
        // is neither judged again nor recorded (--record keeps no stream; --replay judges a
        // stream's text where a record has one).
        return true;
      },
      failed: (error) => {
        options.onUpstreamError?.(`${request.method} ${request.url}: ${error.message}`);
        const e = options.judge.errors.body('bad-gateway', `the proxy could not reach the service at ${options.upstream.origin}: ${error.message}`);
        return { status: e.status, fields: ['content-type', e.mediaType], body: e.text };
      },
      done: (status, fields, body, size) => {
        const ms = performance.now() - started;
        // A body past KEEP_BYTES was not kept: the answer's status and fields are judged, not its body.
        const unread = size > KEEP_BYTES;
        const judge = (text: string) => {
          const exchange: Exchange = { request, response: { status, headers: flat(fields), text, json: parseJson(text, fieldOf(fields, 'content-type')) }, ms, at };
          return { exchange, findings: options.judge.answer(arrival, exchange, unread) };
        };
        if (!held || unread) {
          // The answer went out as it came (or was let go, too large to hold), and is judged once
          // this turn's answers have gone out (decoding and parsing its body included), in the
          // order they completed.
          later(() => {
            const { exchange, findings } = judge(unread ? '' : body.toString('utf8'));
            options.onFindings(findings, exchange);
          });
          return undefined;
        }
        let text = body.toString('utf8');
        let sent = body;
        if (relayed && text.includes(relayed)) {
          text = text.replace(new RegExp(`${relayed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^"]*)`, 'g'), (_all, to: string) => decodeURIComponent(to));
          sent = Buffer.from(text);
        }
        const { exchange, findings } = judge(text);
        options.onFindings(findings, exchange);
        const marked = options.mode === 'strict' && findings.length ? [...fields, FINDINGS_HEADER, [...new Set(findings.map((f) => f.id))].join(', ')] : fields;
        return { status, fields: marked, body: sent };
      },
    },
  };
}

/** A webhook delivery: judged as it came, relayed to the receiver, the receiver's answer relayed back. */
async function deliver(options: ForwardOptions, receiver: string, headers: Record<string, string>, raw: Buffer, at: number, started: number): Promise<Answer> {
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
  const exchange: Exchange = { request: { method: 'POST', url: receiver, headers, body: raw.toString('utf8') }, response: { status, headers: answerHeaders, text, json: parseJson(text, answerHeaders['content-type']) }, ms: performance.now() - started, at };
  options.onFindings(options.judge.delivery(exchange, raw), exchange);
  return { status, fields: ['content-type', answerHeaders['content-type'] ?? 'text/plain'], body: text };
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

/** Header fields as one string each, by lower-case name (a repeated field joined by ", ", RFC 9110 §5.3; Set-Cookie kept apart by newlines). */
function flat(fields: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) {
    const k = fields[i].toLowerCase();
    const had = out[k];
    out[k] = had === undefined ? fields[i + 1] : `${had}${k === 'set-cookie' ? '\n' : ', '}${fields[i + 1]}`;
  }
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

/**
 * The fields a refusal of the proxy's own carries, as the service's would (RFC 9110): a 401 its
 * challenges (§11.6.1, src/spec/conventions/challenges.ts), a 405 the methods the path has (§10.2.1).
 */
function refusalFields(judge: Judge, seen: Arrival['seen'], status: number): string[] {
  const { spec } = judge;
  if (status === 401) {
    const auth = seen.endpoint?.auth;
    const schemes = spec.authentication.schemes.filter((s) => !auth || auth.public || auth.schemes.includes(s.name));
    return schemes.length ? ['www-authenticate', challenges(schemes, realmOf(spec))] : [];
  }
  if (status === 405 && seen.route.otherMethods?.length) return ['allow', allowedMethods(seen.route.otherMethods).join(', ')];
  return [];
}
