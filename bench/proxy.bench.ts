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
 * The floors: pass-throughs that judge nothing, each in a process of its own, measured in
 * the same turns and printed as ratios beside svcspec proxy's:
 *   bare  a node:http server relaying through a keep-alive Agent (bench/servers/passthrough.ts)
 *   wire  the proxy's wire core, llhttp on plain sockets (bench/servers/wire-passthrough.ts)
 *   pipe  a TCP pipe that reads no HTTP at all (bench/servers/tcp-pipe.ts): no proxy that
 *         reads its traffic can be cheaper
 * On a machine of few cores the load generator, the proxy and the service share them, so an
 * extra process costs throughput whatever it does; what svcspec proxy costs beyond the wire
 * floor is its judging. svcspec proxy also runs on its node:http core (http-core), the path it
 * had before the wire core, judging alike. Each process's CPU time per request (from /proc,
 * user + system) is printed too: it moves far less with the machine's other load than
 * requests/s do.
 *
 * Every side takes turns a second at a time, after a 1 s warm-up each, so whatever else the
 * machine runs weighs on all alike. A miss is reported, not failed; a
 * run whose answers are not all 200, or a proxy that finds anything in this traffic (the
 * service keeps the spec), fails the bench: it did not measure what it says.
 *
 * SVCSPEC_BENCH_SECONDS  measured seconds per side and operation (default 5)
 * SVCSPEC_BENCH_PROFILE  a directory: every proxy runs with --cpu-prof, and where its time
 *                        goes per request is printed after the figures
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, runNode, startServer, type ServerProcess } from './support/children.ts';
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
/** The floors: pass-throughs that judge nothing, each in a process of its own, measured in the same turns. */
const FLOORS = [
  { short: 'bare', name: 'bare node:http pass-through', script: here('./servers/passthrough.ts'), about: 'a node:http server relaying through a keep-alive Agent, judging nothing' },
  { short: 'wire', name: 'bare wire pass-through', script: here('./servers/wire-passthrough.ts'), about: "svcspec proxy's wire core (llhttp on plain sockets, src/proxy/wire.ts), judging nothing" },
  { short: 'pipe', name: 'TCP pipe', script: here('./servers/tcp-pipe.ts'), about: 'bytes relayed both ways, read by no one: no proxy that reads HTTP can be cheaper' },
] as const;
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
  const served = [0, ...FLOORS.map(() => 0), 0, 0];
  let service: ServerProcess | undefined;
  let proxy: ServerProcess | undefined;
  let proxyHttp: ServerProcess | undefined;
  const floors: { short: string; about: string; process: ServerProcess }[] = [];
  try {
    const records = seedRecords().slice(0, RECORDS);
    const seedFile = join(dir, 'seed.json');
    await writeFile(seedFile, JSON.stringify(records));
    const db = join(dir, 'items.db');
    await runNode('svcspec seeding', [SVCSPEC_SEED, SPEC, db, seedFile]);
    if (profileDir) await mkdir(profileDir, { recursive: true });
    service = await startServer({ name: 'svcspec serve', args: [SVCSPEC_SERVER, SPEC, db, 'normal'], readyFrom: portLine });
    proxy = await startServer({ name: 'svcspec proxy', args: [...profiled('proxy'), PROXY_SERVER, SPEC, service.url], readyFrom: portLine });
    // The same proxy on its node:http core (what it ran on before the wire core), for the difference in the same turns.
    proxyHttp = await startServer({ name: 'svcspec proxy, http core', args: [...profiled('proxy-http'), PROXY_SERVER, SPEC, service.url], env: { ...process.env, SVCSPEC_PROXY_CORE: 'http' }, readyFrom: portLine });
    for (const f of FLOORS) floors.push({ ...f, process: await startServer({ name: f.name, args: [...profiled(f.short), f.script, service.url], readyFrom: portLine }) });
    const ids = records.map((r) => r.id);
    const read = (url: string, connections: number): LoadOptions => ({ url, method: 'GET', path: () => `/items/${ids[Math.floor(Math.random() * ids.length)]}`, expect: 200, connections });
    const list = (url: string, connections: number): LoadOptions => ({ url, method: 'GET', path: () => '/items?limit=20', expect: 200, connections });
    console.log(`${RECORDS.toLocaleString('en')} records; per side and operation a 1 s warm-up, then ${seconds} s in turns of 1 s; pipelining 1`);

    const rows: string[][] = [];
    const cpuRows: string[][] = [];
    const problems: string[] = [];
    const misses: string[] = [];
    const serviceProcess = service;
    const sides = [service, ...floors.map((f) => f.process), proxyHttp, proxy];
    const measure = async (name: string, load: (url: string) => LoadOptions) => {
      const warm: Sample[][] = sides.map(() => []);
      const runs: Sample[][] = sides.map(() => []);
      // CPU time of each process during the measured samples of every side (the service's on its own side and on each proxy's).
      const cpu = sides.map(() => 0);
      const cpuService = sides.map(() => 0);
      for (const [i, side] of sides.entries()) warm[i].push(await sample(load(side.url), 1, false));
      for (let round = 0; round < seconds; round++) {
        for (const [i, side] of sides.entries()) {
          const before = [cpuMs(side.child.pid) ?? 0, cpuMs(serviceProcess.child.pid) ?? 0];
          runs[i].push(await sample(load(side.url), 1));
          cpu[i] += (cpuMs(side.child.pid) ?? 0) - before[0];
          cpuService[i] += (cpuMs(serviceProcess.child.pid) ?? 0) - before[1];
        }
      }
      const results = runs.map((r, i) => summarize(200, r, warm[i]));
      for (const [i, r] of results.entries()) {
        served[i] += r.served;
        problems.push(...r.problems.map((p) => `${sides[i].name}, ${name}: ${p}`));
      }
      const direct = results[0];
      const proxied = results[results.length - 1];
      const ratio = proxied.rps / direct.rps;
      const added = proxied.p50Ms - direct.p50Ms;
      rows.push([name, fmt(direct.rps), ...results.slice(1).map((r) => `${(r.rps / direct.rps).toFixed(2)}x`), direct.p50Ms.toFixed(3), ...results.slice(1).map((r) => (r.p50Ms - direct.p50Ms).toFixed(3))]);
      // µs of CPU per request: the service's own, then each proxy's (its process only).
      const per = (ms: number, i: number) => (results[i].responses ? ((ms * 1000) / results[i].responses).toFixed(0) : '-');
      cpuRows.push([name, per(cpuService[0], 0), ...sides.slice(1).map((_, j) => per(cpu[j + 1], j + 1))]);
      return { ratio, added };
    };
    const latency = await measure('read, 1 connection', (url) => read(url, 1));
    const readLoad = await measure('read, 50 connections', (url) => read(url, 50));
    const listLoad = await measure('list, 20 connections', (url) => list(url, 20));
    const short = ['bare', ...floors.slice(1).map((f) => f.short), 'http-core', 'proxied'];
    console.log(textTable(['operation', 'direct req/s', ...short.map((n) => `${n}/direct`), 'direct p50 ms', ...short.map((n) => `${n} +p50 ms`)], rows));
    console.log('\nCPU per request in each process, µs (from /proc: user + system, during its measured samples)');
    console.log(textTable(['operation', 'service (direct)', ...short], cpuRows));
    console.log([...floors.map((f) => `${f.short}: ${f.about}`), 'http-core: svcspec proxy on its node:http core (SVCSPEC_PROXY_CORE=http), judging as proxied does', 'proxied: svcspec proxy as it runs (the wire core)'].join('\n'));
    if (latency.added > TARGET_ADDED_P50_MS) misses.push(`p50 added ${latency.added.toFixed(3)} ms on loopback, target at most ${TARGET_ADDED_P50_MS} ms`);
    for (const [name, r] of [['read', readLoad], ['list', listLoad]] as const) if (r.ratio < TARGET_RATIO) misses.push(`${name} throughput ${r.ratio.toFixed(2)}x direct, target at least ${TARGET_RATIO}x`);
    console.log(misses.length ? `TARGET MISSED: ${misses.join('; ')}` : `targets met: p50 added ≤ ${TARGET_ADDED_P50_MS} ms (${latency.added.toFixed(3)} ms), throughput ≥ ${TARGET_RATIO}x (read ${readLoad.ratio.toFixed(2)}x, list ${listLoad.ratio.toFixed(2)}x)`);
    for (const p of [proxy, proxyHttp]) {
      await p.stop();
      const found = /findings: (\d+)(.*)/.exec(p.stderr());
      if (!found || found[1] !== '0') problems.push(`${p.name} found something in a service that keeps the spec: ${found ? found[0] : p.stderr()}`);
    }
    for (const f of floors) await f.process.stop();
    if (profileDir) {
      for (const [i, name] of [...FLOORS.map((f) => f.short), 'proxy-http', 'proxy'].entries()) {
        console.log(`\n${name === 'proxy' ? 'svcspec proxy' : name === 'proxy-http' ? 'svcspec proxy on the http core' : FLOORS[i].name}: CPU per request (${served[i + 1].toLocaleString('en')} requests)`);
        console.log(summarizeProfile(join(profileDir, `${name}.cpuprofile`), { requests: served[i + 1], top: 20 }).text);
      }
    }
    if (problems.length) console.error(`proxy bench did not measure what it should: ${problems.join('; ')}`);
    return { name: 'proxy', ok: problems.length === 0 };
  } finally {
    for (const f of floors) await f.process.stop();
    await proxy?.stop();
    await proxyHttp?.stop();
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');
