/**
 * A reader thread of the SQLite adapter: list statements that may read much of a table run
 * here, on a connection of their own in a worker thread, so the event loop keeps serving
 * every other request meanwhile. `node:sqlite` is synchronous: a statement run on the main
 * thread stops the whole service until it returns. In WAL mode a reader never blocks the
 * writer nor waits for it (https://sqlite.org/wal.html#concurrency): the thread reads the
 * last committed state, as the main connection would.
 *
 * One thread, started on first use, scheduled in the background on Linux (SCHED_IDLE, else
 * nice 19: the worker's comment says how and why); statements queue for it in order. A page is its one or
 * two statements (src/store/sqlite-list.ts, `rest`) in one read transaction, so both see
 * the same snapshot. The worker is code given as text (`eval`), plain JavaScript: it runs the
 * same from the TypeScript sources and from the built package.
 *
 * Which statements come here is the adapter's call (src/store/sqlite-queries.ts, `#inline`).
 */
import { Worker } from 'node:worker_threads';
import type { SQLInputValue } from 'node:sqlite';
import type { ListSql } from './sqlite-list.ts';

/** The worker, CommonJS (the form `eval` workers take). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
// Background scheduling for this thread alone, on Linux, where a thread has its own (elsewhere
// setpriority with pid 0 would lower the whole process). Nice 19 first; then SCHED_IDLE
// (sched(7)): the thread gets a sliver of a core that others keep busy (weight 3 against a
// normal thread's 1024) and gives way at once when another wakes, where a niced thread keeps
// the CPU to the end of its slice (EEVDF), a few ms that each waiting request pays. Node has
// no call for a policy: the system's chrt sets it, from outside, once (lowering one's own
// threads needs no rights). Its absolute path, not one found on PATH; short options, which
// util-linux's and BusyBox's both take. Without it, nice 19 stays.
if (process.platform === 'linux') {
  try { require('node:os').setPriority(19); } catch {}
  try {
    const fs = require('node:fs');
    const tid = fs.readlinkSync('/proc/thread-self').split('/').pop();
    const chrt = ['/usr/bin/chrt', '/bin/chrt'].find((p) => fs.existsSync(p));
    if (chrt && /^[0-9]+$/.test(tid)) require('node:child_process').execFile(chrt, ['-i', '-p', '0', tid], () => {});
  } catch {}
}
const db = new DatabaseSync(workerData.path, { timeout: workerData.busyTimeoutMs });
db.exec('PRAGMA query_only = 1');
const statements = new Map();
function prepared(sql) {
  let s = statements.get(sql);
  if (!s) {
    s = db.prepare(sql);
    s.setReturnArrays(true);
    if (statements.size >= 256) statements.delete(statements.keys().next().value);
    statements.set(sql, s);
  }
  return s;
}
parentPort.on('message', ({ id, sql, args, rest, want }) => {
  try {
    db.exec('BEGIN');
    try {
      let rows = prepared(sql).all(...args);
      if (rest && rows.length < want) {
        const more = prepared(rest.sql).all(...rest.args);
        rows = rows.concat(more.length > want - rows.length ? more.slice(0, want - rows.length) : more);
      }
      parentPort.postMessage({ id, rows });
    } finally {
      db.exec('COMMIT');
    }
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

type Row = readonly [seq: number, id: string, version: number, owner: string | null, data: string, live: string | null];

interface Pending {
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: Error) => void;
}

export class SqliteReader {
  readonly #path: string;
  readonly #busyTimeoutMs: number;
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(path: string, busyTimeoutMs: number) {
    this.#path = path;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /** The rows of a page, up to `want` (the limit and one more), read on the thread. */
  read(list: ListSql, want: number): Promise<Row[]> {
    const worker = (this.#worker ??= this.#start());
    const id = this.#next++;
    return new Promise<Row[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      const message: { id: number; sql: string; args: SQLInputValue[]; want: number; rest?: { sql: string; args: SQLInputValue[] } } = { id, sql: list.sql, args: list.args, want };
      if (list.rest) message.rest = { sql: list.rest.sql, args: list.rest.args };
      worker.postMessage(message);
      // While a page is being read, the thread keeps the process alive; idle, it does not.
      if (this.#pending.size === 1) worker.ref();
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#fail(new Error('the store is closed'));
    if (worker) await worker.terminate();
  }

  #start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: this.#path, busyTimeoutMs: this.#busyTimeoutMs } });
    worker.unref();
    worker.on('message', (m: { id: number; rows?: Row[]; error?: string }) => {
      const pending = this.#pending.get(m.id);
      if (!pending) return;
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) worker.unref();
      if (m.error !== undefined) pending.reject(new Error(m.error));
      else pending.resolve(m.rows!);
    });
    worker.on('error', (error) => {
      // The thread is gone (it could not open the file, say): its pages fail, the next starts a new one.
      if (this.#worker === worker) this.#worker = undefined;
      this.#fail(error);
    });
    return worker;
  }

  #fail(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(error);
  }
}
