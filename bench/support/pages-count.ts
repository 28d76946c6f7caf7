/**
 * A serve-bench server's cost of one request counted in instructions rather than timed:
 * callgrind over the server process alone (valgrind must be installed), the serve bench's
 * fixture and seed, requests one at a time from this process. The count is taken over
 * MEASURE requests after WARM unmeasured ones (callgrind_control zeroes and dumps the
 * counters in between), so start-up and V8's warm-up stay out; the load of the machine does
 * not move it, which makes it the figure to compare two versions of the code by.
 *
 *   node bench/support/pages-count.ts [svcspec|guarded|hand|hand-guarded] [list|read|create]
 *
 * hand-guarded is the hand-written server with the same guards by hand (its --guarded).
 *
 * Prints instructions per request (the main thread, and all threads), then where the main
 * thread's go: the functions with the most instructions of their own, V8's compiled
 * JavaScript named from the map `--perf-basic-prof` writes (/tmp/perf-<pid>.map), which
 * callgrind alone shows as bare addresses. WARM (default 2000) and MEASURE (3000) set the
 * counts; TOP (30) the rows; KEEP=1 keeps the dump (its folder is printed); SPEC another
 * spec for the server (a variant of the fixture with one guard off, say).
 *
 * A second figure leaves the garbage collector out: how often V8 collects depends on time
 * too, and under callgrind a second holds ~50x fewer requests (the guarded twin's credential
 * cache, kept a second, is missed ~50x as often, and collections come with it). Compare two
 * versions by that figure. Node's own `process.nextTick` can take V8's slow path for a whole
 * run (`Runtime_DefineKeyedOwnPropertyInLiteral` high in the list; ~20K instructions a
 * request): both servers settle it at start (src/serve/tick-warm-up.ts), so a run that
 * shows it is a finding.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runNode } from './children.ts';
import { CREATE_BODY, GUARDED_VERSION, seedRecords, walkPages } from './serve-checks.ts';

const createBody = JSON.stringify(CREATE_BODY);

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const [kind = 'svcspec', op = 'list'] = process.argv.slice(2);
if ((kind !== 'svcspec' && kind !== 'hand' && kind !== 'guarded' && kind !== 'hand-guarded') || (op !== 'list' && op !== 'read' && op !== 'create')) {
  console.error('usage: pages-count.ts [svcspec|guarded|hand|hand-guarded] [list|read|create]');
  process.exit(2);
}
const n = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const WARM = n('WARM', 2000);
const MEASURE = n('MEASURE', 3000);
const TOP = n('TOP', 30);

const dir = await mkdtemp(join(tmpdir(), 'svcspec-pages-count-'));
try {
  const records = seedRecords();
  const seed = join(dir, 'seed.json');
  await writeFile(seed, JSON.stringify(records));
  const db = join(dir, `${kind}.db`);
  const spec = process.env.SPEC ?? here(kind === 'guarded' ? '../fixtures/items-guarded.yaml' : '../fixtures/items.yaml');
  let args: string[];
  // The guarded twin (issue #4): a credential issued into its database, sent with the version asked, as the serve bench does.
  let headers: Record<string, string> = {};
  if (kind === 'hand') args = [here('../servers/hand-written.ts'), db, 'normal', seed];
  else if (kind === 'hand-guarded') {
    const credential = join(dir, 'credential.json');
    headers = { 'x-api-key': 'sk00000000000000000000_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG', 'api-version': GUARDED_VERSION };
    await writeFile(credential, JSON.stringify({ 'x-api-key': headers['x-api-key'] }));
    args = [here('../servers/hand-written.ts'), db, 'normal', seed, '--guarded', credential];
  }
  else {
    const credential = join(dir, 'credential.json');
    await runNode('svcspec seeding', [here('../servers/svcspec-seed.ts'), spec, db, seed, ...(kind === 'guarded' ? [credential] : [])]);
    if (kind === 'guarded') headers = { ...(JSON.parse(readFileSync(credential, 'utf8')) as Record<string, string>), 'api-version': GUARDED_VERSION };
    args = [here('../servers/svcspec.ts'), spec, db, 'normal'];
  }
  const out = join(dir, 'callgrind.out');
  const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, '--dump-instr=no', process.execPath, '--perf-basic-prof', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^\{"port":(\d+)\}$/.exec(line.trim());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`the server under valgrind exited before it listened (is valgrind installed?): ${stderr}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const pages = op === 'list' ? await walkPages({ kind: kind.startsWith('hand') ? 'hand-written' : 'svcspec', process: { url } as never, pages: [], headers }) : [];
  // The same pseudo-random sequence in every run, so two runs ask for the same pages.
  let state = 12345;
  const next = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) {
      if (op === 'create') {
        // The serve bench's create: the same body every time (the service assigns the id).
        const r = await fetch(`${url}/items`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: createBody });
        await r.text();
        if (r.status !== 201) throw new Error(`POST /items answered ${r.status}`);
        continue;
      }
      const path = op === 'list' ? pages[Math.floor(next() * pages.length)]! : `/items/${records[Math.floor(next() * records.length)]!.id}`;
      const r = await fetch(url + path, { headers });
      await r.text();
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}`);
    }
  };
  await run(WARM);
  execFileSync('callgrind_control', ['-z', String(child.pid)], { stdio: 'ignore' });
  await run(MEASURE);
  execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));

  const dumps = (await readdir(dir)).filter((f) => /^callgrind\.out\.\d+$/.test(f)).sort();
  const measured = join(dir, dumps[0] ?? 'missing');
  if (!existsSync(measured)) throw new Error(`no callgrind dump of the measured requests in ${dir}`);
  const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(measured, 'utf8'))?.[1] ?? NaN);
  const annotated = execFileSync('callgrind_annotate', ['--threshold=100', measured], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const mapFile = `/tmp/perf-${child.pid}.map`;
  const jit = existsSync(mapFile)
    ? readFileSync(mapFile, 'utf8').split('\n').filter(Boolean).map((line) => {
      const [start, size, ...name] = line.split(' ');
      return { start: parseInt(start!, 16), end: parseInt(start!, 16) + parseInt(size!, 16), name: name.join(' ') };
    }).sort((a, b) => a.start - b.start)
    : [];
  const nameOf = (address: number): string | undefined => {
    let lo = 0;
    let hi = jit.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (jit[mid]!.start <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    const hit = jit[hi];
    return hit && address < hit.end ? hit.name : undefined;
  };
  const self = new Map<string, number>();
  let main = NaN;
  for (const line of annotated.split('\n')) {
    const m = /^\s*([\d,]+) \([^)]*\)\s+(.*?)(?: \[[^\]]*\])?$/.exec(line);
    if (!m) continue;
    const count = Number(m[1]!.replace(/,/g, ''));
    const where = m[2]!;
    // The main thread's entry: everything it ran, inclusive, under the first frame below main.
    if (Number.isNaN(main) && /\?\?\?:main$/.test(where)) main = count;
    const address = /^\?\?\?:0x([0-9a-f]+)$/.exec(where);
    const name = address ? (nameOf(parseInt(address[1]!, 16)) ?? where) : where;
    self.set(name, Math.max(self.get(name) ?? 0, 0) + count);
  }
  const per = (x: number) => `${(x / MEASURE / 1000).toFixed(1)}K`;
  // The garbage collector's share, inclusive (see the header for why it is shown apart).
  const inclusive = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', measured], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const gcLine = /^\s*([\d,]+) \([^)]*\)\s+\?\?\?:v8::internal::Heap::CollectGarbage\(/m.exec(inclusive);
  const gc = gcLine ? Number(gcLine[1]!.replace(/,/g, '')) : 0;
  const scavenges = /^\s*[\d,]+ \([^)]*\)\s+< \?\?\?:v8::internal::Heap::Scavenge\(\) \(([\d,]+)x\)/m.exec(execFileSync('callgrind_annotate', ['--tree=caller', '--threshold=100', measured], { encoding: 'utf8', maxBuffer: 64 << 20 }))?.[1] ?? '0';
  console.log(`${kind} ${op}: ${per(main)} instructions a request on the main thread, ${per(total)} in all threads (${MEASURE} requests after ${WARM})`);
  console.log(`without the garbage collector: ${per(main - gc)} on the main thread (it took ${per(gc)}: ${scavenges} scavenges)`);
  console.log('\nfunctions by instructions of their own, per request:');
  const skip = /(below main)|libc-start|libc_start_call_main|^\?\?\?:main$|node::Start|NodeMainInstance|SpinEventLoop|uv_run|uv__io_poll|clone\.S|start_thread|PROGRAM TOTALS/;
  // The frames around main are listed with everything below them: left out, as is anything as large as the whole.
  [...self].filter(([name, count]) => !skip.test(name) && !(count >= main)).sort((a, b) => b[1] - a[1]).slice(0, TOP).forEach(([name, count]) => console.log(`${per(count).padStart(8)}  ${name.slice(0, 150)}`));
} finally {
  // KEEP=1 leaves the dump for callgrind_annotate (`--tree=caller`: who calls a function).
  if (process.env.KEEP) console.log(`\nkept: ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}
