/**
 * The webhook receiver of the events bench (bench/events.bench.ts), in a process of its own:
 * a bare node:http server that answers every delivery 204 at once, the cheapest receiver
 * there is, so that what the bench measures is the service's delivery and not a receiver's
 * work. It runs apart from the service and from the load generator (never on their event
 * loops); on a machine of few cores it still shares the CPU with them, as a receiver on the
 * same host would, and the bench prints its CPU time per delivery so that share is seen.
 *
 *   node bench/servers/receiver.ts
 *
 * Listens on a free loopback port and prints `{"port":N}` on stdout. Besides deliveries
 * (`POST` to any path), it answers the bench:
 *
 *   GET /stats          {"deliveries", "distinct", "at"}: requests received, distinct
 *                       webhook-ids among them (a retry repeats its id), and its clock
 *   GET /wait?n=N&timeoutMs=T
 *                       once `distinct` reaches N (or T ms passed): {"distinct", "reachedAt"},
 *                       the epoch ms at which the N-th distinct delivery arrived (null if not)
 *   GET /last           the last delivery: {"headers", "body"}, to check its signature
 *
 * Bodies are read to their end but not parsed; the webhook-id header is all it keeps.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

let deliveries = 0;
const ids = new Set<string>();
/** When the n-th distinct id arrived, for n = 1, 2, ...: index n - 1. */
const reached: number[] = [];
let last: { headers: IncomingHttpHeaders; body: string } | undefined;
const waiters = new Set<{ n: number; answer: () => void }>();

const json = (res: ServerResponse, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries++;
      const id = String(req.headers['webhook-id'] ?? '');
      if (!ids.has(id)) {
        ids.add(id);
        reached.push(Date.now());
        for (const w of waiters) if (ids.size >= w.n) w.answer();
      }
      last = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      res.writeHead(204);
      res.end();
    });
    return;
  }
  const url = new URL(req.url ?? '/', 'http://receiver');
  if (url.pathname === '/stats') return json(res, { deliveries, distinct: ids.size, at: Date.now() });
  if (url.pathname === '/last') return json(res, last ?? null);
  if (url.pathname === '/wait') {
    const n = Number(url.searchParams.get('n'));
    const timeoutMs = Number(url.searchParams.get('timeoutMs') ?? 60_000);
    const waiter = {
      n,
      answer: () => {
        clearTimeout(timer);
        waiters.delete(waiter);
        json(res, { distinct: ids.size, reachedAt: n <= 0 ? 0 : (reached[n - 1] ?? null) });
      },
    };
    const timer = setTimeout(waiter.answer, timeoutMs);
    if (ids.size >= n) return waiter.answer();
    waiters.add(waiter);
    return;
  }
  res.writeHead(404);
  res.end();
});
// Deliveries come on a fresh connection each; the bench's own requests may keep theirs.
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
