/**
 * Group commit for the SQLite store: the inserts and updates that arrive in one turn of the
 * event loop are written in one transaction, committed (and, at synchronous=FULL, fsynced)
 * once; each write's promise settles only after that COMMIT returned, so "a write is
 * acknowledged only after it is committed" holds for every one of them.
 *
 * Why: a commit costs a WAL append of every page it touched and, at FULL, an fsync; both
 * are per transaction, not per row. Twenty concurrent creates that each commit alone pay
 * twenty fsyncs; batched, they pay one, and the table and index pages they share are
 * written once.
 *
 * When: the first queued write schedules the flush with setImmediate, the check phase of
 * the same turn. Requests are read in the poll phase before it, so every create whose body
 * arrived in this turn joins the batch; none waits for a timer. No timer phase lies between
 * a write queued from an I/O callback (where request handlers run) and its commit, so a
 * request's time-out (src/serve/limits/timeout.ts) cannot expire between the two. A write
 * queued from elsewhere (a timer, say) commits at the next check phase.
 *
 * Each queued work makes at most one write statement that can be refused, its first: a work
 * that fails there (a taken id, say) is undone by SQLite alone (the failing statement is
 * backed out, the transaction stays open), its promise is rejected, and the others commit.
 * What a work writes after it (a create's events) refuses nothing, and is undone by the work
 * itself should it fail all the same (./sqlite.ts #appendAfter), as are a create's managed
 * numbers; a work that writes more than that (rules that change other records, batches,
 * changes with rules or events) writes in a savepoint. An error that makes SQLite
 * roll back the whole transaction (I/O, disk full) fails every work written so far in it;
 * the rest start a new transaction. A failed COMMIT fails the whole batch, rolled back.
 */
import type { DatabaseSync } from 'node:sqlite';

/** Large batches gain nothing more and hold the write lock longer for other processes. */
const MAX_BATCH = 256;

interface Queued {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Done {
  readonly item: Queued;
  readonly value: unknown;
}

export class GroupCommit {
  readonly #db: DatabaseSync;
  #queue: Queued[] = [];
  #scheduled = false;
  readonly #flush = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Runs `work` inside the next group transaction; resolves with its result once committed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  /** Commits everything queued now (the store calls it before closing). */
  flush(): void {
    while (this.#queue.length > 0) {
      const batch = this.#queue.length <= MAX_BATCH ? this.#queue : this.#queue.slice(0, MAX_BATCH);
      this.#queue = batch === this.#queue ? [] : this.#queue.slice(MAX_BATCH);
      this.#commit(batch);
    }
  }

  #commit(batch: readonly Queued[]): void {
    const db = this.#db;
    let done: Done[] = [];
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const item of batch) {
      try {
        done.push({ item, value: item.work() });
      } catch (error) {
        item.reject(error);
        if (!db.isTransaction) {
          // SQLite rolled the transaction back: what was written in it is gone.
          for (const d of done) d.item.reject(error);
          done = [];
          try {
            db.exec('BEGIN IMMEDIATE');
          } catch (again) {
            for (const rest of batch.slice(batch.indexOf(item) + 1)) rest.reject(again);
            return;
          }
        }
      }
    }
    try {
      db.exec('COMMIT');
    } catch (error) {
      try {
        if (db.isTransaction) db.exec('ROLLBACK');
      } catch {
        // The COMMIT's error is the one to report.
      }
      for (const d of done) d.item.reject(error);
      return;
    }
    for (const d of done) d.item.resolve(d.value);
  }
}
