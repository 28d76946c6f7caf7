/**
 * The lists bench (issue #20): a page of 20 of the serve bench's item resource
 * (bench/fixtures/items.yaml) at 10k, 100k and 1M records, through the store as the service
 * uses it (the spec's table layout: an index per field a list filters or sorts by). The
 * records are written straight into the table through node:sqlite, in one transaction, and
 * the indexes built after (what migrate builds), so a million records take seconds.
 *
 * Pages, each the median of 5 rounds' p50s, the sizes taking turns in each round:
 *   filter, 1 match       ?sku=<one record's>
 *   sort=price            the first page
 *   sort=price, deep      the page after the middle record, by cursor (keyset)
 *   sort=-price, deep     the same, descending
 *   range filter          ?price[gte]=…&price[lt]=… (the `filters` operators), in price order
 *   category + sort=price a filter on one field and a sort on another: only one index
 *                         serves it (the planner picks one); listed for honesty, no target
 * Target: each page at 1M records within 2x of the same page at 10k.
 *
 * Then, at the largest size, over HTTP (the service in a child process, bench/servers/
 * svcspec.ts): reads by id (10 connections) alone, and while one client walks the slowest
 * page the spec allows, `?category=garden&sort=price` following each page's next link, in
 * turns of 1 s. Target: the reads keep at least half their throughput (issue #20: before,
 * such a walk took reads at 1M records from about 14,000 req/s to 3-6).
 *
 * SVCSPEC_BENCH_LIST_SIZES  record counts, comma-separated (default 10000,100000,1000000)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../src/load/index.ts';
import { createContext } from '../src/serve/context.ts';
import { tableLayouts } from '../src/serve/list-query.ts';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite.ts';
import type { ListQuery, TableLayout } from '../src/store/store.ts';
import { startServer } from './support/children.ts';
import { sample, summarize, type Sample } from './support/load.ts';
import { median, textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const SPEC = fileURLToPath(new URL('./fixtures/items.yaml', import.meta.url));
const PAGE = 20;
const TARGET = 2;
const ROUNDS = 5;
const CATEGORIES = ['tools', 'garden', 'kitchen', 'toys'];

/** A sku per record, unique up to 17.5M records, of the spec's pattern ^[A-Z]{3}-[0-9]{4}$. */
function sku(i: number): string {
  const block = Math.floor(i / 10_000);
  const letters = String.fromCharCode(65 + (block % 26), 65 + (Math.floor(block / 26) % 26), 65 + (Math.floor(block / 676) % 26));
  return `${letters}-${String(i % 10_000).padStart(4, '0')}`;
}

/** Writes n records into the item table as the store keeps them, in one transaction. */
function fill(path: string, n: number): void {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA synchronous = OFF');
  const insert = db.prepare('INSERT INTO res_item (seq, id, version, owner, data) VALUES (?, ?, 1, NULL, ?)');
  let state = 0x5eed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  db.exec('BEGIN');
  for (let i = 1; i <= n; i++) {
    const data = { name: `item ${i}`, sku: sku(i), price: Math.round(random() * 100_000) / 100, quantity: Math.floor(random() * 1000), category: CATEGORIES[i % 4], tags: ['red'], releasedOn: '2024-05-01' };
    insert.run(i, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, JSON.stringify(data));
  }
  db.exec('COMMIT');
  db.close();
}

interface Case {
  readonly label: string;
  readonly target: boolean;
  readonly query: (n: number, mid: { price: number; seq: number }) => ListQuery;
}

