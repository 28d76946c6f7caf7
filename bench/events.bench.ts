/**
 * The events bench: what the outbox and webhook delivery (part 6, docs/events.md) cost the
 * writes, and how fast the events reach a subscriber while the API is under write load.
 *
 * One resource, two specs that differ in part 6 only (the bench checks it):
 *   bench/fixtures/items.yaml         events: none                         (the baseline)
 *   bench/fixtures/items-events.yaml  an `item.created` event carrying the record, webhooks
 *                                     with `subscriptions: api`, signed per Standard Webhooks
 * served by three svcspec processes (bench/servers/svcspec.ts: createApp on a SQLite file in
 * a temporary directory, durability normal, delivery at serve's defaults), each a child
 * process of its own:
 *   no events        items.yaml
 *   events, no sub   items-events.yaml, nobody subscribed: the outbox rows alone (and the
 *                    delivery worker finding no one to deliver them to)
 *   events + webhook items-events.yaml with one subscription, made through its API, to a
 *                    receiver on loopback (private webhooks allowed, as `serve
 *                    --allow-private-webhooks` does)
 * The receiver (bench/servers/receiver.ts) is a bare node:http server answering 204, in a
 * child process of its own: never on the event loop of the service nor of the load
 * generator. On a machine of two cores it still takes its share of the CPU from them, as a
 * receiver on the same host would; its CPU time per delivery is printed, so the share is seen.
 * The load generator, autocannon, runs here: creates (POST /items, the serve bench's body) on
 * 20 connections, pipelining 1, empty stores at the start.
 *
 * Before measuring: every server answers a create 201, the subscription is made, and one
 * event reaches the receiver, signed with the subscription's secret, carrying the record.
 *
 * Measured:
 *   1. Turns of 1 s, as the serve bench takes them: no events, events without a subscriber,
 *      events + webhook, again and again, after a 1 s warm-up each. After each turn of the
 *      webhook server the bench waits until the receiver has every event it committed
 *      (so delivery never runs during another server's turn), and notes the backlog when
 *      the load stopped and the time to drain it. Creates/s of each server, the ratio to
 *      the baseline's, and the targets (issue #20): the outbox alone at least 0.9x no events,
 *      events + webhook at least 0.5x; the server's CPU time per create, turns and drains together
 *      (from /proc, Linux), steadier than creates/s on a shared machine.
 *   2. Sustained: the webhook server alone under the same load for as long as all its turns
 *      together, then the backlog when the load stops and the time to drain it. A backlog
 *      grows with the length of the load when events are created faster than delivered.
 * Delivered events are counted at the receiver by distinct webhook-id (a retry repeats its
 * id); the events committed are read from the service's own event log: the bench opens the
 * webhook server's database through the store (before measuring) and only reads it
 * (`events.latest()`, and the dead deliveries at the end). Delivery is at least once:
 * duplicates are reported; a dead delivery, or an event committed that never arrives, makes
 * the bench fail, since the figures would then measure failures, not delivery.
 *
 * A missed target is reported, not failed. A server that does not start, an answer other than
 * 201, an event that does not arrive or arrives unsigned, or a drain in which nothing arrives
 * for 15 s, makes the bench fail: it did not measure what it says.
 *
 * SVCSPEC_BENCH_SECONDS  measured turns of 1 s per server (default 5), and the seconds of the
 *                        sustained load
 * SVCSPEC_BENCH_PROFILE  a directory: the three servers run with --cpu-prof, and the bench
 *                        prints where their time goes, per create (the webhook server's
 *                        includes its deliveries)
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite.ts';
import { cpuMs, startServer, type ServerProcess } from './support/children.ts';
import { summarizeProfile } from './support/cpuprofile.ts';
import { sample, summarize, type LoadOptions, type LoadResult, type Sample } from './support/load.ts';
import { CREATE_BODY } from './support/serve-checks.ts';
import { median, textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const WARMUP_SECONDS = 1;
const CONNECTIONS = 20;
/** Issue #20's targets: the outbox alone at least 0.9x of writes without events, one webhook subscriber at least 0.5x. */
const TARGETS = { outbox: 0.9, webhook: 0.5 } as const;
/** A drain in which no event arrives for this long is a delivery that does not work: the bench fails. */
const STALL_MS = 15_000;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SPEC = here('./fixtures/items.yaml');
const EVENTS_SPEC = here('./fixtures/items-events.yaml');
const SVCSPEC_SERVER = here('./servers/svcspec.ts');
const RECEIVER = here('./servers/receiver.ts');

