/**
 * The rules bench (#14): what the domain rules cost on create and on a transition, as a
 * ratio to the same spec without them, measured in the same run.
 *
 * examples/library.yaml is served twice, in this process, over loopback HTTP, each on its
 * own SQLite file: as written (member: a unique email, a formatted sequence, managed time
 * stamps; loan: an onCreate with a count and three guards reading related records; approve:
 * a guard and an effect on the book), and "stripped": the same model with every unique,
 * rule, managed source, guard, count, effect and ref deletion dropped. Operations:
 *   member create    POST /members                 (uniqueness, sequence, time stamps)
 *   loan create      POST /loans                   (count + guards over refs, in the transaction)
 *   loan approve     POST /loans/{id}/approve      (guard + effect on the book)
 * Both run without the library's rate limits (they would measure the limiter).
 * Each runs CONCURRENCY requests at a time; the two services take turns of PER_TURN requests
 * (ABBA), so both see the same machine, and the median turn of each is compared. Printed: requests/s of each and the ratio; the target is a cost
 * of at most 15% (ratio >= 0.85). A miss is printed, not failed; a request answered with
 * anything but its success status fails the bench (it did not measure what it says).
 *
 * SVCSPEC_BENCH_RULES_N       requests per turn (default 50); 12 measured turns per service and operation
 * SVCSPEC_BENCH_RULES_WARMUP  unmeasured turns before them (default 24: V8 warms the rules' path)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../src/load/index.ts';
import { createApp } from '../src/serve/app.ts';
import type { Endpoint, Field, Resource, Spec, StateMachine } from '../src/spec/model.ts';
import { openSqliteStore } from '../src/store/sqlite.ts';
import { credentialHeaders } from '../test/serve/support/credentials.ts';
import { median, textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const LIBRARY = fileURLToPath(new URL('../examples/library.yaml', import.meta.url));
const PER_TURN = Number(process.env.SVCSPEC_BENCH_RULES_N ?? 50);
const TURNS = 12;
/**
 * Unmeasured turns first, per service and operation: V8 compiles the rules' path (the CEL
 * evaluator, the domain step) over the first ~1,000 requests, and a service serves far more
 * than that; without them the measured turns were mostly that warm-up (callgrind: 0.80x over
 * the first 300 approvals, 0.94x over the next 900).
 */
const WARMUP_TURNS = Number(process.env.SVCSPEC_BENCH_RULES_WARMUP ?? 24);
const CONCURRENCY = 8;
const TARGET = 0.85;

/** The same model with no domain rules: what the library would be without #14. */
export function stripRules(spec: Spec): Spec {
  const field = (f: Field): Field => {
    const { managed: _m, onDelete: _d, ...rest } = f;
    return rest;
  };
  const resource = (r: Resource): Resource => {
    const { onCreate: _c, onUpdate: _u, onDelete: _d, ...rest } = r;
    return { ...rest, unique: [], rules: [], fields: r.fields.map(field) };
  };
  const machine = (m: StateMachine): StateMachine => ({ ...m, transitions: m.transitions.map(({ rules: _r, ...t }) => t) });
  const endpoint = (e: Endpoint): Endpoint => {
    if (!e.action) return e;
    const { rules: _r, ...action } = e.action;
    return { ...e, action };
  };
  return { ...spec, resources: spec.resources.map(resource), states: spec.states.map(machine), endpoints: spec.endpoints.map(endpoint) };
}

interface Service {
  readonly name: string;
  readonly call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;
  readonly close: () => Promise<void>;
}

async function start(name: string, spec: Spec, dir: string): Promise<Service> {
  const store = await openSqliteStore({ path: join(dir, `${name}.sqlite`) });
  const app = await createApp({ spec, store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers = await credentialHeaders(spec, store, { principal: 'desk' });
  return {
    name,
    async call(method, path, body) {
      const r = await fetch(base + path, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : {} };
    },
    close: async () => { await app.close(); await store.close(); },
  };
}

/** Runs `n` requests, CONCURRENCY at a time; the time they took in ms. Throws on an unexpected status. */
async function run(n: number, request: (i: number) => Promise<{ status: number; body: unknown }>, status: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) {
      const i = next++;
      const r = await request(i);
      if (r.status !== status) throw new Error(`request ${i} answered ${r.status}, not ${status}: ${JSON.stringify(r.body)}`);
    }
  }));
  return performance.now() - start;
}

