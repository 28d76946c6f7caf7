/**
 * Several `svcspec serve` instances on one PostgreSQL schema, as real child processes on
 * loopback ports, behind a round-robin client (issue #18): rate limits are shared by all of
 * them (in PostgreSQL, or in Redis with --redis), an event written through one reaches a
 * stream on another, and the SIGKILL of one under writes loses no acknowledged write and
 * no event. Without PostgreSQL (or Redis) the tests skip loudly; under CI=true they fail.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { describe, test, type TestContext } from 'node:test';
import { createParser } from 'eventsource-parser';
import { BIN, killAll, ROOT } from '../support/child-server.ts';
import { startReceiver } from '../support/receiver.ts';
import { freshSchemaUrl, postgresUnavailable, redisUnavailable, TEST_REDIS_URL } from '../support/postgres.ts';

const SPEC = `${ROOT}test/serve/fixtures/notes-scale.yaml`;
const unavailable = await postgresUnavailable('the scale-out tests: three serve instances on one PostgreSQL schema (test/serve/scale-out.test.ts)');
const noRedis = unavailable ? undefined : await redisUnavailable('the shared rate limit in Redis (test/serve/scale-out.test.ts)');

/**
 * The base URL a starting instance prints. Three start at once on a machine whose 2 cores
 * other runs share: more time than test/support's 30 s is allowed before calling it a failure.
 */
function serving(child: ChildProcess): Promise<string> {
  let err = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start within 120 s:\n${err}`));
    }, 120_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /serving .* at (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${err}`));
    });
  });
}

interface Trio {
  readonly urls: string[];
  readonly children: ChildProcess[];
  /** The next instance's base URL, round robin. */
  next(): string;
}

/** Three instances started at once on one new schema (their migrations race under the advisory lock). */
async function trio(t: TestContext, extra: readonly string[] = [], spec = SPEC, db = freshSchemaUrl()): Promise<Trio> {
  const children: ChildProcess[] = [];
  t.after(() => killAll(children));
  const urls = await Promise.all([0, 1, 2].map(async () => {
    const child = spawn(process.execPath, [BIN, 'serve', spec, '--db', db, '--port', '0', '--quiet', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    return serving(child);
  }));
  let i = 0;
  return { urls, children, next: () => urls[i++ % urls.length] };
}

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function burst(t: Trio, n: number): Promise<number[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => fetch(`${t.next()}/pings`, json({ n: i })).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  })));
}

interface StreamEvent {
  readonly id: string;
  readonly event: string;
  readonly data: { readonly id?: unknown; readonly text?: string };
}

