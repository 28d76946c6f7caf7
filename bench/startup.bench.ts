/**
 * The start-up bench (issue #20): what a user waits for, with the package as a user installs
 * it — `npm pack`, then `npm install <tarball>` in an empty project (test/package/support.ts),
 * and its bin/svcspec.js run by Node: the built JavaScript, no type stripping.
 *   svcspec --help                        against `node -e 0`, Node's own start
 *   svcspec serve examples/library.yaml   until its first 200 (GET /books), against
 *                                         Fastify + node:sqlite with one route (the floor,
 *                                         plain JavaScript too); a restart of the same spec
 *                                         (its readiness verdict read back), and the first
 *                                         start after an edit of part 2 (the rules run)
 * The bench polls each server from this process (every 2 ms) from its spawn to its first
 * 200, then kills it. Each command is started RUNS times in turns with its baseline, after
 * one warm-up each (Node's compile cache and the OS's file cache filled); the medians, the
 * servers' CPU time to their first 200 (/proc), and the number of modules each loads (a load
 * hook counts them in one more run). svcspec's bin turns Node's compile cache on; the floor,
 * a plain script, does not.
 * Targets: --help at most 200 ms, serve's first 200 at most 300 ms. On a shared machine the
 * wall times move with its load: the ratios to the baselines of the same run say more.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { packAndInstall, type Installed } from '../test/package/support.ts';
import { cpuMs, freePort } from './support/children.ts';
import { median, textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const RUNS = Number(process.env.SVCSPEC_BENCH_STARTUP_RUNS ?? 9);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const FLOOR = here('./support/startup-floor.js');
const SPEC = here('../examples/library.yaml');

/**
 * Counts the modules a process loads (ES modules and CommonJS alike), writing the count so far
 * to stderr at each (a server is killed, so it has no exit to report at); the last one counts.
 */
const COUNT_MODULES = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; let n = 0; registerHooks({ load(url, context, next) { process.stderr.write(`modules: ${++n}\\n`); return next(url, context); } });",
)}`;

interface Started {
  readonly ms: number;
  readonly stderr: string;
  /** A server's CPU time (user + system) to its first 200, from /proc (Linux); steadier than wall time on a shared machine. */
  readonly cpuMs?: number;
}

/** Wall time of a command that exits by itself; a non-zero exit is a broken bench. */
function exits(args: readonly string[], cwd: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - start, stderr }) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`))));
  });
}

