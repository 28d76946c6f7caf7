/**
 * The postgres bench (`npm run bench -- postgres`): the svcspec reference service on the
 * PostgreSQL store (bench/fixtures/items.yaml, `--db postgres://…`), against a hand-written
 * Fastify + `postgres` service doing the same work on the same server
 * (bench/servers/hand-written-postgres.ts), measured in the same run, in turns of 1 s.
 *
 * Operations, after 10,000 records are seeded into each (a schema each):
 *   read    GET one by id, a random seeded id per request         50 connections
 *   list    GET a page of 20 at a random position                 50 connections
 *   create  POST a valid body (validation on), committed          20 connections
 * Target: svcspec at least 0.8x hand-written per operation (reported, not failed).
 *
 * Then 1, 2 and 3 svcspec instances on one schema, each loaded at once by its own load
 * generator (the sum of their requests/s): reported as measured. This machine has 2 cores
 * shared by the instances, PostgreSQL and the load generators, so the cores cap the sum;
 * it shows that instances share one database correctly under load, not how they scale on
 * machines of their own.
 *
 * Needs PostgreSQL at SVCSPEC_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test);
 * the schemas it makes are dropped at the end. SVCSPEC_BENCH_SECONDS as the serve bench's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { runNode, startServer, type ServerProcess } from './support/children.ts';
import { sample, summarize, type LoadOptions, type Sample } from './support/load.ts';
import { checkCreate, checkRead, CREATE_BODY, RECORDS, seedRecords, walkPages, type Target } from './support/serve-checks.ts';
import { textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SPEC = here('./fixtures/items.yaml');
const DATABASE = process.env.SVCSPEC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONNECTIONS = { read: 50, list: 50, create: 20 } as const;
const TARGET = 0.8;
type Op = keyof typeof CONNECTIONS;

const portLine = (line: string): number | undefined => {
  const m = /^\{"port":(\d+)\}$/.exec(line.trim());
  return m ? Number(m[1]) : undefined;
};

function schemaUrl(schema: string): string {
  const url = new URL(DATABASE);
  url.searchParams.set('schema', schema);
  return url.toString();
}

function load(op: Op, t: Target, ids: readonly string[]): LoadOptions {
  const random = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
  if (op === 'read') return { url: t.process.url, method: 'GET', path: () => `/items/${random(ids)}`, expect: 200, connections: CONNECTIONS.read };
  if (op === 'list') return { url: t.process.url, method: 'GET', path: () => random(t.pages), expect: 200, connections: CONNECTIONS.list };
  return { url: t.process.url, method: 'POST', path: () => '/items', body: JSON.stringify(CREATE_BODY), headers: { 'content-type': 'application/json' }, expect: 201, connections: CONNECTIONS.create };
}

export async function postgresBench(): Promise<BenchOutcome> {
  const rounds = Math.max(1, Math.round(Number(process.env.SVCSPEC_BENCH_SECONDS ?? 5)));
  const admin = postgres(DATABASE, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin`SELECT 1`;
  } catch (error) {
    console.error(`the postgres bench needs PostgreSQL at ${DATABASE}: ${(error as Error).message}`);
    await admin.end({ timeout: 1 });
    return { name: 'postgres', ok: false };
  }
  const tag = `${process.pid}_${Date.now().toString(36)}`;
  const schemas = { svcspec: `bench_svcspec_${tag}`, hand: `bench_hand_${tag}` };
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-postgres-bench-'));
  const servers: ServerProcess[] = [];
  try {
    const records = seedRecords();
    const ids = records.map((r) => r.id);
    const seedFile = join(dir, 'seed.json');
    await writeFile(seedFile, JSON.stringify(records));
    const svcspecDb = schemaUrl(schemas.svcspec);
    await runNode('svcspec seeding (postgres)', [here('./servers/svcspec-seed.ts'), SPEC, svcspecDb, seedFile]);
    const svcspecServer = () => startServer({ name: 'svcspec (postgres)', args: [here('./servers/svcspec.ts'), SPEC, svcspecDb, 'full'], readyFrom: portLine });
    const svcspec = await svcspecServer();
    servers.push(svcspec);
    const hand = await startServer({ name: 'hand-written (postgres)', args: [here('./servers/hand-written-postgres.ts'), schemaUrl(schemas.hand), seedFile], readyFrom: portLine });
    servers.push(hand);
    const targets: Target[] = [
      { kind: 'svcspec', process: svcspec, pages: [], headers: {} },
      { kind: 'hand-written', process: hand, pages: [], headers: {} },
    ];
    for (const t of targets) {
      await checkRead(t, records[123]!);
      t.pages = await walkPages(t);
      await checkCreate(t);
    }
    console.log(`${RECORDS.toLocaleString('en')} records seeded into each (PostgreSQL ${new URL(DATABASE).host}, a schema each); 1 s warm-up, then ${rounds} s measured in turns of 1 s; connections: read ${CONNECTIONS.read}, list ${CONNECTIONS.list}, create ${CONNECTIONS.create}`);
    const rows: string[][] = [];
    let problems = 0;
    for (const op of ['read', 'list', 'create'] as const) {
      const measured = new Map<Target, Sample[]>(targets.map((t) => [t, []]));
      const warm = new Map<Target, Sample[]>(targets.map((t) => [t, []]));
      for (const t of targets) warm.get(t)!.push(await sample(load(op, t, ids), 1, false));
      for (let i = 0; i < rounds; i++) for (const t of targets) measured.get(t)!.push(await sample(load(op, t, ids), 1));
      const [s, h] = targets.map((t) => summarize(load(op, t, ids).expect, measured.get(t)!, warm.get(t)!));
      for (const [t, r] of [[targets[0]!, s!], [targets[1]!, h!]] as const) {
        if (r.problems.length) {
          problems++;
          console.error(`${t.kind} ${op}: ${r.problems.join('; ')}`);
        }
      }
      const ratio = s!.rps / h!.rps;
      rows.push([op === 'list' ? 'list 20' : op, Math.round(s!.rps).toLocaleString('en'), Math.round(h!.rps).toLocaleString('en'), `${ratio.toFixed(2)}x`, ratio >= TARGET ? `met (>= ${TARGET}x)` : `MISSED (< ${TARGET}x)`, `${s!.p50Ms.toFixed(2)} / ${s!.p99Ms.toFixed(2)} ms`, `${h!.p50Ms.toFixed(2)} / ${h!.p99Ms.toFixed(2)} ms`]);
    }
    console.log(textTable(['operation', 'svcspec req/s', 'hand-written req/s', 'ratio', 'target', 'svcspec p50/p99', 'hand p50/p99'], rows));

    // 1, 2 and 3 instances on the one schema, each with its own load generator, at once.
    await hand.stop();
    const instances = [svcspec];
    const scaleRows: string[][] = [];
    for (const n of [1, 2, 3]) {
      while (instances.length < n) {
        const more = await svcspecServer();
        servers.push(more);
        instances.push(more);
      }
      for (const op of ['read', 'create'] as const) {
        const per = instances.map((p): Target => ({ kind: 'svcspec', process: p, pages: targets[0]!.pages, headers: {} }));
        await Promise.all(per.map((t) => sample(load(op, t, ids), 1, false)));
        const samples: Sample[][] = per.map(() => []);
        for (let i = 0; i < rounds; i++) {
          const round = await Promise.all(per.map((t) => sample(load(op, t, ids), 1)));
          round.forEach((s, k) => samples[k]!.push(s));
        }
        const results = samples.map((s) => summarize(load(op, per[0]!, ids).expect, s));
        for (const r of results) if (r.problems.length) {
          problems++;
          console.error(`${n} instances ${op}: ${r.problems.join('; ')}`);
        }
        const total = results.reduce((sum, r) => sum + r.rps, 0);
        scaleRows.push([String(n), op, Math.round(total).toLocaleString('en'), results.map((r) => Math.round(r.rps).toLocaleString('en')).join(' + ')]);
      }
    }
    console.log('\nsvcspec instances on one PostgreSQL schema (2 cores shared by all of them, PostgreSQL and the load: the cores cap the sum)');
    console.log(textTable(['instances', 'operation', 'req/s, all', 'per instance'], scaleRows));
    return { name: 'postgres', ok: problems === 0 };
  } finally {
    await Promise.all(servers.map((s) => s.stop().catch(() => {})));
    for (const s of Object.values(schemas)) await admin.unsafe(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {});
    await admin.end({ timeout: 1 });
    await rm(dir, { recursive: true, force: true });
  }
}