const CASES: readonly Case[] = [
  { label: 'filter, 1 match', target: true, query: (n) => ({ filter: { sku: sku(Math.floor(n / 2)) }, limit: PAGE }) },
  { label: 'sort=price', target: true, query: () => ({ sort: [{ field: 'price', direction: 'asc' }], limit: PAGE }) },
  { label: 'sort=price, deep', target: true, query: (_, mid) => ({ sort: [{ field: 'price', direction: 'asc' }], after: { values: [mid.price], seq: mid.seq }, limit: PAGE }) },
  { label: 'sort=-price, deep', target: true, query: (_, mid) => ({ sort: [{ field: 'price', direction: 'desc' }], after: { values: [mid.price], seq: mid.seq }, limit: PAGE }) },
  { label: 'price range, by price', target: true, query: () => ({ filters: [{ field: 'price', op: 'gte', value: 250 }, { field: 'price', op: 'lt', value: 750 }], sort: [{ field: 'price', direction: 'asc' }], limit: PAGE }) },
  { label: 'category + sort=price', target: false, query: () => ({ filter: { category: 'garden' }, sort: [{ field: 'price', direction: 'asc' }], limit: PAGE }) },
];

/** The p50 of a page in ms: runs for about 0.1 s (at least 5 runs, at most 1,000). */
async function p50(store: SqliteStore, query: ListQuery): Promise<number> {
  await store.list('item', query);
  const samples: number[] = [];
  const until = performance.now() + 100;
  while (samples.length < 1000 && (samples.length < 5 || performance.now() < until)) {
    const start = performance.now();
    const page = await store.list('item', query);
    samples.push(performance.now() - start);
    if (page.records.length === 0) throw new Error(`a page of '${JSON.stringify(query)}' is empty: the bench measures nothing`);
  }
  return median(samples);
}

