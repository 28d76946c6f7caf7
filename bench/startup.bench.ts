/**
 * The start-up bench (issue #20): what a user waits for, with the package as installed —
 * the built JavaScript (dist/, built here first with `npm run build`), not the TypeScript
 * sources, which a checkout runs through Node's type stripping.
 *   svcspec --help                        against `node -e 0`, Node's own start
 *   svcspec serve examples/library.yaml   until its first 200 (GET /books), against
 *                                         Fastify + node:sqlite with one route (the floor)
 * Each a child process, started RUNS times in turns with its baseline; the medians.
 * Targets: --help at most 200 ms, serve's first 200 at most 300 ms. On a shared machine
 * the wall times move with its load: the ratios to the baselines of the same run say more.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { freePort } from './support/children.ts';
import { median, textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const RUNS = 7;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const ROOT = here('..');
const MAIN = here('../dist/cli/main.js');

/** Wall time of one child process, start to exit; a non-zero exit is a broken bench. */
function timed(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`))));
  });
}

export async function startupBench(): Promise<BenchOutcome> {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) {
    console.error(`npm run build failed:\n${build.stdout}${build.stderr}`);
    return { name: 'startup', ok: false };
  }
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-startup-bench-'));
  try {
    const helpScript = `import(${JSON.stringify(MAIN)}).then((m) => m.run(['--help']))`;
    let n = 0;
    const serve = async () => timed([here('./support/startup-serve.ts'), MAIN, join(ROOT, 'examples/library.yaml'), '/books', String(await freePort()), join(dir, `serve-${++n}.db`)]);
    const floor = async () => timed([here('./support/startup-floor.ts'), join(dir, `floor-${++n}.db`)]);
    const pairs = [
      { label: 'svcspec --help', target: 200, run: () => timed(['--input-type=module', '-e', helpScript]), base: 'node -e 0', baseRun: () => timed(['-e', '0']) },
      { label: 'svcspec serve, first 200', target: 300, run: serve, base: 'Fastify + node:sqlite', baseRun: floor },
    ];
    const rows: string[][] = [];
    for (const p of pairs) {
      await p.run();
      await p.baseRun();
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        a.push(await p.run());
        b.push(await p.baseRun());
      }
      const ma = median(a);
      const mb = median(b);
      rows.push([p.label, `${ma.toFixed(0)} ms`, `${p.target} ms`, ma <= p.target ? 'PASS' : 'MISS', p.base, `${mb.toFixed(0)} ms`, `${(ma / mb).toFixed(2)}x`]);
    }
    console.log(`the built package (dist/), ${RUNS} runs each in turns with its baseline; medians of wall time, child process start to exit`);
    console.log(textTable(['command', 'median', 'target', 'verdict', 'baseline', 'baseline median', 'x baseline'], rows));
    return { name: 'startup', ok: true };
  } catch (error) {
    console.error(`startup bench failed: ${(error as Error).message}`);
    return { name: 'startup', ok: false };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
