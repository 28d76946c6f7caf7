/**
 * How many serving processes build Node's tick objects through V8's runtime: the serve
 * bench's server started COUNT times in turn (default 8), each loaded for 3 s, then sampled
 * with `perf record` (Linux perf must be installed) over 4 s more of the same load.
 *
 *   node bench/support/ticks-probe.ts [svcspec|guarded|hand|hand-guarded] [list|read] [count]
 *
 * Prints, per process, the requests it answered and the share of its samples in
 * `Runtime_DefineKeyedOwnPropertyInLiteral` (V8 building `process.nextTick`'s object literal
 * through the runtime, with the map transitions around it: ~4.5% of a request's CPU in all),
 * and its CPU per request (perf's event count over the requests of its window), then how
 * many processes took that slow path. REPORTS=<folder> keeps each process's `perf report`
 * there (self time by symbol, the window's requests on its first line), to compare two
 * servers by. hand-guarded is the hand-written server with its --guarded guards. Without src/serve/tick-warm-up.ts, 11 of 23
 * svcspec processes did (issue #20); the hand-written server shows the same lottery.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runNode } from './children.ts';
import { GUARDED_VERSION, seedRecords, walkPages } from './serve-checks.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const [kind = 'svcspec', op = 'list', countText = '8'] = process.argv.slice(2);
const count = Number(countText);
if ((kind !== 'svcspec' && kind !== 'hand' && kind !== 'guarded' && kind !== 'hand-guarded') || (op !== 'list' && op !== 'read') || !(count >= 1)) {
  console.error('usage: ticks-probe.ts [svcspec|guarded|hand|hand-guarded] [list|read] [count]');
  process.exit(2);
}
const SLOW = 'Runtime_DefineKeyedOwnPropertyInLiteral';

const dir = await mkdtemp(join(tmpdir(), 'svcspec-ticks-probe-'));
try {
  const records = seedRecords();
  const seed = join(dir, 'seed.json');
  await writeFile(seed, JSON.stringify(records));
  const spec = here(kind === 'guarded' ? '../fixtures/items-guarded.yaml' : '../fixtures/items.yaml');
  const seeded = join(dir, 'seeded.db');
  let headers: Record<string, string> = {};
  const handCredential = join(dir, 'hand-credential.json');
  if (kind === 'hand-guarded') {
    headers = { 'x-api-key': 'sk00000000000000000000_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG', 'api-version': GUARDED_VERSION };
    await writeFile(handCredential, JSON.stringify({ 'x-api-key': headers['x-api-key'] }));
  } else if (kind !== 'hand') {
    const credential = join(dir, 'credential.json');
    await runNode('svcspec seeding', [here('../servers/svcspec-seed.ts'), spec, seeded, seed, ...(kind === 'guarded' ? [credential] : [])]);
    if (kind === 'guarded') headers = { ...(JSON.parse(readFileSync(credential, 'utf8')) as Record<string, string>), 'api-version': GUARDED_VERSION };
  }
  let slow = 0;
  for (let k = 0; k < count; k++) {
    const db = join(dir, `${k}.db`);
    const hand = kind === 'hand' || kind === 'hand-guarded';
    if (!hand) await copyFile(seeded, db);
    const args = hand ? [here('../servers/hand-written.ts'), db, 'normal', seed, ...(kind === 'hand-guarded' ? ['--guarded', handCredential] : [])] : [here('../servers/svcspec.ts'), spec, db, 'normal'];
    // --perf-basic-prof names V8's compiled JavaScript for perf (/tmp/perf-<pid>.map).
    const child = spawn(process.execPath, ['--perf-basic-prof', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const m = /^\{"port":(\d+)\}$/.exec(line.trim());
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => reject(new Error('the server exited before it listened')));
    });
    const url = `http://127.0.0.1:${port}`;
    const pages = op === 'list' ? await walkPages({ kind: kind.startsWith('hand') ? 'hand-written' : 'svcspec', process: { url } as never, pages: [], headers }) : [];
    let answered = 0;
    const one = async () => {
      const path = op === 'list' ? pages[answered % pages.length]! : `/items/${records[answered % records.length]!.id}`;
      answered++;
      const r = await fetch(url + path, { headers });
      await r.text();
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}`);
    };
    // Four requests in flight, as a few clients would keep it busy.
    const load = async (ms: number) => {
      const end = Date.now() + ms;
      while (Date.now() < end) await Promise.all([one(), one(), one(), one()]);
    };
    await load(3000);
    const data = join(dir, `${k}.perf`);
    const record = spawn('perf', ['record', '-q', '-e', 'task-clock', '-o', data, '-p', String(child.pid), '--', 'sleep', '4'], { stdio: 'ignore' });
    const recorded = new Promise((resolve, reject) => {
      record.once('exit', resolve);
      record.once('error', (e) => reject(new Error(`perf could not run (is Linux perf installed?): ${e.message}`)));
    });
    const before = answered;
    const started = Date.now();
    await load(4200);
    // perf samples 4 s of the load's ~4.2: the requests of those 4 s, at the load's rate.
    // Its event is task-clock, so the event count is the process's CPU time in ns.
    const inWindow = ((answered - before) * 4000) / (Date.now() - started);
    await recorded;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    const report = execFileSync('perf', ['report', '-i', data, '--stdio', '--sort', 'sym'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const cpuNs = Number(/^# Event count \(approx\.\): (\d+)/m.exec(report)?.[1] ?? NaN);
    if (process.env.REPORTS) await writeFile(join(process.env.REPORTS, `${kind}-${op}-${k + 1}.txt`), `# requests in the window: ${Math.round(inWindow)}\n${report}`);
    const share = Number(new RegExp(`([\\d.]+)%\\s+\\[\\.\\]\\s+\\S*${SLOW}`).exec(report)?.[1] ?? 0);
    // Below 0.1% it is the odd call at most, not every tick.
    if (share >= 0.1) slow++;
    console.log(`process ${k + 1}: ${answered} requests, ${(cpuNs / 1000 / inWindow).toFixed(1)} µs of CPU a request (perf), ${share.toFixed(2)}% of its samples in ${SLOW}${share >= 0.1 ? ' (slow path)' : ''}`);
  }
  console.log(`${kind} ${op}: ${slow} of ${count} processes took the slow path`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
