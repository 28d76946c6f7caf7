/**
 * A reader thread of the SQLite adapter: list statements that may read much of a table run
 * here, on a connection of their own in a worker thread, so the event loop keeps serving
 * every other request meanwhile. `node:sqlite` is synchronous: a statement run on the main
 * thread stops the whole service until it returns. In WAL mode a reader never blocks the
 * writer nor waits for it (https://sqlite.org/wal.html#concurrency): the thread reads the
 * last committed state, as the main connection would.
 *
 * One thread, started on first use, scheduled in the background on Linux (SCHED_IDLE, else
 * nice 19: the worker's comment says how and why); statements queue for it in order, on the
 * main thread, and one whose request is gone by its turn is dropped (SqliteReader). A page is its one or
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

interface Message {
  readonly id: number;
  readonly sql: string;
  readonly args: SQLInputValue[];
  readonly want: number;
  readonly rest?: { readonly sql: string; readonly args: SQLInputValue[] };
}

interface Pending {
  readonly message: Message;
  /** The asking request's mark (store.ts ListQuery `work`): once `abandoned`, the read is not run. */
  readonly work: { readonly abandoned: boolean } | undefined;
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: Error) => void;
}

/** The error of a read dropped from the queue because its request is gone; nobody is left to see it. */
export class ReadDroppedError extends Error {
  constructor() {
    super('the read was dropped: the request that asked for it is gone');
  }
}

/**
 * The reads queue here, on the main thread, and the thread is given one at a time: a read
 * whose request is gone by its turn (the request time-out answered it) is dropped, not run.
 * With the thread in the background (see the worker), reads may wait long behind each other
 * on a busy machine; queued in the thread itself they could not be taken back.
 */
export class SqliteReader {
  readonly #path: string;
  readonly #busyTimeoutMs: number;
  #worker: Worker | undefined;
  #next = 0;
  /** Waiting for the thread, in order. */
  readonly #queue: Pending[] = [];
  /** On the thread now. */
  #running: Pending | undefined;

  constructor(path: string, busyTimeoutMs: number) {
    this.#path = path;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /** The rows of a page, up to `want` (the limit and one more), read on the thread; not read at all if `work` is abandoned by its turn. */
  read(list: ListSql, want: number, work?: { readonly abandoned: boolean }): Promise<Row[]> {
    const message: Message = { id: this.#next++, sql: list.sql, args: list.args, want, ...(list.rest ? { rest: { sql: list.rest.sql, args: list.rest.args } } : {}) };
    return new Promise<Row[]>((resolve, reject) => {
      this.#queue.push({ message, work, resolve, reject });
      if (this.#running === undefined) this.#pump();
    });
  }

  /** How many reads wait for the thread, the one on it not counted. */
  get queued(): number {
    return this.#queue.length;
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#fail(new Error('the store is closed'));
    if (worker) await worker.terminate();
  }

  /** Gives the thread the next read whose request is still there; the ones gone are dropped. */
  #pump(): void {
    let next = this.#queue.shift();
    while (next?.work?.abandoned === true) {
      next.reject(new ReadDroppedError());
      next = this.#queue.shift();
    }
    this.#running = next;
    if (!next) {
      // Idle, the thread does not keep the process alive; while it reads, it does.
      this.#worker?.unref();
      return;
    }
    const worker = (this.#worker ??= this.#start());
    worker.ref();
    worker.postMessage(next.message);
  }

  #start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: this.#path, busyTimeoutMs: this.#busyTimeoutMs } });
    worker.unref();
    worker.on('message', (m: { id: number; rows?: Row[]; error?: string }) => {
      const running = this.#running;
      if (running === undefined || running.message.id !== m.id) return;
      this.#running = undefined;
      if (m.error !== undefined) running.reject(new Error(m.error));
      else running.resolve(m.rows!);
      this.#pump();
    });
    worker.on('error', (error) => {
      // The thread is gone (it could not open the file, say): its pages fail, the next starts a new one.
      if (this.#worker === worker) this.#worker = undefined;
      this.#fail(error);
    });
    return worker;
  }

  #fail(error: Error): void {
    const failed = [...(this.#running ? [this.#running] : []), ...this.#queue.splice(0)];
    this.#running = undefined;
    for (const p of failed) p.reject(error);
  }
}
