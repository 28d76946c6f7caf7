/**
 * The tester bench (issue #6): how long a full `svcspec test` run takes against each
 * complete example, the reference service in a process of its own on loopback (a SQLite
 * file, durability full, serve's webhook defaults; bench/servers/svcspec-tested.ts), the
 * tester here. Target (issue #16): a full run under 60 s on a real clock, the spec's rate-limit
 * waits included: the tester plans around the declared quotas (quota.ts: creates spread across
 * principals, walks of long lists in larger pages, a window waited for rather than refused).
 *
 * The baseline, measured in the same run against the same service: the same requests, in
 * the same order, sent one at a time by a bare client (fetch, nothing checked, nothing
 * waited for): what this many HTTP exchanges cost with the service, without the tester's
 * own work (generating inputs, checking, its webhook receiver, waiting for events). The
 * ratio says how much of a run is the tester. The event stream's long-lived requests are
 * not replayed. The replay comes after the run, so its requests meet records the run has
 * cleaned up and rate-limit windows the run has used: it is a floor, not a twin.
 *
 * Rate limits: the tester's waits move the service's clock over IPC instead of sleeping, as
 * the tests of the tester do; the real-clock time of a run is its wall time plus what it
 * waited (`waited`), and that is what the target is held to. The tester sends from several
 * loopback addresses where a limit is counted per address (src/conformance/sources.ts:
 * helpdesk's 5 tickets a minute are 5 for each); a run that still waits is also run with
 * `waitBudgetMs: 0`, as `svcspec test --wait-budget 0` would: no wait, and the checks the
 * quota left out reported not checked (counted here).
 *
 * SVCSPEC_BENCH_EXAMPLES  the examples to run, comma-separated (library, helpdesk, orders)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runConformance, type Exchange, type Principal } from '../src/conformance/index.ts';
import { formatHuman } from '../src/conformance/report/format.ts';
import { loadSpec } from '../src/load/index.ts';
import { startServer, type ServerProcess } from './support/children.ts';
import { textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const TARGET_MS = 60_000;
const SEED = 20261123;
const EXAMPLES = ['library', 'helpdesk', 'orders'] as const;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SERVER = here('./servers/svcspec-tested.ts');
const exampleFile = (name: string) => here(`../examples/${name}.yaml`);

interface Row {
  readonly example: string;
  readonly checks: number;
  readonly failed: number;
  readonly requests: number;
  readonly runMs: number;
  readonly replayMs: number;
  readonly waits: number;
  readonly waitedMs: number;
  /** Wall time plus the waits a real clock would have taken. */
  readonly realMs: number;
  /** Of a run that waited: the same run with no wait allowed, its time, the checks its quota left out, and its failures (none expected). */
  readonly noWait?: { readonly ms: number; readonly notChecked: number; readonly failed: number };
  /** Milliseconds of the run per part, the slowest first. */
  readonly parts: readonly (readonly [string, number])[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export async function testerBench(): Promise<BenchOutcome> {
  const names = (process.env.SVCSPEC_BENCH_EXAMPLES ?? EXAMPLES.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(EXAMPLES as readonly string[]).includes(n));
  if (unknown.length || names.length === 0) {
    console.error(`SVCSPEC_BENCH_EXAMPLES: '${unknown.join(',')}' is not an example; give ${EXAMPLES.join(', ')}, comma-separated`);
    return { name: 'tester', ok: false };
  }
  console.log(`A full svcspec test run (seed ${SEED}, every part) against svcspec serve in its own process, per example; baseline: the run's requests replayed one at a time by a bare client`);
  const rows: Row[] = [];
  for (const name of names) {
    const row = await measure(name).catch((error: unknown) => {
      console.error(`INVALID: ${name}: ${(error as Error).message}`);
      return undefined;
    });
    if (!row) return { name: 'tester', ok: false };
    rows.push(row);
  }
  console.log(
    `\n${textTable(
      ['example', 'checks', 'failed', 'requests', 'run', 'replay', 'run / replay', 'quota waits (not slept)', 'real clock', 'target < 60 s', 'no wait: time, not checked'],
      rows.map((r) => [r.example, String(r.checks), String(r.failed), r.requests.toLocaleString('en'), seconds(r.runMs), seconds(r.replayMs), `${(r.runMs / r.replayMs).toFixed(2)}x`, r.waits ? `${r.waits}, ${seconds(r.waitedMs)}` : '-', seconds(r.realMs), r.realMs < TARGET_MS ? 'PASS' : 'MISS', r.noWait ? `${seconds(r.noWait.ms)}, ${r.noWait.notChecked}` : '-']),
    )}`,
  );
  // A quota the run may not wait for leaves checks not checked, never failed.
  const failed = rows.filter((r) => r.failed > 0 || (r.noWait?.failed ?? 0) > 0);
  if (failed.length) {
    console.error(`INVALID: checks failed against the reference service (${failed.map((r) => r.example).join(', ')}): the run did not measure a passing run`);
    return { name: 'tester', ok: false };
  }
  return { name: 'tester', ok: true };
}

async function measure(name: string): Promise<Row> {
  const file = exampleFile(name);
  const loaded = await loadSpec(file);
  const spec = loaded.value;
  if (!spec || loaded.diagnostics.some((d) => d.severity === 'error')) throw new Error(`${file} does not load`);
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-tester-bench-'));
  let server: ServerProcess | undefined;
  try {
    let principals: Principal[] = [];
    server = await startServer({
      name: `svcspec serve ${name}`,
      args: [SERVER, file, join(dir, `${name}.db`)],
      ipc: true,
      readyFrom: (line) => {
        if (!line.startsWith('{"port"')) return undefined;
        const ready = JSON.parse(line) as { port: number; principals: Principal[] };
        principals = ready.principals;
        return ready.port;
      },
    });
    const child = server.child;
    let skew = 0;
    const advance = (ms: number) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send({ advance: ms });
        skew += ms;
      });
    const exchanges: Exchange[] = [];
    // Where the time goes: each check's time since the previous result, by its part.
    const parts = new Map<string, number>();
    const started = performance.now();
    let last = started;
    const onResult = (r: { part: string }) => {
      const now = performance.now();
      parts.set(r.part, (parts.get(r.part) ?? 0) + now - last);
      last = now;
    };
    const report = await runConformance({ spec, baseUrl: server.url, principals, seed: SEED, sleep: advance, now: () => Date.now() + skew, onExchange: (e) => exchanges.push(e), onResult });
    const runMs = performance.now() - started;
    if (report.counts.fail) console.error(formatHuman(report));
    const replayMs = await replay(exchanges);
    const byPart = [...parts].sort((a, b) => b[1] - a[1]);
    console.log(`${name}: ${report.counts.pass} passed, ${report.counts.fail} failed, ${report.counts.skip} skipped; ${report.requests} requests in ${seconds(runMs)} (${byPart.map(([p, ms]) => `${p} ${seconds(ms)}`).join(', ')}), replayed in ${seconds(replayMs)}`);
    let noWait: Row['noWait'];
    if (report.waited.count) {
      // Fresh windows: move the service's clock past every window the first run opened.
      await advance(24 * 3_600_000);
      const again = performance.now();
      const budgeted = await runConformance({ spec, baseUrl: server.url, principals, seed: SEED, sleep: advance, now: () => Date.now() + skew, waitBudgetMs: 0 });
      noWait = { ms: performance.now() - again, notChecked: budgeted.counts.notChecked, failed: budgeted.counts.fail };
      if (budgeted.counts.fail) console.error(formatHuman(budgeted));
      console.log(`${name} with no wait allowed: ${budgeted.counts.pass} passed, ${budgeted.counts.fail} failed, ${budgeted.counts.notChecked} not checked in ${seconds(noWait.ms)}`);
    }
    return { example: name, checks: report.results.length, failed: report.counts.fail, requests: report.requests, runMs, replayMs, waits: report.waited.count, waitedMs: report.waited.ms, realMs: runMs + report.waited.ms, ...(noWait ? { noWait } : {}), parts: byPart };
  } finally {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The run's requests again, one at a time, bodies read and dropped; the event stream's aside. */
async function replay(exchanges: readonly Exchange[]): Promise<number> {
  const started = performance.now();
  for (const { request, response } of exchanges) {
    if ((response.headers['content-type'] ?? '').startsWith('text/event-stream')) continue;
    const r = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual' });
    await r.arrayBuffer();
  }
  return performance.now() - started;
}