/** Wall time from spawning a server to its first 200 at `path`, polled from here; the server is killed then. */
async function firstOk(args: (port: number) => readonly string[], path: string, cwd: string): Promise<Started> {
  const port = await freePort();
  const start = performance.now();
  const child = spawn(process.execPath, args(port), { stdio: ['ignore', 'ignore', 'pipe'], cwd });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  // 'close': after its stderr is read to the end.
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status, () => 0);
      if (status === 200) {
        const ms = performance.now() - start;
        const cpu = cpuMs(child.pid);
        child.kill('SIGKILL');
        await gone;
        return { ms, stderr, ...(cpu !== undefined ? { cpuMs: cpu } : {}) };
      }
      if (exited) throw new Error(`${args(port).join(' ')} exited before answering: ${stderr.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill('SIGKILL');
    await gone;
  }
}

/** library.yaml with one field's description changed in part 2 (resources): an edit of one part, as most are. */
function edit(text: string, n: number): string {
  const edited = text.replace('Copies the library owns.', `Copies the library owns (edit ${n}).`);
  if (edited === text) throw new Error('the startup bench edits the description of book.copies in examples/library.yaml, which is no longer there');
  return edited;
}

const modulesOf = (stderr: string) => [...stderr.matchAll(/modules: (\d+)/g)].at(-1)?.[1] ?? '0';

export async function startupBench(): Promise<BenchOutcome> {
  let installed: Installed;
  try {
    installed = packAndInstall();
  } catch (error) {
    console.error(`npm pack and install failed: ${(error as Error).message}`);
    return { name: 'startup', ok: false };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-startup-bench-'));
  try {
    const cwd = installed.project;
    copyFileSync(SPEC, join(cwd, 'library.yaml'));
    const specText = readFileSync(SPEC, 'utf8');
    const bin = join(installed.packageDir, 'bin/svcspec.js');
    let n = 0;
    const db = (name: string) => join(dir, `${name}-${++n}.db`);
    const pairs = [
      {
        label: 'svcspec --help', target: 200, base: 'node -e 0',
        run: (flags: string[] = []) => exits([...flags, bin, '--help'], cwd),
        baseRun: (flags: string[] = []) => exits([...flags, '-e', '0'], cwd),
      },
      {
        label: 'svcspec serve, first 200', target: 300, base: 'Fastify + node:sqlite',
        run: (flags: string[] = []) => firstOk((port) => [...flags, bin, 'serve', 'library.yaml', '--port', String(port), '--db', db('serve'), '--quiet'], '/books', cwd),
        baseRun: (flags: string[] = []) => firstOk((port) => [...flags, FLOOR, db('floor'), String(port)], '/items', cwd),
      },
      {
        // The first start after an edit: serve's readiness verdict, kept across starts of one
        // spec text (src/serve/readiness-cache.ts), is computed again: every check rule that
        // can find an error runs. The edit changes a field's description in part 2, the
        // largest section of the text, which is parsed and validated again (src/load/sections.ts).
        label: 'svcspec serve, first 200, spec just edited', target: 300, base: 'Fastify + node:sqlite',
        run: (flags: string[] = []) => {
          writeFileSync(join(cwd, 'edited.yaml'), edit(specText, ++n));
          return firstOk((port) => [...flags, bin, 'serve', 'edited.yaml', '--port', String(port), '--db', db('edited'), '--quiet'], '/books', cwd);
        },
        baseRun: (flags: string[] = []) => firstOk((port) => [...flags, FLOOR, db('floor'), String(port)], '/items', cwd),
      },
    ];
    const rows: string[][] = [];
    for (const p of pairs) {
      await p.run();
      await p.baseRun();
      const a: number[] = [];
      const b: number[] = [];
      const ca: number[] = [];
      const cb: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const x = await p.run();
        const y = await p.baseRun();
        a.push(x.ms);
        b.push(y.ms);
        if (x.cpuMs !== undefined && y.cpuMs !== undefined) {
          ca.push(x.cpuMs);
          cb.push(y.cpuMs);
        }
      }
      const modules = modulesOf((await p.run(['--import', COUNT_MODULES])).stderr);
      const baseModules = modulesOf((await p.baseRun(['--import', COUNT_MODULES])).stderr);
      const ma = median(a);
      const mb = median(b);
      const cpu = ca.length ? `${median(ca).toFixed(0)} / ${median(cb).toFixed(0)} ms: ${(median(ca) / median(cb)).toFixed(2)}x` : '-';
      rows.push([p.label, `${ma.toFixed(0)} ms`, `${p.target} ms`, ma <= p.target ? 'PASS' : 'MISS', modules, p.base, `${mb.toFixed(0)} ms`, baseModules, `${(ma / mb).toFixed(2)}x`, cpu]);
    }
    console.log(`the packed and installed package (npm pack, npm install), bin/svcspec.js on ${process.version}; ${RUNS} runs each in turns with its baseline after a warm-up; medians of wall time from spawn to exit (--help) or to the first 200 (serve)`);
    console.log(textTable(['command', 'median', 'target', 'verdict', 'modules', 'baseline', 'baseline median', 'modules', 'x baseline', 'CPU to the first 200, svcspec / baseline'], rows));
    console.log('CPU: the server process\'s user + system time from /proc (Linux, 10 ms ticks) when its first 200 arrived, medians; steadier than wall time on a shared machine.');
    return { name: 'startup', ok: true };
  } catch (error) {
    console.error(`startup bench failed: ${(error as Error).message}`);
    return { name: 'startup', ok: false };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    installed.remove();
  }
}