/** Follows a stream; `until` resolves once the events read satisfy a condition (checked at once and at every event). */
async function follow(t: TestContext, url: string, headers: Record<string, string> = {}): Promise<{ events: StreamEvent[]; until(condition: (events: readonly StreamEvent[]) => boolean): Promise<void> }> {
  const controller = new AbortController();
  t.after(() => controller.abort());
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  assert.equal(response.status, 200);
  const events: StreamEvent[] = [];
  const waiting = new Set<() => void>();
  const parser = createParser({
    onEvent: (e) => {
      events.push({ id: e.id ?? '', event: e.event ?? 'message', data: JSON.parse(e.data) as StreamEvent['data'] });
      for (const w of waiting) w();
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // Aborted at the end of the test.
    }
  })();
  return {
    events,
    until: (condition) => new Promise<void>((resolve) => {
      const check = () => {
        if (!condition(events)) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    }),
  };
}

describe('three instances on one PostgreSQL schema', { skip: unavailable ?? false }, () => {
  test('a burst spread across the three admits exactly the limit (counted in PostgreSQL)', { timeout: 240_000 }, async (t) => {
    const three = await trio(t);
    const statuses = await burst(three, 60);
    assert.equal(statuses.filter((s) => s === 201).length, 30, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 429).length, 30);
    // Nothing but the limit was refused, and what was admitted was written once.
    const listed = await (await fetch(`${three.next()}/pings?limit=100`)).json() as { items?: unknown[]; data?: unknown[] };
    assert.equal((listed.items ?? listed.data ?? (listed as unknown as unknown[])).length, 30);
  });

  test('an event written through one instance reaches a stream on another, woken by NOTIFY (the heartbeat poll is 10 minutes away)', { timeout: 240_000 }, async (t) => {
    const [a, b] = (await trio(t)).urls;
    // The stream starts at the end of the log once its answer's head is sent: opened before the write.
    const stream = await follow(t, `${b}/events`);
    const r = await fetch(`${a}/notes`, json({ text: 'written on a' }));
    assert.equal(r.status, 201);
    const created = String(((await r.json()) as { id: unknown }).id);
    await stream.until((events) => events.some((e) => String(e.data.id) === created));
    const mine = stream.events.find((e) => String(e.data.id) === created);
    assert.equal(mine?.event, 'note.created');
    assert.equal(mine?.data.text, 'written on a');
  });

  test('SIGKILL of one instance under writes loses no acknowledged write and no event', { timeout: 300_000 }, async (t) => {
    const three = await trio(t);
    const victim = three.children[2];
    const acknowledged: string[] = [];
    let failed = 0;
    let sent = 0;
    const TOTAL = 150;
    const worker = async () => {
      while (sent < TOTAL) {
        const n = sent++;
        // Kill the third instance once a third of the writes are through: some of its writes are in flight.
        if (n === TOTAL / 3) victim.kill('SIGKILL');
        try {
          const r = await fetch(`${three.next()}/notes`, json({ text: `note ${n}` }));
          const body = (await r.json()) as { id?: unknown };
          if (r.status === 201) acknowledged.push(String(body.id));
          else failed++;
        } catch {
          // The killed instance: connection refused or reset. Not acknowledged, so nothing is promised.
          failed++;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assert.ok(victim.signalCode === 'SIGKILL' || victim.exitCode !== null, 'the third instance was killed');
    assert.ok(failed > 0, 'some writes went to the killed instance');
    assert.ok(acknowledged.length >= TOTAL / 2, `acknowledged ${acknowledged.length}`);
    // Every acknowledged write is there, read through a surviving instance…
    const [a, b] = three.urls;
    for (const id of acknowledged) assert.equal((await fetch(`${a}/notes/${id}`)).status, 200, `note ${id} was acknowledged and lost`);
    // …and its event is in the log, read from the start through the other survivor.
    const stream = await follow(t, `${b}/events`, { 'last-event-id': 'evt_0' });
    const want = new Set(acknowledged);
    await stream.until((events) => {
      for (const e of events) want.delete(String(e.data.id));
      return want.size === 0;
    });
    assert.equal(want.size, 0, `events of acknowledged writes missing: ${[...want].join(', ')}`);
    assert.ok(stream.events.every((e) => e.event === 'note.created'));
  });
});

describe('webhook deliveries by three instances', { skip: unavailable ?? false }, () => {
  test('SIGKILL of one instance under writes and deliveries: every acknowledged write is delivered at least once, by the others', { timeout: 300_000 }, async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const db = freshSchemaUrl();
    // The subscription is the operator's, made in the database before the instances start.
    const added = spawnSync(process.execPath, [BIN, 'webhooks', 'add', '--spec', SPEC, '--db', db, '--url', receiver.url, '--allow-private'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(added.status, 0, added.stderr);
    const three = await trio(t, ['--allow-private-webhooks'], SPEC, db);
    const victim = three.children[2]!;
    const acknowledged: string[] = [];
    for (let n = 0; n < 60; n++) {
      if (n === 30) victim.kill('SIGKILL');
      try {
        const r = await fetch(`${three.next()}/notes`, json({ text: `note ${n}` }));
        if (r.status === 201) acknowledged.push(String(((await r.json()) as { id: unknown }).id));
      } catch {
        // The killed instance: not acknowledged.
      }
    }
    assert.ok(acknowledged.length >= 40, `acknowledged ${acknowledged.length}`);
    const want = new Set(acknowledged);
    const delivered = () => {
      for (const d of receiver.received) want.delete(String((JSON.parse(d.body) as { data?: { id?: unknown } }).data?.id));
      return want.size === 0;
    };
    // Deliveries the killed instance had claimed are attempted again once their lease (the 1 s time-out) runs out.
    for (let i = 0; i < 300 && !delivered(); i++) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(want.size, 0, `acknowledged writes never delivered: ${[...want].join(', ')}`);
    // At least once: a delivery attempted twice keeps its webhook-id, so a receiver can tell.
    const ids = receiver.received.map((d) => d.headers['webhook-id']);
    assert.ok(ids.every((id) => typeof id === 'string' && /^evt_\d+$/.test(id)));
  });
});

/** A round-robin HTTP proxy in front of the instances: each request goes to the next one. */
async function roundRobin(t: TestContext, urls: readonly string[]): Promise<string> {
  let i = 0;
  const server = createServer((req, res) => {
    const upstream = new URL(urls[i++ % urls.length]!);
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('svcspec test through three instances', { skip: unavailable ?? false }, () => {
  test('the conformance tester finds the three, behind a round-robin proxy, one service that keeps its spec', { timeout: 300_000 }, async (t) => {
    const spec = `${ROOT}test/serve/fixtures/notes.yaml`;
    const three = await trio(t, [], spec);
    const base = await roundRobin(t, three.urls);
    // Run asynchronously: the proxy answers from this process, which a spawnSync would block.
    const child = spawn(process.execPath, [BIN, 'test', spec, '--base-url', base, '--seed', '7'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const r = { status, stdout, stderr };
    assert.equal(r.status, 0, `svcspec test failed through the three instances:\n${r.stdout}\n${r.stderr}`);
  });
});

describe('three instances sharing their rate limits in Redis', { skip: unavailable ?? noRedis ?? false }, () => {
  test('a burst spread across the three admits exactly the limit (counted in Redis)', { timeout: 240_000 }, async (t) => {
    const three = await trio(t, ['--redis', TEST_REDIS_URL]);
    const statuses = await burst(three, 60);
    assert.equal(statuses.filter((s) => s === 201).length, 30, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 429).length, 30);
  });
});
