/**
 * The SQLite store's reader thread (src/store/sqlite-reader.ts) is scheduled in the background
 * on Linux: SCHED_IDLE at nice 19, that thread alone, so slow pages take only the CPU that
 * requests leave (the lists bench measures what that keeps: reads beside a walk of the
 * slowest page). Read back from /proc, as the kernel holds it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite.ts';

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

/** Each thread of this process: its scheduling policy and nice value (proc(5): /proc/pid/task/tid/stat, fields 41 and 19). */
function threads(): { tid: number; policy: number; nice: number }[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the name, which may hold spaces: the third field is the first here.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { tid: Number(tid), policy: Number(f[41 - 3]), nice: Number(f[19 - 3]) };
  });
}

const why = process.platform !== 'linux' ? 'not Linux: the reader thread keeps the default scheduling there' : spawnSync('chrt', ['--version']).error ? 'no chrt (util-linux) on this machine: the reader thread stays at nice 19' : undefined;
if (why) console.log(`SKIPPED test/store/sqlite-reader.test.ts: ${why}`);

const dir = mkdtempSync(join(tmpdir(), 'svcspec-sqlite-reader-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the reader thread runs as SCHED_IDLE at nice 19, and the rest of the process as before', { skip: why }, async () => {
  assert.deepEqual(threads().filter((t) => t.policy === SCHED_IDLE), [], 'no thread is in the background before the store reads off the main thread');
  const store = await openSqliteStore({ path: join(dir, 'db.sqlite') });
  try {
    await store.migrate([{ name: 'item', idField: 'id', indexes: ['n'] }]);
    for (let i = 0; i < 30; i++) await store.insert('item', { data: { n: i, u: i % 3 } });
    // `u` has no index: a filter on it may read the whole table, so the page is read on the reader thread.
    assert.equal((await store.list('item', { limit: 5, filter: { u: 1 } })).records.length, 5);
    // chrt sets the policy from outside, a moment after the thread starts.
    let idle = threads().filter((t) => t.policy === SCHED_IDLE);
    for (let waited = 0; idle.length === 0 && waited < 5000; waited += 20) {
      await sleep(20);
      idle = threads().filter((t) => t.policy === SCHED_IDLE);
    }
    assert.equal(idle.length, 1, 'one thread, the reader, is SCHED_IDLE');
    assert.equal(idle[0].nice, 19);
    const main = threads().find((t) => t.tid === process.pid);
    assert.deepEqual(main && { policy: main.policy, nice: main.nice }, { policy: SCHED_OTHER, nice: 0 }, 'the main thread keeps its scheduling');
    // And it still reads.
    assert.equal((await store.list('item', { limit: 20, filter: { u: 2 } })).records.length, 10);
  } finally {
    await store.close();
  }
});