type Kind = 'no events' | 'events, no sub' | 'events + webhook';

interface Server {
  readonly kind: Kind;
  readonly process: ServerProcess;
  readonly db: string;
  /** Its CPU profile's file, when profiled. */
  readonly profile?: string;
  warmups: Sample[];
  samples: Sample[];
  /** Server CPU time over its turns, and for the webhook server over the drains after them, in ms. */
  cpuMs?: number;
  result?: LoadResult;
}

/** One load of the webhook server and what followed it. */
interface Stretch {
  readonly seconds: number;
  readonly creates: number;
  /** Distinct events the receiver got while the load ran. */
  readonly deliveredUnderLoad: number;
  /** Events committed and not yet at the receiver when the load stopped. */
  readonly backlog: number;
  /** From the load's end until the receiver had every event committed, in ms. */
  readonly drainMs: number;
  /** CPU time of the service and of the receiver over the load and the drain, in ms. */
  readonly serviceCpuMs?: number;
  readonly receiverCpuMs?: number;
  /** Deliveries (retries included) the receiver answered over the load and the drain. */
  readonly deliveries: number;
}

interface ReceiverStats {
  readonly deliveries: number;
  readonly distinct: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const msText = (n: number) => `${n.toFixed(2)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const perText = (cpu: number | undefined, n: number) => (cpu === undefined || n === 0 ? '-' : `${((cpu * 1000) / n).toFixed(0)} µs`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/** The two fixtures are one spec but for part 6: anything else would be measured too. */
async function checkFixtures(): Promise<void> {
  const [plain, events] = await Promise.all([readFile(SPEC, 'utf8'), readFile(EVENTS_SPEC, 'utf8')]).then((texts) => texts.map((t) => parse(t) as Record<string, unknown>));
  const { events: none, ...restPlain } = plain!;
  const { events: given, ...restEvents } = events!;
  if (!isDeepStrictEqual(restPlain, restEvents)) throw new Error(`${EVENTS_SPEC} differs from ${SPEC} in more than its events`);
  if (!(none && typeof none === 'object' && 'none' in none) || !(given && typeof given === 'object' && 'webhooks' in given)) {
    throw new Error(`${SPEC} must say events: none, and ${EVENTS_SPEC} declare webhooks`);
  }
}

async function create(server: Server): Promise<string> {
  const response = await fetch(`${server.process.url}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CREATE_BODY) });
  const text = await response.text();
  const id = response.status === 201 ? (JSON.parse(text) as { id?: unknown }).id : undefined;
  if (typeof id !== 'string') throw new Error(`${server.kind}: POST /items answered ${response.status}: ${text.slice(0, 300)}`);
  return id;
}

