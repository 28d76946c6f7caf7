/**
 * The proxy's judge: given each exchange as it completes (or, in strict mode, each request
 * before it is forwarded), it says what breaks the spec. Pure of I/O: the forwarding core
 * (forward.ts) and a replay of a recorded traffic (replay.ts) feed it the same values.
 *
 *   request allowed?    route.ts (path, method, version), parts/authentication.ts (a
 *                       credential of a declared scheme), parts/limits.ts (the body's
 *                       size), parts/endpoints.ts (the body), parts/versioning.ts (a
 *                       declared, live version)
 *   answer declared?    parts/endpoints.ts (status, content type, body), parts/errors.ts
 *                       (error shape and code), parts/limits.ts (ETag, RateLimit fields),
 *                       parts/versioning.ts (deprecation fields)
 *   across exchanges    parts/records.ts (states, deletes, owners, ETags, page walks),
 *                       parts/limits.ts (the quota against the counts seen)
 */
import { BoundedMap } from '../spec/bounded-map.ts';
import type { Exchange } from '../conformance/http.ts';
import { isBulk, type Spec } from '../spec/model.ts';
import { type Finding, type RequestProblem, locate } from './finding.ts';
import { authProblems, issuedToken } from './parts/authentication.ts';
import { bodyProblems, mediaTypeProblem, resourceFor, successFindings } from './parts/endpoints.ts';
import { answerRecord, requestRecord } from './parts/envelope.ts';
import { locationFindings } from './parts/location.ts';
import { envelopedPointer } from '../spec/conventions/envelope.ts';
import { allowedMethods } from '../spec/conventions/endpoints.ts';
import { ErrorJudge } from './parts/errors.ts';
import { EventJudge } from './parts/events.ts';
import { LimitJudge, sizeProblem } from './parts/limits.ts';
import { PromiseJudge } from './parts/promises.ts';
import { RecordJudge } from './parts/records.ts';
import { StreamWatch } from './parts/stream.ts';
import { deprecationFindings, versionProblems } from './parts/versioning.ts';
import { Router } from './route.ts';
import { principalOf, type Found, type Seen } from './seen.ts';

/** Answers that may come before any judgement of the request: a limit, the service unavailable. */
const FIRST = new Set([408, 413, 414, 429, 431, 500, 502, 503, 504]);
/** What a service may find before it reads a body: no credential, no scope, no record, a failed precondition, a conflict. */
const LATER = new Set([400, 401, 403, 404, 405, 409, 410, 412, 415, 422]);

/** What the judge makes of a request before it is answered. */
export interface Arrival {
  readonly seq: number;
  readonly seen: Omit<Seen, 'exchange' | 'ok'>;
  readonly problems: readonly RequestProblem[];
}

export type Request = Exchange['request'];

export class Judge {
  readonly spec: Spec;
  readonly router: Router;
  readonly errors: ErrorJudge;
  readonly #limits: LimitJudge;
  readonly #records: RecordJudge;
  readonly #promises: PromiseJudge;
  readonly events: EventJudge;
  readonly #tokens = new BoundedMap<string, string>(10_000);
  #seq = 0;
  /** Exchanges judged, and requests outside the spec (a client's doing, not the service's). */
  readonly counts = { exchanges: 0, outside: 0, refused: 0, deliveries: 0, streamEvents: 0 };

  constructor(spec: Spec, options: { readonly webhookSecret?: string } = {}) {
    this.spec = spec;
    this.events = new EventJudge(spec, options.webhookSecret);
    this.router = new Router(spec);
    this.errors = new ErrorJudge(spec);
    this.#limits = new LimitJudge(spec);
    this.#records = new RecordJudge(spec);
    this.#promises = new PromiseJudge(spec);
  }

