/**
 * The serve bench: the svcspec reference service on the item resource of
 * bench/fixtures/items.yaml, measured on loopback with autocannon against
 *   - hand-written: the same resource by hand on plain Fastify + node:sqlite, validation by
 *     Fastify's route schema (bench/servers/hand-written.ts): the physical limit of the stack;
 *   - json-server 1.0 (beta), as its README starts it, on a db.json.
 * Each server runs in a child process of its own; the load generator runs here.
 *
 * Operations, each after 10,000 records are seeded (through the store, or db.json):
 *   read    GET one by id, a random seeded id per request          50 connections
 *   list    GET a page of 20 at a random position (cursors, keyset  50 connections
 *           positions or page numbers collected by walking every page first)
 *   create  POST a valid body (validation on)                        20 connections
 * svcspec and hand-written creates at both durabilities: synchronous=NORMAL, and FULL
 * (fsync per commit); reads and lists once (durability does not touch them).
 *
 * Each row: requests/s, p50 and p99 latency, and the server's CPU time per response (from
 * /proc, Linux): the servers compared on an operation take turns a second at a time, and
 * CPU per response holds steady where requests/s moves with whatever else the machine runs.
 *
 * Targets, per operation: svcspec at least 0.8x hand-written and at least 5x json-server.
 * A miss is reported, not failed. A server that does not start, or a run whose responses
 * are not all the expected status, makes the bench fail: it did not measure what it says.
 *
 * SVCSPEC_BENCH_SECONDS  measured seconds per server and operation (default 5), taken in
 *                        turns of 1 s with the servers it is compared to, after a 1 s warm-up
 * SVCSPEC_BENCH_PROFILE  a directory: the svcspec servers run with --cpu-prof (one process
 *                        per operation), and the bench prints where their time goes
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, freePort, runNode, startServer, type ServerProcess } from './support/children.ts';
import { summarizeProfile } from './support/cpuprofile.ts';
import { sample, summarize, type LoadOptions, type LoadResult, type Sample } from './support/load.ts';
import { textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const RECORDS = 10_000;
const PAGE = 20;
const WARMUP_SECONDS = 1;
const CONNECTIONS = { read: 50, list: 50, create: 20 } as const;
const TARGET_VS_HAND = 0.8;
const TARGET_VS_JSON = 5;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SPEC = here('./fixtures/items.yaml');
const SVCSPEC_SERVER = here('./servers/svcspec.ts');
const SVCSPEC_SEED = here('./servers/svcspec-seed.ts');
const HAND_SERVER = here('./servers/hand-written.ts');
const JSON_SERVER_BIN = here('../node_modules/json-server/lib/bin.js');

const CREATE_BODY = { name: 'Garden hose, 20 m', sku: 'GRD-0042', price: 19.99, quantity: 12, category: 'garden', tags: ['outdoor', 'water'], releasedOn: '2024-03-15' };

type Op = 'read' | 'list' | 'create';
type Kind = 'hand-written' | 'svcspec' | 'json-server';
type Durability = 'normal' | 'full';

interface Item {
  readonly id: string;
  readonly name: string;
  readonly sku: string;
  readonly price: number;
  readonly quantity: number;
  readonly category: string;
  readonly tags: readonly string[];
  readonly releasedOn: string;
}

interface Target {
  readonly kind: Kind;
  readonly durability?: Durability;
  readonly process: ServerProcess;
  /** The name of its CPU profile, when profiled. */
  readonly profile?: string;
  /** The paths of every page, for the list runs; collected by walking them. */
  pages: string[];
}

interface Run {
  readonly op: Op;
  /** Of creates by svcspec and hand-written; json-server rewrites its file, without fsync. */
  readonly durability?: Durability;
  readonly target: Target;
  result?: LoadResult;
  /** CPU time the server used during the measured samples, in ms (Linux only). */
  cpuMs?: number;
}

