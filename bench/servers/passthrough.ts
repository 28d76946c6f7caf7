/**
 * The proxy bench's floor: a bare pass-through node:http proxy that judges nothing, in a
 * process of its own. It relays each request to the upstream over a keep-alive agent and
 * pipes the answer back, fields as they came less the hop-by-hop ones (RFC 9110 §7.6.1).
 * What it costs against direct is what any node:http proxy costs on this machine (an extra
 * process on the same cores, two more loopback hops); svcspec proxy's ratio is read beside it.
 *
 *   node bench/servers/passthrough.ts <upstream URL>
 *
 * Listens on a free loopback port and prints `{"port":N}` on stdout.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const [upstreamArg] = process.argv.slice(2);
if (!upstreamArg) {
  console.error('usage: passthrough.ts <upstream URL>');
  process.exit(2);
}
const upstream = new URL(upstreamArg);
// Nagle off on both sides, as svcspec proxy does (noDelay reaches the sockets the agent opens).
const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256, noDelay: true } as ConstructorParameters<typeof Agent>[0]);
const server = createServer({ keepAlive: true, noDelay: true }, (req, res) => {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  out.host = upstream.host;
  const up = request({ agent, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: out });
  up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
  up.on('response', (answer) => {
    const fields: string[] = [];
    const raw = answer.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i].toLowerCase())) fields.push(raw[i], raw[i + 1]);
    res.writeHead(answer.statusCode ?? 502, fields);
    answer.pipe(res);
  });
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
  process.exit(0);
});