  /**
   * A request arrives: which endpoint it is, who sent it, and what in it the spec does not
   * allow. `unheld`: its body was too large for the proxy to hold (src/spec/conventions/body.ts),
   * so it is not judged, and is over the declared size limit where the spec declares one.
   */
  arrive(request: Request, unheld = false, bytes?: number): Arrival {
    const seq = ++this.#seq;
    const path = pathOf(request.url);
    const route = this.router.withHeaderVersion(this.router.route(request.method, path), request.headers);
    const endpoint = route.endpoint;
    const version = this.router.effectiveVersion(route);
    const principal = principalOf(this.spec, request.headers, route.query, this.#tokens);
    let body = parseJson(request.body);
    const problems: RequestProblem[] = [...versionProblems(this.spec, route)];
    if (endpoint) {
      // The record out of its envelope, where the spec declares one (./parts/envelope.ts): the rest judges the record.
      const enveloped = requestRecord(this.spec, endpoint, body);
      body = enveloped.body;
      if (enveloped.problem) problems.push(enveloped.problem);
      problems.push(...authProblems(this.spec, endpoint, request.headers, route.query));
      // A body over the size limit is refused before it is read: its content is no matter, but
      // its declared type is (a type the service reads no body of is 415 before any size).
      const size = sizeProblem(this.spec, endpoint, request.body, unheld, bytes);
      const resource = size ? resourceFor(this.spec, endpoint.resource, version?.name) : undefined;
      const media = size && resource && !isBulk(endpoint.operation) ? mediaTypeProblem(endpoint, request.headers) : undefined;
      if (media) problems.push(media);
      else if (size) problems.push(size);
      else if (!unheld && !enveloped.problem) {
        const found = bodyProblems(this.spec, endpoint, resourceFor(this.spec, endpoint.resource, version?.name), request.headers, request.body, body);
        // Pointers into the body as sent, as serve lists them (src/spec/conventions/envelope.ts).
        const member = enveloped.member;
        problems.push(...(member === undefined ? found : found.map((p) => (p.at === undefined ? p : { ...p, at: envelopedPointer(member, p.at) }))));
      }
    } else if (route.otherMethods && !allowedMethods(route.otherMethods).includes(request.method)) {
      // HEAD beside GET and OPTIONS are answered on every path (allowedMethods): not the client's fault.
      problems.push({ part: 'endpoints', id: 'method-undeclared', situation: 'method-not-allowed', message: `${request.method} is not declared on ${route.path} (declared: ${route.otherMethods.join(', ')})`, pointer: this.spec.parts.endpoints.pointer, text: `endpoints: ${route.otherMethods.join(', ')} ${route.path}` });
    }
    const seen = { seq, route, ...(endpoint ? { endpoint } : {}), ...(version ? { version } : {}), ...(principal ? { principal } : {}), ...(body !== undefined ? { body } : {}), problems };
    this.#limits.started(seen);
    return { seq, seen, problems };
  }

  /**
   * The answer came back: every finding of the exchange, and of what it adds to what came
   * before. `unread`: its body was too large to keep (KEEP_BYTES, core.ts), so only its
   * status and fields are judged.
   */
  answer(arrival: Arrival, exchange: Exchange, unread = false): Finding[] {
    this.counts.exchanges++;
    const status = exchange.response.status;
    const found: Found[] = [];
    // A record answered inside its envelope is judged as the record (./parts/envelope.ts); the finding shows the exchange as it was.
    const answered = arrival.seen.endpoint && status >= 200 && status < 300 && !unread ? answerRecord(this.spec, arrival.seen.endpoint, exchange) : { exchange };
    if (answered.found) found.push(answered.found);
    const x: Seen = { ...arrival.seen, exchange: answered.exchange, ok: status >= 200 && status < 300 };
    const issued = issuedToken(this.spec, x.route.path, exchange);
    if (issued) this.#tokens.set(issued.token, issued.owner);
    if (arrival.problems.length) this.counts.outside++;
    if (x.endpoint || x.route.otherMethods) {
      // A request the spec refuses must be refused, not served.
      if (x.ok) for (const p of arrival.problems) found.push({ part: p.part, id: `accepted-${p.id}`, ...(x.endpoint ? { endpoint: x.endpoint.id } : {}), message: `answered ${status} to a request the spec refuses (${p.situation}): ${p.message}`, pointer: p.pointer, text: p.text });
      if (status >= 400 && !unread) found.push(...this.errors.findings(x));
      // A request with one thing the spec refuses is answered with that situation's error (another limit, 429 or 503, may come first).
      const only = arrival.problems.length === 1 ? arrival.problems[0] : undefined;
      if (only && status >= 400 && !FIRST.has(status)) {
        const want = this.errors.resolve(only.situation);
        const either = only.situation === 'validation-failed' || only.situation === 'malformed-body' || only.situation === 'unsupported-media-type';
        // A situation the spec states no code for is held to its status class only, as the tester holds it (src/conformance/expect.ts expectError).
        if (!want.stated) {
          if (Math.floor(status / 100) !== Math.floor(want.status / 100)) found.push({ part: 'errors', id: 'wrong-error', ...(x.endpoint ? { endpoint: x.endpoint.id } : {}), message: `answered ${status} to a request the service must refuse with a ${Math.floor(want.status / 100)}xx (${only.situation}; the spec states no code for it): ${only.message}`, pointer: only.pointer, text: only.text });
        } else if (status !== want.status && !(either && LATER.has(status))) found.push({ part: 'errors', id: 'wrong-error', ...(x.endpoint ? { endpoint: x.endpoint.id } : {}), message: `answered ${status} to a request the spec answers with ${want.status} (${want.code}): ${only.message}`, pointer: only.pointer, text: only.text });
      }
      if (x.ok && x.endpoint && !arrival.problems.length) {
        found.push(...successFindings(this.spec, x, x.endpoint, unread));
        const resource = unread ? undefined : resourceFor(this.spec, x.endpoint.resource, x.version?.name);
        if (resource) found.push(...locationFindings(this.spec, this.router, x, x.endpoint, resource));
        found.push(...deprecationFindings(x));
      }
      found.push(...this.#limits.findings(x));
      found.push(...this.#records.findings(x));
      found.push(...this.#promises.findings(x));
    }
    this.events.observe(x);
    return found.map((f) => {
      const { pointer, text, ...rest } = f;
      const location = locate(this.spec, pointer);
      return { seq: arrival.seq, ...rest, rule: { pointer, ...(location ? { location } : {}), text }, exchange };
    });
  }

  /**
   * The event stream, when the exchange is one: the spec's stream path answered 200 with
   * text/event-stream. Fed each chunk as it passes, it gives the findings of the events the
   * chunk completed (parts/stream.ts); undefined for any other exchange.
   */
  stream(arrival: Arrival, exchange: Exchange): ((chunk: Buffer) => Finding[]) | undefined {
    const path = this.spec.events.stream?.path;
    const type = exchange.response.headers['content-type'] ?? '';
    if (!path || exchange.request.method !== 'GET' || exchange.response.status !== 200 || !type.startsWith('text/event-stream')) return undefined;
    if (arrival.seen.route.path.replace(/\/$/, '') !== path) return undefined;
    const lastEventId = exchange.request.headers['last-event-id'] ?? arrival.seen.route.query.get('lastEventId') ?? undefined;
    const watch = new StreamWatch({
      spec: this.spec,
      events: this.events,
      ownerOf: (resource, id) => this.#records.ownerOf(resource, id),
      ...(arrival.seen.principal ? { principal: arrival.seen.principal } : {}),
      ...(arrival.seen.version ? { version: arrival.seen.version } : {}),
      ...(lastEventId ? { lastEventId } : {}),
    });
    return (chunk) => watch.feed(chunk, () => this.counts.streamEvents++).map((f) => {
      const { pointer, text, ...rest } = f;
      const location = locate(this.spec, pointer);
      return { seq: arrival.seq, ...rest, endpoint: 'events.stream', rule: { pointer, ...(location ? { location } : {}), text }, exchange };
    });
  }

  /** A webhook delivery the service sent through the proxy (the request), and the receiver's answer. */
  delivery(exchange: Exchange, raw: Buffer): Finding[] {
    const seq = ++this.#seq;
    this.counts.deliveries++;
    return this.events.delivery(exchange.request.headers, raw, exchange.at ?? Date.now()).map((f) => {
      const { pointer, text, ...rest } = f;
      const location = locate(this.spec, pointer);
      return { seq, ...rest, rule: { pointer, ...(location ? { location } : {}), text }, exchange };
    });
  }

  /** The whole exchange at once (a replay of recorded traffic); a recorded event stream's text is judged as the stream was. */
  judge(exchange: Exchange): Finding[] {
    const arrival = this.arrive(exchange.request);
    const stream = this.stream(arrival, exchange);
    return [...(stream ? stream(Buffer.from(exchange.response.text)) : []), ...this.answer(arrival, exchange)];
  }
}

/** An http(s) URL with a path and query of characters URL parsing leaves alone (RFC 3986 §2.2, §2.3, '%'; not "'", which it encodes in a query), and no empty query. */
const PLAIN = /^(https?:\/\/[^/?#\\]+)((?:\/[\w\-.~!$&()*+,;=:@%/]*(?:\?[\w\-.~!$&()*+,;=:@%/?]+)?)?)$/;
/** A dot segment (RFC 3986 §5.2.4), which URL parsing removes; '%2e' counts as a dot. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|\?|$)/i;

/** Whether URL parsing takes an origin; the last one asked is remembered (a proxy has one upstream). */
let lastOrigin = '';
let lastValid = false;
function validOrigin(origin: string): boolean {
  if (origin !== lastOrigin) {
    lastOrigin = origin;
    lastValid = URL.canParse(`${origin}/`);
  }
  return lastValid;
}

/** The path and query of a request URL, absolute or not. */
export function pathOf(url: string): string {
  if (url.startsWith('/')) return url;
  // The proxy's own requests: an http URL whose path and query WHATWG URL parsing would keep
  // as they are (no dot segment, nothing it percent-encodes) is cut after its authority,
  // not parsed again for every request.
  const m = PLAIN.exec(url);
  if (m && !DOT_SEGMENT.test(m[2]) && validOrigin(m[1])) return m[2] || '/';
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
