/**
 * A webhook receiver on loopback for the tests of part 6: records every delivery, and
 * answers as told, in order (a status, a Retry-After, a delay longer than the sender's
 * time-out), then 204 once the script runs out. Counts the connections open at once.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface Behaviour {
  readonly status?: number;
  readonly retryAfter?: string;
  /** Hold the answer this long (ms). */
  readonly delayMs?: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** The most connections that were open at once. */
  readonly peak: () => number;
  /** Answers for the next deliveries, in order. */
  script(...behaviours: Behaviour[]): void;
  /** Answer every delivery this way from now on (until `script` or `always(undefined)`). */
  always(behaviour: Behaviour | undefined): void;
  /** Resolves once `n` deliveries (in all) have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let queue: Behaviour[] = [];
  let standing: Behaviour | undefined;
  let open = 0;
  let peak = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    open++;
    peak = Math.max(peak, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      for (const w of [...waiters]) if (received.length >= w.n) w.resolve();
      const b = queue.shift() ?? standing ?? {};
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(b.status ?? 204, b.retryAfter ? { 'retry-after': b.retryAfter } : {});
        res.end();
      };
      if (b.delayMs) setTimeout(answer, b.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    peak: () => peak,
    script: (...b) => {
      queue = [...b];
    },
    always: (b) => {
      standing = b;
    },
    waitFor(n, timeoutMs = 10_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${received.length} of ${n} deliveries within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ n, resolve: () => {
          clearTimeout(timer);
          resolve(received);
        } });
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * Standard Webhooks verification written from the specification, not with the library the
 * service signs with: HMAC-SHA256 of `id.timestamp.body` keyed by the base64 part of the
 * secret; any of the space-separated `v1,` signatures may match.
 */
export function signatureValid(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest();
  return String(r.headers['webhook-signature'] ?? '').split(' ').some((s) => {
    const [version, value] = s.split(',');
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
