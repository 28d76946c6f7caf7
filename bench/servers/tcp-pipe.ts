/**
 * The proxy bench's lowest floor: a TCP pipe that relays bytes both ways and reads none of
 * them (no HTTP at all), in a process of its own. No proxy that reads its traffic can be
 * cheaper; what it costs against direct is the extra process and the two loopback hops.
 *
 *   node bench/servers/tcp-pipe.ts <upstream URL>
 *
 * Listens on a free loopback port and prints `{"port":N}` on stdout.
 */
import { connect, createServer, type AddressInfo } from 'node:net';

const [upstreamArg] = process.argv.slice(2);
if (!upstreamArg) {
  console.error('usage: tcp-pipe.ts <upstream URL>');
  process.exit(2);
}
const upstream = new URL(upstreamArg);
const server = createServer({ noDelay: true }, (client) => {
  const up = connect({ host: upstream.hostname, port: Number(upstream.port), noDelay: true });
  client.pipe(up).pipe(client);
  client.on('error', () => up.destroy());
  up.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
process.once('SIGTERM', () => {
  server.close();
  process.exit(0);
});