/** The same 10,000 records for every server: deterministic fields, random UUIDs. */
function seedRecords(): Item[] {
  let state = 0x5eed;
  const random = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const categories = ['tools', 'garden', 'kitchen', 'toys'];
  const words = ['red', 'steel', 'small', 'large', 'eco', 'classic', 'outdoor', 'spare', 'gift', 'pro'];
  const records: Item[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const tags = [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => words[Math.floor(random() * words.length)]!))];
    records.push({
      id: randomUUID(),
      name: `Item ${i} ${words[i % words.length]}`,
      sku: `${'ABCDEFGHIJ'[i % 10]}${'KLMNOPQRST'[Math.floor(i / 10) % 10]}X-${String(i % 10000).padStart(4, '0')}`,
      price: Math.round(random() * 100000) / 100,
      quantity: Math.floor(random() * 1000),
      category: categories[i % categories.length]!,
      tags,
      releasedOn: `20${10 + (i % 15)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
    });
  }
  return records;
}

function label(t: Target): string {
  return t.kind === 'json-server' ? t.kind : `${t.kind} (${t.durability})`;
}

async function getJson(url: string): Promise<{ status: number; body: unknown; text: string }> {
  const response = await fetch(url);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

function invalid(t: Target, what: string, status: number, text: string): Error {
  return new Error(`${label(t)}: ${what} answered ${status}: ${text.slice(0, 300)}`);
}

/** One read of a seeded record must answer it, fields and all. */
async function checkRead(t: Target, record: Item): Promise<void> {
  const r = await getJson(`${t.process.url}/items/${record.id}`);
  const body = r.body as Partial<Item> | undefined;
  if (r.status !== 200 || body?.id !== record.id || body.sku !== record.sku || body.price !== record.price) throw invalid(t, `GET /items/${record.id}`, r.status, r.text);
}

/** Walks every page, checking each holds 20 records and all 10,000 are seen; returns the pages' paths. */
async function walkPages(t: Target): Promise<string[]> {
  if (t.kind === 'json-server') {
    const pages = Array.from({ length: RECORDS / PAGE }, (_, i) => `/items?_page=${i + 1}&_per_page=${PAGE}`);
    for (const path of [pages[0]!, pages.at(-1)!]) {
      const r = await getJson(t.process.url + path);
      const body = r.body as { data?: unknown[]; items?: number } | undefined;
      if (r.status !== 200 || body?.data?.length !== PAGE || body.items !== RECORDS) throw invalid(t, `GET ${path}`, r.status, r.text);
    }
    return pages;
  }
  const param = t.kind === 'svcspec' ? 'cursor' : 'after';
  const pages: string[] = [];
  const seen = new Set<string>();
  for (let path: string | undefined = '/items'; path !== undefined;) {
    const r = await getJson(t.process.url + path);
    const body = r.body as { items?: { id: string }[]; next?: string | null } | undefined;
    if (r.status !== 200 || !Array.isArray(body?.items) || body.items.length !== PAGE) throw invalid(t, `GET ${path}`, r.status, r.text);
    for (const item of body.items) seen.add(item.id);
    pages.push(path);
    path = typeof body.next === 'string' ? `/items?${param}=${encodeURIComponent(body.next)}` : undefined;
    if (pages.length > RECORDS / PAGE) throw new Error(`${label(t)}: more than ${RECORDS / PAGE} pages of ${PAGE}`);
  }
  if (seen.size !== RECORDS) throw new Error(`${label(t)}: walking the pages saw ${seen.size} records, not ${RECORDS}`);
  return pages;
}

async function checkCreate(t: Target): Promise<void> {
  const response = await fetch(`${t.process.url}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CREATE_BODY) });
  const text = await response.text();
  let body: Partial<Item> | undefined;
  try {
    body = JSON.parse(text) as Partial<Item>;
  } catch {
    body = undefined;
  }
  if (response.status !== 201 || typeof body?.id !== 'string' || body.sku !== CREATE_BODY.sku) throw invalid(t, 'POST /items', response.status, text);
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const msText = (n: number) => `${n.toFixed(2)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
/** The server's CPU time per response of the measured samples: robust to what else the machine runs. */
const cpuText = (run: Run) => (run.cpuMs === undefined || !run.result?.responses ? '-' : `${((run.cpuMs * 1000) / run.result.responses).toFixed(0)} µs`);

function opText(run: Run): string {
  if (run.op === 'read') return 'read by id';
  if (run.op === 'list') return `list ${PAGE}`;
  if (run.durability === undefined) return 'create (file, no fsync)';
  return run.durability === 'normal' ? 'create (sync NORMAL)' : 'create (sync FULL)';
}

export async function serveBench(): Promise<BenchOutcome> {
  const rounds = Math.max(1, Math.round(Number(process.env.SVCSPEC_BENCH_SECONDS ?? 5)));
  const profileDir = process.env.SVCSPEC_BENCH_PROFILE ? resolve(process.env.SVCSPEC_BENCH_PROFILE) : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-serve-bench-'));
  const targets: Target[] = [];
  try {
    const records = seedRecords();
    const seedFile = join(dir, 'seed.json');
    await writeFile(seedFile, JSON.stringify(records));
    await mkdir(join(dir, 'json-server'));
    await writeFile(join(dir, 'json-server', 'db.json'), JSON.stringify({ items: records }, null, 2));
    if (profileDir) await mkdir(profileDir, { recursive: true });
    console.log(`${RECORDS.toLocaleString('en')} records seeded into each server; per server and operation a ${WARMUP_SECONDS} s warm-up, then ${rounds} s measured in turns of 1 s with the servers it is compared to; pipelining 1; connections: read ${CONNECTIONS.read}, list ${CONNECTIONS.list}, create ${CONNECTIONS.create}`);

    const portLine = (line: string): number | undefined => {
      const m = /^\{"port":(\d+)\}$/.exec(line.trim());
      return m ? Number(m[1]) : undefined;
    };
    const hand = (durability: Durability) => startServer({ name: `hand-written (${durability})`, args: [HAND_SERVER, join(dir, `hand-${durability}.db`), durability, seedFile], readyFrom: portLine });
    const svcspec = async (durability: Durability, name: string) => {
      const db = join(dir, `svcspec-${name}.db`);
      await runNode(`svcspec seeding (${name})`, [SVCSPEC_SEED, SPEC, db, seedFile]);
      return startServer({
        name: `svcspec (${durability})`,
        args: [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=svcspec-${name}.cpuprofile`] : []), SVCSPEC_SERVER, SPEC, db, durability],
        readyFrom: portLine,
      });
    };
    const jsonPort = await freePort();
    const jsonServer = () =>
      startServer({
        name: 'json-server',
        args: [JSON_SERVER_BIN, 'db.json', '--port', String(jsonPort), '--host', '127.0.0.1'],
        cwd: join(dir, 'json-server'),
        readyFrom: (line) => (line.includes('JSON Server started') ? jsonPort : undefined),
      });

    // The svcspec process of each operation: one per durability; when profiling, one per
    // operation, so that each profile is of one operation.
    const svcspecFor: Record<'read' | 'list' | Durability, string> = profileDir
      ? { read: 'read', list: 'list', normal: 'create-normal', full: 'create-full' }
      : { read: 'normal', list: 'normal', normal: 'normal', full: 'full' };
    const starts: { key: string; kind: Kind; durability?: Durability; profile?: string; process: Promise<ServerProcess> }[] = [
      { key: 'hand normal', kind: 'hand-written', durability: 'normal', process: hand('normal') },
      { key: 'hand full', kind: 'hand-written', durability: 'full', process: hand('full') },
      { key: 'json', kind: 'json-server', process: jsonServer() },
    ];
    for (const name of new Set(Object.values(svcspecFor))) {
      const durability = name.endsWith('full') ? 'full' : 'normal';
      starts.push({ key: `svcspec ${name}`, kind: 'svcspec', durability, ...(profileDir ? { profile: `svcspec-${name}.cpuprofile` } : {}), process: svcspec(durability, name) });
    }
    const started = await Promise.allSettled(starts.map((s) => s.process));
    const byKey = new Map<string, Target>();
    starts.forEach((s, i) => {
      const outcome = started[i]!;
      if (outcome.status !== 'fulfilled') return;
      const target: Target = { kind: s.kind, ...(s.durability ? { durability: s.durability } : {}), ...(s.profile ? { profile: s.profile } : {}), process: outcome.value, pages: [] };
      targets.push(target);
      byKey.set(s.key, target);
    });
    const failed = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed.length) {
      for (const f of failed) console.error(`server failed to start: ${(f.reason as Error).message}`);
      return { name: 'serve', ok: false };
    }
    const get = (key: string) => byKey.get(key)!;
    const svc = (op: keyof typeof svcspecFor) => get(`svcspec ${svcspecFor[op]}`);

    const runs: Run[] = [
      { op: 'read', target: get('hand normal') },
      { op: 'read', target: svc('read') },
      { op: 'read', target: get('json') },
      { op: 'list', target: get('hand normal') },
      { op: 'list', target: svc('list') },
      { op: 'list', target: get('json') },
      { op: 'create', durability: 'normal', target: get('hand normal') },
      { op: 'create', durability: 'normal', target: svc('normal') },
      { op: 'create', durability: 'full', target: get('hand full') },
      { op: 'create', durability: 'full', target: svc('full') },
      { op: 'create', target: get('json') },
    ];

    // Before measuring: every server answers each operation it is measured on as it should.
    try {
      for (const run of runs) {
        if (run.op === 'read') await checkRead(run.target, records[1234]!);
        else if (run.op === 'list') run.target.pages = await walkPages(run.target);
      }
      for (const run of runs) if (run.op === 'create') await checkCreate(run.target);
    } catch (error) {
      console.error(`INVALID: ${(error as Error).message}`);
      return { name: 'serve', ok: false };
    }

    const ids = records.map((r) => r.id);
    const body = JSON.stringify(CREATE_BODY);
    const optionsOf = (run: Run): LoadOptions => {
      const pages = run.target.pages;
      return {
        url: run.target.process.url,
        method: run.op === 'create' ? 'POST' : 'GET',
        path: run.op === 'read' ? () => `/items/${ids[Math.floor(Math.random() * ids.length)]}` : run.op === 'list' ? () => pages[Math.floor(Math.random() * pages.length)]! : () => '/items',
        ...(run.op === 'create' ? { body, headers: { 'content-type': 'application/json' } } : {}),
        expect: run.op === 'create' ? 201 : 200,
        connections: CONNECTIONS[run.op],
      };
    };
    // The servers compared on an operation take turns, a second each, so a burst of load
    // from elsewhere on the machine weighs on all of them alike.
    const groups = [...new Set(runs.map(opText))].map((op) => runs.filter((r) => opText(r) === op));
    const problems: string[] = [];
    for (const group of groups) {
      const warmups = new Map<Run, Sample[]>();
      const measured = new Map<Run, Sample[]>(group.map((run) => [run, []]));
      for (const run of group) warmups.set(run, [await sample(optionsOf(run), WARMUP_SECONDS, false)]);
      for (let round = 0; round < rounds; round++) {
        for (const run of group) {
          const before = cpuMs(run.target.process.child.pid);
          measured.get(run)!.push(await sample(optionsOf(run), 1));
          const after = cpuMs(run.target.process.child.pid);
          if (before !== undefined && after !== undefined) run.cpuMs = (run.cpuMs ?? 0) + after - before;
        }
      }
      for (const run of group) {
        const r = (run.result = summarize(optionsOf(run).expect, measured.get(run)!, warmups.get(run)));
        const { target } = run;
        const alive = target.process.child.exitCode === null && target.process.child.signalCode === null;
        const trouble = [...r.problems, ...(alive ? [] : ['the server exited during the run'])];
        console.log(`  ${opText(run).padEnd(24)} ${target.kind.padEnd(13)} ${int(r.rps).padStart(7)} req/s  p50 ${msText(r.p50Ms).padStart(9)}  p99 ${msText(r.p99Ms).padStart(9)}  server CPU ${cpuText(run).padStart(8)}/request${trouble.length ? '  INVALID' : ''}`);
        for (const p of trouble) problems.push(`${opText(run)} on ${label(target)}: ${p}`);
      }
    }

    const rows = runs.map((run) => {
      const r = run.result!;
      const hand = runs.find((x) => x.target.kind === 'hand-written' && x.op === run.op && x.durability === (run.op === 'create' ? (run.durability ?? 'normal') : undefined))!.result!;
      const json = runs.find((x) => x.target.kind === 'json-server' && x.op === run.op)!.result!;
      const vsHand = r.rps / hand.rps;
      const vsJson = r.rps / json.rps;
      const own = run.target.kind === 'svcspec';
      return [
        run.target.kind,
        opText(run),
        int(r.rps),
        msText(r.p50Ms),
        msText(r.p99Ms),
        cpuText(run),
        ratio(r.rps, hand.rps),
        ratio(r.rps, json.rps),
        own ? (vsHand >= TARGET_VS_HAND ? 'PASS' : 'MISS') : '-',
        own ? (vsJson >= TARGET_VS_JSON ? 'PASS' : 'MISS') : '-',
      ];
    });
    console.log();
    console.log(textTable(['server', 'operation', 'req/s', 'p50', 'p99', 'CPU/req', 'x hand', 'x json-server', `>=${TARGET_VS_HAND}x hand`, `>=${TARGET_VS_JSON}x json`], rows));
    console.log();
    const own = rows.filter((r) => r[0] === 'svcspec');
    const misses = own.filter((r) => r[8] === 'MISS' || r[9] === 'MISS');
    console.log(`svcspec against the targets (${TARGET_VS_HAND}x hand-written, ${TARGET_VS_JSON}x json-server): ${own.length - misses.length} of ${own.length} operations PASS${misses.length ? `; MISS on ${misses.map((r) => r[1]).join(', ')}` : ''}`);
    console.log('creates with sync NORMAL / FULL compare like with like; json-server rewrites its whole db.json per write, without fsync (compared with both).');
    console.log('CPU/req: the server process\'s CPU time per response (user + system, /proc), steadier than req/s on a shared machine; fsync waits are not CPU.');

    if (problems.length) {
      console.error(`\nINVALID: responses other than the expected ones; these figures measure errors, not the service:`);
      for (const p of problems) console.error(`  ${p}`);
      return { name: 'serve', ok: false };
    }

    if (profileDir) {
      await Promise.all(targets.map((t) => t.process.stop()));
      for (const t of targets) {
        if (!t.profile) continue;
        const served = runs.filter((r) => r.target === t).reduce((n, r) => n + r.result!.served, 0) + t.pages.length;
        const ops = runs.filter((r) => r.target === t).map(opText).join(', ');
        console.log(`\n-- svcspec server (${t.durability}) serving ${ops}`);
        console.log(summarizeProfile(join(profileDir, t.profile), { requests: served, top: 20 }).text);
      }
    }
    return { name: 'serve', ok: true };
  } catch (error) {
    console.error(`serve bench failed: ${(error as Error).stack ?? String(error)}`);
    return { name: 'serve', ok: false };
  } finally {
    await Promise.all(targets.map((t) => t.process.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
