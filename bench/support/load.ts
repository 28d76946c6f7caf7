/**
 * Load generation for the benches: autocannon (programmatic), in samples of whole seconds
 * that a bench pools, so it can interleave the servers it compares (a warm-up sample is
 * thrown away, but for its statuses). Latencies are recorded here from autocannon's
 * `response` events at full resolution (its own histogram keeps whole milliseconds, too
 * coarse for a sub-millisecond p50). Every response's status is counted: samples whose
 * responses are not the expected ones measured something else, and `summarize` says so.
 */
import { createRequire } from 'node:module';

/** The request object autocannon hands to setupRequest, and takes back. */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

interface AutocannonRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly setupRequest?: (request: RawRequest, context: object) => RawRequest;
}

interface AutocannonOptions {
  readonly url: string;
  readonly connections: number;
  readonly duration: number;
  readonly pipelining: number;
  readonly timeout: number;
  readonly requests: readonly AutocannonRequest[];
}

interface Histogram {
  readonly average: number;
  readonly total: number;
}

interface AutocannonResult {
  readonly requests: Histogram;
  readonly latency: Histogram;
  readonly duration: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>;
}

interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}

type Autocannon = (options: AutocannonOptions, done: (error: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

// autocannon is CommonJS and ships no types; this is the part of its API the benches use.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadOptions {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** The path of each request, called once per request (random ids, random pages). */
  readonly path: () => string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** The status every response must have. */
  readonly expect: number;
  readonly connections: number;
}

/** One autocannon run. */
export interface Sample {
  readonly responses: number;
  readonly seconds: number;
  /** Response times in ms, when recorded. */
  readonly latencies: readonly number[];
  /** Responses by status, plus socket `errors` and `timeouts`. */
  readonly statuses: Readonly<Record<string, number>>;
}

export interface LoadResult {
  /** Responses per second over all the samples: their responses over their time. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly responses: number;
  /** Responses of the warm-ups and the measured samples: all the server answered. */
  readonly served: number;
  /** Responses by status, socket errors and timeouts, warm-ups included. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Why the runs do not measure what they should; empty when every response was `expect`. */
  readonly problems: readonly string[];
}

/**
 * Runs the load for whole seconds (autocannon stops on its one-second tick). Latencies are
 * recorded unless it is a warm-up.
 */
export function sample(options: LoadOptions, seconds: number, record = true): Promise<Sample> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
        requests: [
          {
            method: options.method,
            headers: options.headers ?? {},
            ...(options.body !== undefined ? { body: options.body } : {}),
            setupRequest: (request) => {
              request.path = options.path();
              return request;
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        const statuses: Record<string, number> = {};
        for (const [status, { count }] of Object.entries(result.statusCodeStats)) statuses[status] = count;
        if (result.errors) statuses.errors = result.errors;
        if (result.timeouts) statuses.timeouts = result.timeouts;
        resolve({ responses: result.requests.total, seconds: result.duration, latencies, statuses });
      },
    );
    if (record) instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The measured samples pooled; the warm-ups count only for the statuses. */
export function summarize(expect: number, measured: readonly Sample[], warmups: readonly Sample[] = []): LoadResult {
  const statuses: Record<string, number> = {};
  for (const s of [...warmups, ...measured]) for (const [status, n] of Object.entries(s.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const problems: string[] = [];
  const unexpected = Object.keys(statuses).filter((status) => status !== String(expect));
  if (unexpected.length) problems.push(`expected only ${expect}, got ${Object.entries(statuses).map(([s, n]) => `${s}: ${n}`).join(', ')}`);
  if (!statuses[String(expect)]) problems.push(`no ${expect} response at all`);
  const responses = measured.reduce((n, s) => n + s.responses, 0);
  const seconds = measured.reduce((n, s) => n + s.seconds, 0);
  const all = new Float64Array(measured.reduce((n, s) => n + s.latencies.length, 0));
  let at = 0;
  for (const s of measured) {
    all.set(s.latencies, at);
    at += s.latencies.length;
  }
  all.sort();
  const served = responses + warmups.reduce((n, s) => n + s.responses, 0);
  return { rps: seconds > 0 ? responses / seconds : 0, p50Ms: percentile(all, 50), p99Ms: percentile(all, 99), responses, served, statuses, problems };
}
