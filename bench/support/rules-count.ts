/**
 * One service of the rules bench (bench/rules.bench.ts), for counting under callgrind rather
 * than timing: SERVICE=rules|stripped serves library.yaml as written or stripped, makes
 * MEMBERS members, LOANS loans and APPROVALS approvals over loopback HTTP, 8 at a time, and
 * exits. Instructions per operation are the difference of two runs that differ in one count
 * (APPROVALS 300 and 1200: the cost of 900 approvals after 300), so start-up and set-up cancel:
 *
 *   valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=out.%p \
 *     node bench/support/rules-count.ts
 *
 * With CPU=1 it prints, per request over the second half of the loan creates and of the
 * approvals, the process's CPU time and its write calls and bytes (/proc/self/io: the
 * database's and the HTTP exchange's; not under callgrind): counts a loaded machine moves less
 * than wall time.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../../src/load/index.ts';
import { createApp } from '../../src/serve/app.ts';
import type { Spec } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders } from '../../test/serve/support/credentials.ts';
import { stripRules } from '../rules.bench.ts';

const LIBRARY = fileURLToPath(new URL('../../examples/library.yaml', import.meta.url));
const n = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const MEMBERS = n('MEMBERS', 100);
const LOANS = n('LOANS', 1200);
const APPROVALS = n('APPROVALS', 300);

const loaded = await loadSpec(LIBRARY);
if (!loaded.value) throw new Error('library.yaml does not load');
const unlimited: Spec = { ...loaded.value, limits: { ...loaded.value.limits, rate: undefined } };
const spec = process.env.SERVICE === 'stripped' ? stripRules(unlimited) : unlimited;
const dir = await mkdtemp(join(tmpdir(), 'svcspec-rules-count-'));
const store = await openSqliteStore({ path: join(dir, 'db.sqlite') });
const app = await createApp({ spec, store });
const base = await app.listen({ port: 0, host: '127.0.0.1' });
const headers = await credentialHeaders(spec, store, { principal: 'desk' });
async function call(method: string, path: string, body: unknown, status: number): Promise<Record<string, unknown>> {
  const r = await fetch(base + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status !== status) throw new Error(`${method} ${path} answered ${r.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
async function run(count: number, request: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < count) await request(next++);
  }));
}
const books: string[] = [];
for (let b = 0; b < Math.ceil(LOANS / 500); b++) books.push((await call('POST', '/books', { title: 'T', authors: ['A'], copies: 500 }, 201)).id as string);
const members: unknown[] = [];
await run(MEMBERS, async (i) => members.push((await call('POST', '/members', { name: 'M', email: `m${i}@example.org`, pin: '1234', maxLoans: 50 }, 201)).id));
const loans: string[] = [];
/** /proc/self/io: write calls and bytes (files and sockets alike; Linux). */
function procIo(): { syscw: number; wchar: number } {
  const text = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { syscw: field('syscw'), wchar: field('wchar') };
}
/** CPU time of the process (all its threads) per request over the second half of a phase (the first half warms V8). */
async function timed(name: string, count: number, request: (i: number) => Promise<unknown>): Promise<void> {
  const half = Math.floor(count / 2);
  await run(half, request);
  const cpu = process.cpuUsage();
  const io = procIo();
  await run(count - half, (i) => request(half + i));
  const used = process.cpuUsage(cpu);
  const wrote = procIo();
  const n = count - half;
  if (process.env.CPU) console.log(`${process.env.SERVICE ?? 'rules'} ${name}: ${((used.user + used.system) / n).toFixed(1)} µs CPU a request (user ${(used.user / n).toFixed(1)}); write calls ${((wrote.syscw - io.syscw) / n).toFixed(2)}, KiB written ${((wrote.wchar - io.wchar) / n / 1024).toFixed(2)} a request (the HTTP exchange's included)`);
}
await timed('loan create', LOANS, async (i) => loans.push((await call('POST', '/loans', { book: books[i % books.length], member: members[i % members.length], dueDate: '2027-01-01' }, 201)).id as string));
await timed('approval', APPROVALS, (i) => call('POST', `/loans/${loans[i]}/approve`, { dueDate: '2027-02-01' }, 200));
await app.close();
await store.close();
await rm(dir, { recursive: true, force: true });