export async function rulesBench(): Promise<BenchOutcome> {
  const loaded = await loadSpec(LIBRARY);
  if (!loaded.value) {
    console.error('examples/library.yaml does not load');
    return { name: 'rules', ok: false };
  }
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-bench-rules-'));
  // The library's rate limits (30 loan requests a minute) would measure the limiter: both run without them.
  const unlimited: Spec = { ...loaded.value, limits: { ...loaded.value.limits, rate: undefined } };
  const services = [await start('rules', unlimited, dir), await start('stripped', stripRules(unlimited), dir)];
  // Per service, the turns' times of each operation; the services alternate a turn at a time
  // (ABBA), so a burst of load elsewhere on the machine falls on both, and the median turn is kept.
  const turns = new Map<string, number[]>();
  const members = new Map<string, number[]>();
  const loans = new Map<string, string[]>();
  const books = new Map<string, string[]>();
  let seq = 0;
  const alternate = async (op: string, request: (s: Service, i: number) => Promise<{ status: number; body: Record<string, unknown> }>, status: number) => {
    for (let turn = 0; turn < WARMUP_TURNS + TURNS; turn++) {
      const order = turn % 4 === 0 || turn % 4 === 3 ? services : [...services].reverse();
      for (const s of order) {
        const base = turn * PER_TURN;
        const took = await run(PER_TURN, (i) => request(s, base + i), status);
        if (turn >= WARMUP_TURNS) turns.set(`${s.name}:${op}`, [...(turns.get(`${s.name}:${op}`) ?? []), took]);
      }
    }
  };
  try {
    for (const s of services) {
      members.set(s.name, []);
      loans.set(s.name, []);
      // Books with a copy for every loan (500 copies each at most).
      const ids: string[] = [];
      for (let b = 0; b < Math.ceil(((WARMUP_TURNS + TURNS) * PER_TURN) / 500); b++) ids.push((await s.call('POST', '/books', { title: 'T', authors: ['A'], copies: 500 })).body.id as string);
      books.set(s.name, ids);
    }
    // Members with room for many loans (maxLoans 50), each loan of its own book-and-member pair.
    await alternate('member create', async (s) => {
      const r = await s.call('POST', '/members', { name: 'M', email: `m${seq++}@example.org`, pin: '1234', maxLoans: 50 });
      if (r.status === 201) members.get(s.name)!.push(r.body.id as number);
      return r;
    }, 201);
    await alternate('loan create', async (s, i) => {
      const list = members.get(s.name)!;
      const shelf = books.get(s.name)!;
      const r = await s.call('POST', '/loans', { book: shelf[i % shelf.length], member: list[i % list.length], dueDate: '2027-01-01' });
      if (r.status === 201) loans.get(s.name)!.push(r.body.id as string);
      return r;
    }, 201);
    await alternate('loan approve', (s, i) => s.call('POST', `/loans/${loans.get(s.name)![i]}/approve`, { dueDate: '2027-02-01' }), 200);
  } catch (error) {
    console.error(`the rules bench did not measure: ${(error as Error).message}`);
    return { name: 'rules', ok: false };
  } finally {
    for (const s of services) await s.close();
    await rm(dir, { recursive: true, force: true });
  }
  const rows: string[][] = [];
  const misses: string[] = [];
  for (const op of ['member create', 'loan create', 'loan approve']) {
    const rate = (name: string) => PER_TURN / (median(turns.get(`${name}:${op}`) ?? []) / 1000);
    const ratio = rate('rules') / rate('stripped');
    if (ratio < TARGET) misses.push(op);
    rows.push([op, rate('rules').toFixed(0), rate('stripped').toFixed(0), `${ratio.toFixed(2)}x`, `${((1 - ratio) * 100).toFixed(0)} %`]);
  }
  console.log(`library.yaml with its domain rules vs the same model without them; per operation ${WARMUP_TURNS} unmeasured turns, then ${TURNS} turns of ${PER_TURN} requests each, ${CONCURRENCY} at a time, the median turn; loopback HTTP, SQLite files`);
  console.log(textTable(['operation', 'rules req/s', 'stripped req/s', 'ratio', 'cost'], rows));
  console.log(misses.length ? `target missed (cost at most 15%): ${misses.join(', ')}` : 'target met: the rules cost at most 15% on each operation');
  return { name: 'rules', ok: true };
}
