/**
 * The proxy bench (issue #19): what `svcspec proxy` costs in front of `svcspec serve`, on
 * loopback, with autocannon. The reference service on bench/fixtures/items.yaml (2,000
 * records seeded through the store, durability normal) runs in a child process, the proxy
 * in another (bench/servers/proxy.ts, report mode, judging every exchange), the load here.
 *
 *   latency     GET one item by id, 1 connection: p50 direct and through the proxy; the
 *               proxy's cost is the difference (target: at most 1 ms)
 *   throughput  GET one item by id, 50 connections, and GET a page of 20, 20 connections:
 *               requests/s through the proxy over direct (target: at least 0.7x)
 *
 * The floor: a bare pass-through node:http proxy that judges nothing
 * (bench/servers/passthrough.ts) is measured in the same turns, and its ratio printed beside
 * svcspec proxy's. On a machine of few cores the load generator, the proxy and the service
 * share them, so an extra process costs throughput whatever it does; what svcspec proxy
 * costs beyond the floor is its own (relaying and judging).
 *
 * Direct, bare and proxied runs take turns a second at a time, after a 1 s warm-up each, so
 * whatever else the machine runs weighs on both alike. A miss is reported, not failed; a
 * run whose answers are not all 200, or a proxy that finds anything in this traffic (the
 * service keeps the spec), fails the bench: it did not measure what it says.
 *
 * SVCSPEC_BENCH_SECONDS  measured seconds per side and operation (default 5)
 * SVCSPEC_BENCH_PROFILE  a directory: both proxies run with --cpu-prof, and where their time
 *                        goes per request is printed after the figures
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode, startServer, type ServerProcess } from './support/children.ts';
import { sample, summarize, type LoadOptions, type Sample } from './support/load.ts';
import { seedRecords } from './support/serve-checks.ts';
import { summarizeProfile } from './support/cpuprofile.ts';
import { textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SPEC = here('./fixtures/items.yaml');
const SVCSPEC_SERVER = here('./servers/svcspec.ts');
const SVCSPEC_SEED = here('./servers/svcspec-seed.ts');
const PROXY_SERVER = here('./servers/proxy.ts');
const BARE_SERVER = here('./servers/passthrough.ts');
const RECORDS = 2000;
const TARGET_ADDED_P50_MS = 1;
const TARGET_RATIO = 0.7;

const portLine = (line: string): number | undefined => {
  const m = /^\{"port":(\d+)\}$/.exec(line.trim());
  return m ? Number(m[1]) : undefined;
};

export async function proxyBench(): Promise<BenchOutcome> {
  const seconds = Number(process.env.SVCSPEC_BENCH_SECONDS ?? 5);
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-bench-proxy-'));
  const profileDir = process.env.SVCSPEC_BENCH_PROFILE ? resolve(process.env.SVCSPEC_BENCH_PROFILE) : undefined;
  const profiled = (name: string) => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : []);
  const served = [0, 0];
  let service: ServerProcess | undefined;
  let proxy: ServerProcess | undefined;
  let bare: ServerProcess | undefined;
  try {
    const records = seedRecords().slice(0, RECORDS);
    const seedFile = join(dir, 'seed.json');
    await writeFile(seedFile, JSON.stringify(records));
    const db = join(dir, 'items.db');
    await runNode('svcspec seeding', [SVCSPEC_SEED, SPEC, db, seedFile]);
    if (profileDir) await mkdir(profileDir, { recursive: true });
    service = await startServer({ name: 'svcspec serve', args: [SVCSPEC_SERVER, SPEC, db, 'normal'], readyFrom: portLine });
    proxy = await startServer({ name: 'svcspec proxy', args: [...profiled('proxy'), PROXY_SERVER, SPEC, service.url], readyFrom: portLine });
    bare = await startServer({ name: 'bare pass-through proxy', args: [...profiled('bare'), BARE_SERVER, service.url], readyFrom: portLine });
    const ids = records.map((r) => r.id);
    const read = (url: string, connections: number): LoadOptions => ({ url, method: 'GET', path: () => `/items/${ids[Math.floor(Math.random() * ids.length)]}`, expect: 200, connections });
    const list = (url: string, connections: number): LoadOptions => ({ url, method: 'GET', path: () => '/items?limit=20', expect: 200, connections });
    console.log(`${RECORDS.toLocaleString('en')} records; per side and operation a 1 s warm-up, then ${seconds} s in turns of 1 s; pipelining 1`);

    const rows: string[][] = [];
    const problems: string[] = [];
    const misses: string[] = [];
    const measure = async (name: string, load: (url: string) => LoadOptions) => {
      const sides = [service as ServerProcess, bare as ServerProcess, proxy as ServerProcess];
      const warm: Sample[][] = sides.map(() => []);
      const runs: Sample[][] = sides.map(() => []);
      for (const [i, side] of sides.entries()) warm[i].push(await sample(load(side.url), 1, false));
      for (let round = 0; round < seconds; round++) for (const [i, side] of sides.entries()) runs[i].push(await sample(load(side.url), 1));
      const [direct, floor, proxied] = runs.map((r, i) => summarize(200, r, warm[i]));
      served[0] += floor.served;
      served[1] += proxied.served;
      for (const r of [direct, floor, proxied]) problems.push(...r.problems.map((p) => `${name}: ${p}`));
      const ratio = proxied.rps / direct.rps;
      const added = proxied.p50Ms - direct.p50Ms;
      rows.push([name, fmt(direct.rps), fmt(floor.rps), fmt(proxied.rps), `${(floor.rps / direct.rps).toFixed(2)}x`, `${ratio.toFixed(2)}x`, `${(proxied.rps / floor.rps).toFixed(2)}x`, direct.p50Ms.toFixed(3), (floor.p50Ms - direct.p50Ms).toFixed(3), added.toFixed(3)]);
      return { ratio, added };
    };
    const latency = await measure('read, 1 connection', (url) => read(url, 1));
    const readLoad = await measure('read, 50 connections', (url) => read(url, 50));
    const listLoad = await measure('list, 20 connections', (url) => list(url, 20));
    console.log(textTable(['operation', 'direct req/s', 'bare req/s', 'proxied req/s', 'bare/direct', 'proxied/direct', 'proxied/bare', 'direct p50 ms', 'bare added p50 ms', 'proxied added p50 ms'], rows));
    console.log('bare: a pass-through node:http proxy that judges nothing, the floor any proxy in a process of its own has on this machine');
    if (latency.added > TARGET_ADDED_P50_MS) misses.push(`p50 added ${latency.added.toFixed(3)} ms on loopback, target at most ${TARGET_ADDED_P50_MS} ms`);
    for (const [name, r] of [['read', readLoad], ['list', listLoad]] as const) if (r.ratio < TARGET_RATIO) misses.push(`${name} throughput ${r.ratio.toFixed(2)}x direct, target at least ${TARGET_RATIO}x`);
    console.log(misses.length ? `TARGET MISSED: ${misses.join('; ')}` : `targets met: p50 added ≤ ${TARGET_ADDED_P50_MS} ms (${latency.added.toFixed(3)} ms), throughput ≥ ${TARGET_RATIO}x (read ${readLoad.ratio.toFixed(2)}x, list ${listLoad.ratio.toFixed(2)}x)`);
    await proxy.stop();
    const found = /findings: (\d+)(.*)/.exec(proxy.stderr());
    if (!found || found[1] !== '0') problems.push(`the proxy found something in a service that keeps the spec: ${found ? found[0] : proxy.stderr()}`);
    await bare.stop();
    if (profileDir) {
      for (const [i, name] of ['bare', 'proxy'].entries()) {
        console.log(`\n${name === 'bare' ? 'bare pass-through proxy' : 'svcspec proxy'}: CPU per request (${served[i].toLocaleString('en')} requests)`);
        console.log(summarizeProfile(join(profileDir, `${name}.cpuprofile`), { requests: served[i], top: 20 }).text);
      }
    }
    if (problems.length) console.error(`proxy bench did not measure what it should: ${problems.join('; ')}`);
    return { name: 'proxy', ok: problems.length === 0 };
  } finally {
    await bare?.stop();
    await proxy?.stop();
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');
