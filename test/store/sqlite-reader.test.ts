/**
 * The SQLite store's reader thread (src/store/sqlite-reader.ts) is scheduled in the background
 * on Linux: SCHED_IDLE at nice 19, that thread alone, so slow pages and counts take only the CPU
 * that requests leave (the lists bench measures what that keeps: reads beside a walk of the
 * slowest page). Read back from /proc, as the kernel holds it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { ReadDroppedError } from '../../src/store/sqlite-reader.ts';

const SCHED_IDLE = 5;

/** Each thread of this process by id: its scheduling policy and nice value (proc(5): /proc/pid/task/tid/stat, fields 41 and 19). */
function threads(): Map<number, { policy: number; nice: number }> {
  const out = new Map<number, { policy: number; nice: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the name, which may hold spaces: the third field is the first here.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), { policy: Number(f[41 - 3]), nice: Number(f[19 - 3]) });
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return out;
}

const why = process.platform !== 'linux' ? 'not Linux: the reader thread keeps the default scheduling there'
  : !['/usr/bin/chrt', '/bin/chrt'].some((p) => existsSync(p)) ? 'no chrt (util-linux or BusyBox) in /usr/bin or /bin: the reader thread stays at nice 19'
  : undefined;
if (why) console.log(`SKIPPED test/store/sqlite-reader.test.ts: ${why}`);

const dir = mkdtempSync(join(tmpdir(), 'svcspec-sqlite-reader-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the reader thread, and it alone, runs as SCHED_IDLE at nice 19', { skip: why }, async () => {
  const before = threads();
  assert.deepEqual([...before.values()].filter((t) => t.policy === SCHED_IDLE), [], 'no thread is in the background before the store reads off the main thread');
  const store = await openSqliteStore({ path: join(dir, 'db.sqlite') });
  try {
    await store.migrate([{ name: 'item', idField: 'id', indexes: ['n'] }]);
    for (let i = 0; i < 30; i++) await store.insert('item', { data: { n: i, u: i % 3 } });
    // `u` has no index: a filter on it may read the whole table, so the page is read on the reader thread.
    assert.equal((await store.list('item', { limit: 5, filter: { u: 1 } })).records.length, 5);
    // chrt sets the policy from outside, a moment after the thread starts.
    const idle = () => [...threads()].filter(([, t]) => t.policy === SCHED_IDLE);
    for (let waited = 0; idle().length === 0 && waited < 5000; waited += 20) await sleep(20);
    const [reader, ...others] = idle();
    assert.ok(reader, 'a thread is SCHED_IDLE');
    assert.deepEqual(others, [], 'one thread alone is SCHED_IDLE');
    assert.equal(before.has(reader[0]), false, 'it is a thread the store started');
    assert.equal(reader[1].nice, 19);
    // Every thread the process had keeps its scheduling (a process-wide setpriority would move them all).
    const now = threads();
    for (const [tid, was] of before) if (now.has(tid)) assert.deepEqual(now.get(tid), was, `thread ${tid}`);
    // And it still reads.
    assert.equal((await store.list('item', { limit: 20, filter: { u: 2 } })).records.length, 10);
  } finally {
    await store.close();
  }
});

test('a read whose request is gone by its turn is dropped, not run; the reads around it are', async () => {
  const store = await openSqliteStore({ path: join(dir, 'queue.sqlite') });
  try {
    await store.migrate([{ name: 'item', idField: 'id', indexes: ['n'] }]);
    for (let i = 0; i < 30; i++) await store.insert('item', { data: { n: i, u: i % 3 } });
    // Three pages asked for in one turn (a filter on `u`, which no index serves, reads on the
    // reader thread): the first goes to the thread, the other two wait for it on the main thread.
    const live = { abandoned: false };
    const gone = { abandoned: false };
    const first = store.list('item', { limit: 5, filter: { u: 1 }, work: live });
    const second = store.list('item', { limit: 5, filter: { u: 2 }, work: gone });
    const third = store.count('item', { filter: { u: 0 }, work: live });
    // The time-out answers the second request before its turn.
    gone.abandoned = true;
    assert.equal((await first).records.length, 5);
    await assert.rejects(second, ReadDroppedError);
    assert.equal(await third, 10);
    // A mark set after the read ran changes nothing: it is only looked at in the queue.
    const late = { abandoned: false };
    const read = store.list('item', { limit: 5, filter: { u: 2 }, work: late });
    const page = await read;
    late.abandoned = true;
    assert.equal(page.records.length, 5);
  } finally {
    await store.close();
  }
});
