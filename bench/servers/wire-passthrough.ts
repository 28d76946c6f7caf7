/**
 * The proxy bench's floor for the wire core: src/proxy/wire.ts (llhttp on plain sockets,
 * one upstream connection per client connection) with a handler that judges nothing: every
 * request forwarded with the upstream's Host, every answer streamed through. Against the
 * bare node:http floor it shows what framing HTTP without node:http's objects saves.
 *
 *   node bench/servers/wire-passthrough.ts <upstream URL>
 *
 * Listens on a free loopback port and prints `{"port":N}` on stdout.
 */
import type { Handler } from '../../src/proxy/core.ts';
import { listenWire } from '../../src/proxy/wire.ts';

const [upstreamArg] = process.argv.slice(2);
if (!upstreamArg) {
  console.error('usage: wire-passthrough.ts <upstream URL>');
  process.exit(2);
}
const upstream = new URL(upstreamArg);
const handler: Handler = {
  bodyCap: 1_048_576,
  request: (request) => {
    const fields: string[] = [];
    for (let i = 0; i < request.fields.length; i += 2) if (request.fields[i].toLowerCase() !== 'host') fields.push(request.fields[i], request.fields[i + 1]);
    fields.push('Host', upstream.host);
    return {
      forward: {
        fields,
        body: request.body,
        hold: () => false,
        chunk: () => false,
        done: () => undefined,
        failed: () => ({ status: 502, fields: [], body: '' }),
      },
    };
  },
};
const core = await listenWire({ handler, upstream, port: 0, host: '127.0.0.1' });
console.log(JSON.stringify({ port: Number(new URL(core.url).port) }));
process.once('SIGTERM', async () => {
  await core.close();
  process.exit(0);
});