/** Subscribes the receiver through the API; the subscription's id and secret. */
async function subscribe(server: Server, url: string): Promise<{ id: string; secret: string }> {
  const response = await fetch(`${server.process.url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['item.created'], description: 'events bench' }),
  });
  const text = await response.text();
  const body = response.status === 201 ? (JSON.parse(text) as { id?: unknown; secret?: unknown }) : {};
  if (typeof body.id !== 'string' || typeof body.secret !== 'string') throw new Error(`${server.kind}: POST /webhooks answered ${response.status}: ${text.slice(0, 300)}`);
  return { id: body.id, secret: body.secret };
}

/** Standard Webhooks, from the specification (as test/support/receiver.ts checks it): any `v1,` signature may match. */
function signed(secret: string, headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest();
  return String(headers['webhook-signature'] ?? '').split(' ').some((s) => {
    const [version, value] = s.split(',');
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function eventsBench(): Promise<BenchOutcome> {
  const rounds = Math.max(1, Math.round(Number(process.env.SVCSPEC_BENCH_SECONDS ?? 5)));
  const profileDir = process.env.SVCSPEC_BENCH_PROFILE ? resolve(process.env.SVCSPEC_BENCH_PROFILE) : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-events-bench-'));
  const processes: ServerProcess[] = [];
  let store: SqliteStore | undefined;
  try {
    await checkFixtures();
    if (profileDir) await mkdir(profileDir, { recursive: true });
    console.log(`three svcspec servers (SQLite file, durability normal) and a webhook receiver, each a process of its own; creates on ${CONNECTIONS} connections, pipelining 1; per server a ${WARMUP_SECONDS} s warm-up, then ${rounds} turns of 1 s in alternation, then ${rounds} s of sustained load on the webhook server`);

    const portLine = (line: string): number | undefined => {
      const m = /^\{"port":(\d+)\}$/.exec(line.trim());
      return m ? Number(m[1]) : undefined;
    };
    const startService = async (kind: Kind, name: string): Promise<Server> => {
      const db = join(dir, `${name}.db`);
      const spec = kind === 'no events' ? SPEC : EVENTS_SPEC;
      const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=events-${name}.cpuprofile`] : [];
      const process = await startServer({ name: `svcspec (${kind})`, args: [...profile, SVCSPEC_SERVER, spec, db, 'normal', ...(kind === 'events + webhook' ? ['--allow-private-webhooks'] : [])], readyFrom: portLine });
      processes.push(process);
      return { kind, process, db, ...(profileDir ? { profile: join(profileDir, `events-${name}.cpuprofile`) } : {}), warmups: [], samples: [] };
    };
    const started = await Promise.allSettled([
      startServer({ name: 'webhook receiver', args: [RECEIVER], readyFrom: portLine }).then((p) => (processes.push(p), p)),
      startService('no events', 'plain'),
      startService('events, no sub', 'outbox'),
      startService('events + webhook', 'webhook'),
    ] as const);
    const failed = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed.length) {
      for (const f of failed) console.error(`server failed to start: ${(f.reason as Error).message}`);
      return { name: 'events', ok: false };
    }
    const receiver = (started[0] as PromiseFulfilledResult<ServerProcess>).value;
    const servers = started.slice(1).map((s) => (s as PromiseFulfilledResult<Server>).value);
    const [plain, outbox, webhook] = servers as [Server, Server, Server];

    // Before measuring: creates answer 201, the subscription is made, one event arrives signed.
    let subscription: { id: string; secret: string };
    let createdSeq: number;
    try {
      for (const s of servers) await create(s);
      subscription = await subscribe(webhook, `${receiver.url}/hook`);
      store = await openSqliteStore({ path: webhook.db, durability: 'normal' });
      createdSeq = (await store.events.getSubscription(subscription.id))!.createdSeq;
      const id = await create(webhook);
      const first = await getJson<{ reachedAt: number | null }>(`${receiver.url}/wait?n=1&timeoutMs=10000`);
      if (first.reachedAt === null) throw new Error('no event reached the receiver within 10 s of a create');
      const last = await getJson<{ headers: Record<string, string>; body: string }>(`${receiver.url}/last`);
      const body = JSON.parse(last.body) as { type?: unknown; data?: { id?: unknown } };
      if (body.type !== 'item.created' || body.data?.id !== id) throw new Error(`the event the receiver got is not the create's: ${last.body.slice(0, 300)}`);
      if (!signed(subscription.secret, last.headers, last.body)) throw new Error(`the delivery is not signed with the subscription's secret: ${JSON.stringify(last.headers)}`);
    } catch (error) {
      console.error(`INVALID: ${(error as Error).message}`);
      return { name: 'events', ok: false };
    }

    const stats = () => getJson<ReceiverStats>(`${receiver.url}/stats`);
    /** The events the webhook server committed since the subscription, once the store stops moving (creates in flight when the load stopped). */
    const committed = async (): Promise<number> => {
      let seen = await store!.events.latest();
      for (let i = 0; i < 50; i++) {
        await sleep(20);
        const now = await store!.events.latest();
        if (now === seen) break;
        seen = now;
      }
      return seen - createdSeq;
    };

    const body = JSON.stringify(CREATE_BODY);
    const options = (s: Server): LoadOptions => ({ url: s.process.url, method: 'POST', path: () => '/items', body, headers: { 'content-type': 'application/json' }, expect: 201, connections: CONNECTIONS });
    /**
     * A load of the webhook server, then the wait until the receiver has every event it
     * committed: the backlog when the load stopped and the time it took to drain.
     */
    const loadAndDrain = async (seconds: number): Promise<{ sample: Sample; stretch: Stretch }> => {
      const before = await stats();
      const cpu0 = cpuMs(webhook.process.child.pid);
      const rcpu0 = cpuMs(receiver.child.pid);
      const s = await sample(options(webhook), seconds);
      const stopped = Date.now();
      const atStop = await stats();
      const due = await committed();
      // However long the drain, it must move: a stall is a delivery that does not work.
      let drained: { distinct: number; reachedAt: number | null };
      for (let progress = atStop.distinct; ; progress = drained.distinct) {
        drained = await getJson(`${receiver.url}/wait?n=${due}&timeoutMs=${STALL_MS}`);
        if (drained.reachedAt !== null) break;
        if (drained.distinct === progress) throw new Error(`delivery stalled: the receiver had ${drained.distinct} of the ${due} events committed, and got none in ${STALL_MS / 1000} s`);
      }
      if (drained.reachedAt === null) throw new Error('bug: the drain ended unreached');
      const after = await stats();
      const cpu1 = cpuMs(webhook.process.child.pid);
      const rcpu1 = cpuMs(receiver.child.pid);
      return {
        sample: s,
        stretch: {
          seconds: s.seconds,
          creates: s.statuses['201'] ?? 0,
          deliveredUnderLoad: atStop.distinct - before.distinct,
          backlog: Math.max(0, due - atStop.distinct),
          drainMs: Math.max(0, drained.reachedAt - stopped),
          ...(cpu0 !== undefined && cpu1 !== undefined ? { serviceCpuMs: cpu1 - cpu0 } : {}),
          ...(rcpu0 !== undefined && rcpu1 !== undefined ? { receiverCpuMs: rcpu1 - rcpu0 } : {}),
          deliveries: after.deliveries - before.deliveries,
        },
      };
    };

    // 1. Turns: the three servers a second each, so that whatever else the machine runs
    // weighs on all of them alike; delivery drained after each turn of the webhook server.
    const turns: Stretch[] = [];
    for (const s of servers) {
      if (s === webhook) s.warmups.push((await loadAndDrain(WARMUP_SECONDS)).sample);
      else s.warmups.push(await sample(options(s), WARMUP_SECONDS, false));
    }
    for (let round = 0; round < rounds; round++) {
      for (const s of servers) {
        if (s === webhook) {
          const { sample: measured, stretch } = await loadAndDrain(1);
          s.samples.push(measured);
          turns.push(stretch);
          if (stretch.serviceCpuMs !== undefined) s.cpuMs = (s.cpuMs ?? 0) + stretch.serviceCpuMs;
          continue;
        }
        const before = cpuMs(s.process.child.pid);
        s.samples.push(await sample(options(s), 1));
        const after = cpuMs(s.process.child.pid);
        if (before !== undefined && after !== undefined) s.cpuMs = (s.cpuMs ?? 0) + after - before;
      }
    }
    // 2. Sustained load on the webhook server alone.
    const sustained = await loadAndDrain(rounds);

    const problems: string[] = [];
    for (const s of servers) {
      s.result = summarize(201, s.samples, s.warmups);
      const alive = s.process.child.exitCode === null && s.process.child.signalCode === null;
      for (const p of [...s.result.problems, ...(alive ? [] : ['the server exited during the run'])]) problems.push(`${s.kind}: ${p}`);
    }
    const sustainedResult = summarize(201, [sustained.sample]);
    for (const p of sustainedResult.problems) problems.push(`events + webhook, sustained: ${p}`);
    const dead = await store.events.listDeliveries(subscription.id, { status: 'dead', limit: 1 });
    const final = await stats();
    const due = await committed();
    if (dead.length) problems.push(`deliveries died (${dead[0]!.lastError ?? `status ${dead[0]!.lastStatus}`}): the figures measure failed deliveries`);
    if (final.distinct !== due) problems.push(`the receiver has ${final.distinct} distinct events of the ${due} committed`);

    printWrites(plain, outbox, webhook);
    printDelivery(turns, sustained.stretch, sustainedResult, final.deliveries - final.distinct);

    if (problems.length) {
      console.error(`\nINVALID: these figures do not measure what they say:`);
      for (const p of problems) console.error(`  ${p}`);
      return { name: 'events', ok: false };
    }

    if (profileDir) {
      // The profiles are written when the servers exit; every create each served counts (checks, warm-ups, the sustained load).
      await Promise.all(servers.map((s) => s.process.stop()));
      for (const s of servers) {
        const creates = [...s.warmups, ...s.samples, ...(s === webhook ? [sustained.sample] : [])].reduce((n, x) => n + (x.statuses['201'] ?? 0), 0) + (s === webhook ? 2 : 1);
        console.log(`\n-- svcspec (${s.kind}), ${int(creates)} creates${s === webhook ? ' and their deliveries' : ''}`);
        console.log(summarizeProfile(s.profile!, { requests: creates, top: 20 }).text);
      }
    }
    return { name: 'events', ok: true };
  } catch (error) {
    console.error(`events bench failed: ${(error as Error).stack ?? String(error)}`);
    return { name: 'events', ok: false };
  } finally {
    await store?.close();
    await Promise.all(processes.map((p) => p.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

/** Creates/s with and without events: the target of the issue. */
function printWrites(plain: Server, outbox: Server, webhook: Server): void {
  const base = plain.result!;
  const rows = [plain, outbox, webhook].map((s) => {
    const r = s.result!;
    const target = s === outbox ? TARGETS.outbox : s === webhook ? TARGETS.webhook : undefined;
    return [s.kind, int(r.rps), msText(r.p50Ms), msText(r.p99Ms), perText(s.cpuMs, r.responses), ratio(r.rps, base.rps), target === undefined ? '-' : `${target}x`, target === undefined ? '-' : r.rps / base.rps >= target ? 'PASS' : 'MISS'];
  });
  console.log();
  console.log(textTable(['server', 'creates/s', 'p50', 'p99', 'CPU/create', 'x no events', 'target', 'verdict'], rows));
  const r = webhook.result!.rps / base.rps;
  const o = outbox.result!.rps / base.rps;
  console.log(`\nwrites with events against writes without: the outbox alone (nobody subscribed) ${o.toFixed(2)}x, ${o >= TARGETS.outbox ? 'PASS' : 'MISS'} (target ${TARGETS.outbox}x); one webhook subscriber ${r.toFixed(2)}x, ${r >= TARGETS.webhook ? 'PASS' : 'MISS'} (target ${TARGETS.webhook}x)`);
  console.log('CPU/create: the server process\'s CPU time per create (user + system, /proc); for events + webhook it includes the delivery of the events, drains after the turns too.');
}

/** Events delivered under load, the backlog when it stops, and the drain. */
function printDelivery(turns: readonly Stretch[], sustained: Stretch, sustainedResult: LoadResult, duplicates: number): void {
  const row = (name: string, stretches: readonly Stretch[], createsPerSecond: number): string[] => {
    const seconds = stretches.reduce((n, s) => n + s.seconds, 0);
    const delivered = stretches.reduce((n, s) => n + s.deliveredUnderLoad, 0);
    const backlog = median(stretches.map((s) => s.backlog));
    const drainMs = median(stretches.map((s) => s.drainMs));
    const drainedPerSecond = stretches.reduce((n, s) => n + s.backlog, 0) / (stretches.reduce((n, s) => n + s.drainMs, 0) / 1000);
    const deliveries = stretches.reduce((n, s) => n + s.deliveries, 0);
    const receiverCpu = stretches.every((s) => s.receiverCpuMs !== undefined) ? stretches.reduce((n, s) => n + s.receiverCpuMs!, 0) : undefined;
    const serviceCpu = stretches.every((s) => s.serviceCpuMs !== undefined) ? stretches.reduce((n, s) => n + s.serviceCpuMs!, 0) : undefined;
    const creates = stretches.reduce((n, s) => n + s.creates, 0);
    return [
      name,
      int(createsPerSecond),
      int(delivered / seconds),
      ratio(delivered / seconds, createsPerSecond),
      int(backlog),
      `${int(drainMs)} ms`,
      Number.isFinite(drainedPerSecond) ? int(drainedPerSecond) : '-',
      perText(serviceCpu, creates),
      perText(receiverCpu, deliveries),
    ];
  };
  const turnSeconds = turns.reduce((n, s) => n + s.seconds, 0);
  const turnCreates = turns.reduce((n, s) => n + s.creates, 0);
  console.log();
  console.log('webhook delivery to a local receiver (204 at once), events + webhook server; backlog and drain: medians of the turns');
  console.log(textTable(
    ['load', 'creates/s', 'delivered/s under load', 'x creates', 'backlog at stop', 'drain', 'delivered/s draining', 'service CPU/event', 'receiver CPU/delivery'],
    [row(`turns of 1 s (${turns.length})`, turns, turnCreates / turnSeconds), row(`sustained ${sustained.seconds} s`, [sustained], sustainedResult.rps)],
  ));
  console.log(`\nbacklog at stop: events committed and not yet at the receiver when the load stopped; drain: until the receiver had the last of them. Duplicate deliveries (at least once): ${duplicates}.`);
}
