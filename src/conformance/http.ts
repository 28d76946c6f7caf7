/**
 * The tester's HTTP client: every request it makes is kept as an exchange (the request and
 * the response, body included), so a failed check can show exactly what was sent and what
 * came back. Plain `fetch`, one time-out per request; nothing of the reference service. A
 * request sent from another client address than the machine's default (sources.ts) goes
 * through node:http, whose `localAddress` fetch does not have.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Exchange {
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: string;
    /** The client address it was sent from, where not the machine's default (sources.ts). */
    readonly from?: string;
  };
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly text: string;
    /** The body parsed as JSON; undefined when it is empty or not JSON. */
    readonly json: unknown;
  };
  /** Milliseconds. */
  readonly ms: number;
  /** When the request was sent (epoch ms, this machine's clock). */
  readonly at?: number;
  /** The member the request's body was sent inside (a record envelope, ./envelope.ts); the pointers of a refusal are into it. */
  readonly envelope?: string;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** A body sent as is (malformed JSON, a wrong media type). */
  readonly raw?: { readonly text: string; readonly contentType: string };
  readonly headers?: Readonly<Record<string, string>>;
}

export class HttpClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Every exchange so far, in order. */
  readonly log: Exchange[] = [];

  /** How long to wait for a rate limit to reset before a request is retried once (ms); 0: never. */
  readonly maxWaitMs: number;
  /** Told when the client waits for a rate limit. */
  onWait?: (ms: number, url: string) => void;
  /** Told of every exchange as it completes (a request log, a replay). */
  onExchange?: (exchange: Exchange) => void;
  /**
   * Writes the run stopped waiting for (its time-out), still listened to: a late answer may
   * name a record the service made after all, which the clean-up removes (DataFactory.cleanup).
   * `about` is what the caller said of the request (ContextCall: its endpoint and principal).
   */
  readonly late: LateWrite[] = [];
  /** The rate-limit waits so far: how many, and how long in all (ms): each Retry-After plus a 50 ms margin, as asked of `sleep`. */
  readonly waited = { count: 0, ms: 0 };
  /** How to wait; tests of the tester pass one that moves the implementation's clock instead. */
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  constructor(baseUrl: string, timeoutMs = 10_000, maxWaitMs = 60_000) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = timeoutMs;
    this.maxWaitMs = maxWaitMs;
  }

  /**
   * Sends a request. A 429 with a Retry-After within `maxWaitMs` is waited out and the request
   * sent once more: the checks of the other parts are not about the implementation's quota,
   * and the rate-limit check itself sends with `retry: false`.
   */
  async send(method: string, path: string, options: RequestOptions & { retry?: boolean; about?: unknown; from?: string } = {}, budgetMs = Infinity): Promise<Exchange> {
    const first = await this.#send(method, path, options);
    if (first.response.status !== 429 || options.retry === false) return first;
    const after = Number(first.response.headers['retry-after']);
    if (!Number.isFinite(after) || after * 1000 > this.maxWaitMs || this.waited.ms + after * 1000 > budgetMs) return first;
    await this.wait(after * 1000 + 50, first.request.url);
    return this.#send(method, path, options);
  }

  /** Waits for a rate limit's window (a 429's Retry-After, or the tester's own ledger, quota.ts), counted as waited. */
  async wait(ms: number, url: string): Promise<void> {
    this.onWait?.(ms, url);
    this.waited.count++;
    this.waited.ms += ms;
    await this.sleep(ms);
  }

  async #send(method: string, path: string, options: RequestOptions & { about?: unknown; from?: string }): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json;q=0.9, */*;q=0.1' };
    let body: string | undefined;
    if (options.raw) {
      body = options.raw.text;
      headers['content-type'] = options.raw.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
    const url = `${this.baseUrl}${path}`;
    const started = performance.now();
    const at = Date.now();
    // The time-out is a race, not an abort, for a write: the service may still make what was
    // asked, and its late answer says what (kept in `late`); a read is aborted.
    const controller = new AbortController();
    const answer = (async (): Promise<Exchange> => {
      const response = options.from === undefined ? await viaFetch(url, method, headers, body, controller.signal) : await viaHttp(url, method, headers, body, controller.signal, options.from);
      const text = response.text;
      return {
        request: { method, url, headers, ...(body !== undefined ? { body } : {}), ...(options.from !== undefined ? { from: options.from } : {}) },
        response: { status: response.status, headers: response.headers, text, json: parseJson(text) },
        ms: performance.now() - started,
        at,
      };
    })();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.timeoutMs)));
    let exchange: Exchange | undefined;
    try {
      exchange = await Promise.race([answer, timedOut]);
    } catch (error) {
      throw new TransportError(`${method} ${url}: the request failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    if (!exchange) {
      const settled = answer.catch(() => undefined);
      if (SAFE.has(method)) controller.abort();
      else this.late.push({ method, path, about: options.about, answer: settled, abort: () => controller.abort() });
      throw new TransportError(`${method} ${url}: no answer within ${this.timeoutMs} ms`);
    }
    this.log.push(exchange);
    this.onExchange?.(exchange);
    return exchange;
  }
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
}

async function viaFetch(url: string, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<Answer> {
  const response = await fetch(url, { method, headers, body, redirect: 'manual', signal });
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

/** One request on a connection of its own from `localAddress`; headers lower case, repeated ones joined with ', ' (Set-Cookie with a line break, where fetch keeps only its last). */
function viaHttp(url: string, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal, localAddress: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }, localAddress, agent: false, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(k === 'set-cookie' ? '\n' : ', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', (error) => reject(Object.assign(new Error(error.message), { cause: error })));
    req.end(body);
  });
}

/** Methods that change nothing (RFC 9110 §9.2.1): a read given up on is aborted. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A write the run stopped waiting for; `answer` settles with its late answer, or undefined if none came (or `abort` was called). */
export interface LateWrite {
  readonly method: string;
  /** Relative to the base URL, as sent. */
  readonly path: string;
  readonly about: unknown;
  readonly answer: Promise<Exchange | undefined>;
  readonly abort: () => void;
}

/** The implementation could not be reached or did not answer: not a failed check, a failed run. */
export class TransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransportError';
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The media type of a response, without parameters, lower case. */
export function mediaTypeOf(exchange: Exchange): string {
  return (exchange.response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}
