/**
 * `svcspec proxy` for the proxy bench, in a process of its own: what the command runs
 * (startProxy on the loaded spec, report mode), without the CLI around it.
 *
 *   node bench/servers/proxy.ts <spec> <upstream URL>
 *
 * Listens on a free loopback port and prints `{"port":N}` on stdout; prints its findings'
 * count on stderr when SIGTERM stops it (a bench whose traffic breaks the spec measured
 * something else).
 */
import { loadSpec } from '../../src/load/index.ts';
import { startProxy } from '../../src/proxy/index.ts';

const [specFile, upstream] = process.argv.slice(2);
if (!specFile || !upstream) {
  console.error('usage: proxy.ts <spec> <upstream URL>');
  process.exit(2);
}
const loaded = await loadSpec(specFile);
if (!loaded.value) {
  console.error(`svcspec bench proxy: ${specFile} does not load`);
  process.exit(1);
}
const proxy = await startProxy({ spec: loaded.value, upstream });
console.log(JSON.stringify({ port: Number(new URL(proxy.url).port) }));
process.once('SIGTERM', async () => {
  console.error(`findings: ${proxy.findings.length}${proxy.findings.length ? ` (first: ${proxy.findings[0].message})` : ''}`);
  await proxy.close();
  process.exit(0);
});
