/**
 * One webhook POST of the delivery worker (./delivery.ts): to the subscription's URL, through
 * the SSRF guard (./ssrf.ts), on the worker's kept-alive agents, within the time-out; its
 * answer is data, never an exception. The receiver's body is read to its end, up to a bound,
 * and dropped.
 */
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { guardedLookup, refusedLiteral } from './ssrf.ts';

// getBuiltinModule rather than an ES import: see ./delivery.ts.
const { request: httpRequest } = process.getBuiltinModule('node:http');
const { request: httpsRequest } = process.getBuiltinModule('node:https');

/** A Retry-After asking for more than a day is read as a day. */
const RETRY_AFTER_MAX_MS = 86_400_000;
/** Bytes of a receiver's answer read (and dropped); the rest is cut off. */
const ANSWER_MAX_BYTES = 64 * 1024;

export interface Answer {
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly error?: string;
}

/**
 * An attempt in flight, as stopping sees it: `cancel` ends its POST at once. Not an
 * AbortSignal: a request given a signal (AbortSignal.timeout, AbortSignal.any) made V8
 * build an Error with its stack trace about twice an attempt, ~57K of the ~960K instructions
 * a delivery cost (callgrind); a timer and req.destroy() do the same for nothing.
 */
export class Attempt {
  cancelled = false;
  #cancel: (() => void) | undefined;
  cancel(): void {
    this.cancelled = true;
    this.#cancel?.();
  }
  /** What cancel does while the POST is open; unset when it is over. */
  onCancel(cancel: (() => void) | undefined): void {
    this.#cancel = cancel;
  }
}

/** One POST; never throws: a failure to connect, a time-out or a refusal is an answer without a status. */
export function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, attempt: Attempt, allowPrivate: boolean, agents: { readonly http: HttpAgent; readonly https: HttpsAgent }): Promise<Answer> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve({ error: `'${url}' is not a URL` });
    }
    // Node connects to an IP literal without a lookup, so guardedLookup never sees it.
    const literal = allowPrivate ? undefined : refusedLiteral(target);
    if (literal) return resolve({ error: `refused: ${literal}` });
    if (attempt.cancelled) return resolve({ error: 'stopped' });
    const https = target.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    headers['content-length'] = String(Buffer.byteLength(body));
    const req = send(target, {
      method: 'POST',
      headers,
      agent: https ? agents.https : agents.http,
      ...(allowPrivate ? {} : { lookup: guardedLookup }),
    });
    let timedOut = false;
    // The time-out is of the whole exchange (connect, send, answer), as AbortSignal.timeout was.
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, timeoutMs);
    // As AbortSignal.timeout's: the request's socket keeps the process alive, not its time-out.
    timer.unref();
    attempt.onCancel(() => req.destroy());
    const done = (answer: Answer) => {
      clearTimeout(timer);
      attempt.onCancel(undefined);
      resolve(answer);
    };
    let responded = false;
    req.on('response', (res: IncomingMessage) => {
      responded = true;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > ANSWER_MAX_BYTES) res.destroy();
      });
      const settle = () => done({ status: res.statusCode ?? 0, ...retryAfter(res.headers['retry-after']) });
      res.on('end', settle);
      res.on('close', settle);
      res.on('error', settle);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      done({ error: timedOut ? `no answer within ${timeoutMs} ms` : attempt.cancelled ? 'stopped' : err.code === 'ESSRF' ? err.message : `${err.code ?? 'error'}: ${err.message}` });
    });
    // Closed before any answer and without an error (a destroy): still settled. Once answered, the answer's events settle it.
    req.on('close', () => {
      if (!responded) done({ error: timedOut ? `no answer within ${timeoutMs} ms` : 'stopped' });
    });
    req.end(body);
  });
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP date. */
function retryAfter(value: string | undefined): { retryAfterMs?: number } {
  if (value === undefined) return {};
  const seconds = /^\s*(\d+)\s*$/.exec(value);
  const ms = seconds ? Number(seconds[1]) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? { retryAfterMs: Math.min(ms, RETRY_AFTER_MAX_MS) } : {};
}
