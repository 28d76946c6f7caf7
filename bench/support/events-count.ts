/**
 * The events bench's three servers counted rather than timed: instructions per create (and,
 * for the webhook server, its delivery) under callgrind, which a loaded machine does not move.
 *
 *   node bench/support/events-count.ts plain|outbox|webhook [N] [WARM]
 *
 * Runs bench/servers/svcspec.ts under `valgrind --tool=callgrind --separate-threads=yes` on
 * the bench's spec (items.yaml, or items-events.yaml), and, for `webhook`, subscribes the
 * bench's receiver (in a process of its own, not counted). Then N creates (default 400) on 8
 * connections, after 4N (or WARM) that warm it up and are delivered; the counters are zeroed (`callgrind_control -z`);
 * N more creates, and for `webhook` the wait until the receiver has them all; then a dump
 * (`callgrind_control -d`). Prints the instructions of every thread of the dump over N, and
 * leaves the dump in the printed directory for callgrind_annotate.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './children.ts';
import { summarizeProfile } from './cpuprofile.ts';
import { CREATE_BODY } from './serve-checks.ts';

const kind = process.argv[2] as 'plain' | 'outbox' | 'webhook';
const N = Number(process.argv[3] ?? 400);
/** Creates before counting: V8 goes on compiling hot code for a while, on threads of its own. */
const WARM = Number(process.argv[4] ?? 4 * N);
if (!['plain', 'outbox', 'webhook'].includes(kind)) throw new Error('usage: events-count.ts plain|outbox|webhook [N]');
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const spec = here(kind === 'plain' ? '../fixtures/items.yaml' : '../fixtures/items-events.yaml');
const dir = await mkdtemp(join(tmpdir(), `svcspec-events-count-${kind}-`));
const portLine = (line: string) => {
  const m = /^\{"port":(\d+)\}$/.exec(line.trim());
  return m ? Number(m[1]) : undefined;
};

const receiver = await startServer({ name: 'receiver', args: [here('../servers/receiver.ts')], readyFrom: portLine });
// valgrind runs node: startServer spawns process.execPath, so the valgrind command is wrapped by hand.
const { spawn } = await import('node:child_process');
const { createInterface } = await import('node:readline');
// PROFILE=dir: a V8 CPU profile instead (no valgrind), for the JavaScript callgrind cannot name.
// CPU=1: no valgrind either; the server's CPU time (user, system) and bytes written (/proc) a create,
// which callgrind does not count: the kernel's part of a commit's WAL writes.
const profile = process.env.PROFILE;
const plainRun = profile !== undefined || process.env.CPU === '1';
const counter = !profile && plainRun ? [process.execPath] : profile ? [process.execPath, '--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=events-${kind}.cpuprofile`] : ['valgrind', '--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`, process.execPath];
const child = spawn(counter[0]!, [...counter.slice(1), here('../servers/svcspec.ts'), spec, join(dir, 'db.sqlite'), 'normal', ...(kind === 'webhook' ? ['--allow-private-webhooks'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
const port = await new Promise<number>((resolve, reject) => {
  child.once('exit', () => reject(new Error(`server exited: ${stderr}`)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const p = portLine(line);
    if (p !== undefined) resolve(p);
  });
});
const url = `http://127.0.0.1:${port}`;

async function creates(count: number): Promise<void> {
  let next = 0;
  const body = JSON.stringify(CREATE_BODY);
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next++ < count) {
      const r = await fetch(`${url}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await r.text();
      if (r.status !== 201) throw new Error(`create answered ${r.status}`);
    }
  }));
}
async function delivered(n: number): Promise<void> {
  const r = await fetch(`${receiver.url}/wait?n=${n}&timeoutMs=600000`);
  const { reachedAt } = (await r.json()) as { reachedAt: number | null };
  if (reachedAt === null) throw new Error(`fewer than ${n} deliveries arrived`);
}

/** The server's CPU ticks (1/100 s) and its writes so far (Linux). */
function procStat(pid: number): { user: number; system: number; wchar: number; syscw: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? 0);
  return { user: Number(fields[11]), system: Number(fields[12]), wchar: field('wchar'), syscw: field('syscw') };
}

try {
  if (kind === 'webhook') {
    const r = await fetch(`${url}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `${receiver.url}/hook`, events: ['item.created'] }) });
    if (r.status !== 201) throw new Error(`subscribe answered ${r.status}`);
  }
  await creates(WARM);
  if (kind === 'webhook') await delivered(WARM);
  // Let the last wakes and polls of the warm-up pass before zeroing.
  await new Promise((r) => setTimeout(r, 1500));
  if (!plainRun) execFileSync('callgrind_control', ['-z', String(child.pid)]);
  const before = procStat(child.pid!);
  await creates(N);
  if (kind === 'webhook') await delivered(WARM + N);
  if (plainRun && !profile) {
    const after = procStat(child.pid!);
    const us = (after.user - before.user) * 1e4 / N;
    const sys = (after.system - before.system) * 1e4 / N;
    console.log(`${kind}: ${(us + sys).toFixed(0)} µs CPU a create (user ${us.toFixed(0)}, system ${sys.toFixed(0)}), ${((after.wchar - before.wchar) / N / 1024).toFixed(1)} KiB written, ${((after.syscw - before.syscw) / N).toFixed(1)} write calls (${N} creates after ${WARM})`);
    process.exit(0);
  }
  if (profile) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    console.log(summarizeProfile(join(profile, `events-${kind}.cpuprofile`), { requests: WARM + N, top: 40 }).text);
    process.exit(0);
  }
  execFileSync('callgrind_control', ['-d', String(child.pid)]);
  await new Promise((r) => setTimeout(r, 1000));
  let total = 0;
  let main = 0;
  for (const f of await readdir(dir)) {
    if (!/^callgrind\.out\.\d+\.1(-\d+)?$/.test(f)) continue;
    const m = /^summary: (\d+)/m.exec(await readFile(join(dir, f), 'utf8'));
    if (!m) continue;
    total += Number(m[1]);
    if (f.endsWith('-01')) main = Number(m[1]);
  }
  const per = (n: number) => Math.round(n / N).toLocaleString('en');
  console.log(`${kind}: ${per(main)} instructions a create on the main thread, ${per(total)} on all threads (${N} creates after ${WARM}; dump in ${dir})`);
} finally {
  child.kill('SIGKILL');
  await receiver.stop();
}