export async function listsBench(): Promise<BenchOutcome> {
  const sizes = (process.env.SVCSPEC_BENCH_LIST_SIZES ?? '10000,100000,1000000').split(',').map(Number);
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 100)) {
    console.error('SVCSPEC_BENCH_LIST_SIZES: give record counts of at least 100, comma-separated');
    return { name: 'lists', ok: false };
  }
  const spec = (await loadSpec(SPEC)).value!;
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-lists-bench-'));
  const results = new Map<string, number[]>();
  let stall: string | undefined;
  const opened: { n: number; path: string; store: SqliteStore; mid: { price: number; seq: number } }[] = [];
  try {
    for (const n of sizes) {
      const path = join(dir, `items-${n}.db`);
      const started = performance.now();
      // The table first, bare; the records; then migrate builds the spec's indexes over them.
      const bare = await openSqliteStore({ path, durability: 'normal' });
      await bare.migrate(['item']);
      await bare.close();
      fill(path, n);
      const store = await openSqliteStore({ path, durability: 'normal' });
      const layouts: TableLayout[] = tableLayouts(createContext(spec, store));
      await store.migrate(layouts);
      const db = new DatabaseSync(path, { readOnly: true });
      const mid = db.prepare(`SELECT seq, json_extract(data, '$."price"') AS price FROM res_item ORDER BY json_extract(data, '$."price"'), seq LIMIT 1 OFFSET ?`).get(Math.floor(n / 2)) as { seq: number; price: number };
      db.close();
      opened.push({ n, path, store, mid });
      console.log(`  ${n.toLocaleString('en')} records written and indexed (${layouts.find((l) => l.name === 'item')?.indexes?.join(', ')}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    // The sizes take turns, a case at a time, ROUNDS times: a burst of load from elsewhere on
    // the machine weighs on all of them alike. Each figure is the median of its rounds' p50s.
    for (const c of CASES) {
      const rounds: number[][] = opened.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, o] of opened.entries()) rounds[i]!.push(await p50(o.store, c.query(o.n, o.mid)));
      }
      results.set(c.label, rounds.map(median));
    }
    for (const o of opened) await o.store.close();
    const largest = opened[opened.length - 1]!;
    stall = await stallFigures(largest.path, largest.n);
  } finally {
    for (const o of opened) await o.store.close();
    await rm(dir, { recursive: true, force: true });
  }
  const ms = (v: number) => (v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(1)} ms`);
  const rows = CASES.map((c) => {
    const values = results.get(c.label)!;
    const growth = values[values.length - 1]! / values[0]!;
    return [c.label, ...values.map(ms), `${growth.toFixed(2)}x`, c.target ? (growth <= TARGET ? 'PASS' : 'MISS') : '-'];
  });
  console.log();
  console.log(textTable(['page of 20 (p50, through the store)', ...sizes.map((n) => `${n.toLocaleString('en')}`), `${sizes[sizes.length - 1]!.toLocaleString('en')} / ${sizes[0]!.toLocaleString('en')}`, `<=${TARGET}x`], rows));
  const missed = rows.filter((r) => r[r.length - 1] === 'MISS');
  console.log(`pages at ${sizes[sizes.length - 1]!.toLocaleString('en')} records within ${TARGET}x of ${sizes[0]!.toLocaleString('en')}: ${rows.filter((r) => r[r.length - 1] !== '-').length - missed.length} of ${rows.filter((r) => r[r.length - 1] !== '-').length} PASS${missed.length ? ` (MISS on ${missed.map((r) => r[0]).join(', ')})` : ''}`);
  if (stall) console.log(`\n${stall}`);
  return { name: 'lists', ok: stall !== undefined };
}

const STALL_ROUNDS = 4;
const STALL_TARGET = 0.5;

/** Reads by id alone and beside a client walking the slowest page, over HTTP; the figures as text. */
async function stallFigures(path: string, n: number): Promise<string | undefined> {
  const server = await startServer({
    name: 'svcspec (lists)',
    args: [fileURLToPath(new URL('./servers/svcspec.ts', import.meta.url)), SPEC, path, 'normal'],
    readyFrom: (line) => Number(/^\{"port":(\d+)\}$/.exec(line.trim())?.[1]) || undefined,
  });
  try {
    const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const reads = { url: server.url, method: 'GET' as const, path: () => `/items/${id(1 + Math.floor(Math.random() * n))}`, expect: 200, connections: 10 };
    let walking = false;
    let pages = 0;
    let walkError: string | undefined;
    const walk = async () => {
      let next: string | undefined;
      while (walking) {
        const res = await fetch(`${server.url}${next ?? '/items?category=garden&sort=price'}`);
        if (res.status !== 200) walkError = `the walker got ${res.status}: ${await res.text()}`;
        await res.arrayBuffer().catch(() => undefined);
        pages++;
        next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1]?.replace(/^https?:\/\/[^/]+/, '');
      }
    };
    await sample(reads, 1, false);
    const alone: Sample[] = [];
    const beside: Sample[] = [];
    let walkSeconds = 0;
    for (let round = 0; round < STALL_ROUNDS; round++) {
      alone.push(await sample(reads, 1));
      walking = true;
      const walker = walk();
      const started = performance.now();
      beside.push(await sample(reads, 1));
      walking = false;
      await walker;
      walkSeconds += (performance.now() - started) / 1000;
    }
    if (walkError) {
      console.error(`INVALID: ${walkError}`);
      return undefined;
    }
    const a = summarize(200, alone);
    const b = summarize(200, beside);
    if (a.problems.length || b.problems.length) {
      console.error(`INVALID: ${[...a.problems, ...b.problems].join('; ')}`);
      return undefined;
    }
    const ratio = b.rps / a.rps;
    const ms = (v: number) => `${v.toFixed(2)} ms`;
    return [
      `reads by id at ${n.toLocaleString('en')} records, over HTTP (10 connections), alone and while one client walks ?category=garden&sort=price (the slowest page; ${(pages / walkSeconds).toFixed(1)} pages/s), ${STALL_ROUNDS} turns of 1 s each:`,
      textTable(['reads by id', 'req/s', 'p50', 'p99'], [
        ['alone', Math.round(a.rps).toLocaleString('en'), ms(a.p50Ms), ms(a.p99Ms)],
        ['beside the walk', Math.round(b.rps).toLocaleString('en'), ms(b.p50Ms), ms(b.p99Ms)],
      ]),
      `reads keep ${ratio.toFixed(2)}x of their throughput beside the walk (target >= ${STALL_TARGET}x): ${ratio >= STALL_TARGET ? 'PASS' : 'MISS'}`,
    ].join('\n');
  } finally {
    await server.stop();
  }
}
