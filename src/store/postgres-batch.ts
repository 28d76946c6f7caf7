/**
 * Group insert for the PostgreSQL store: the inserts without domain rules of a resource that
 * arrive in one turn of the event loop are written by one statement, committed once; each
 * insert's promise settles only after that COMMIT returned, so "a write is acknowledged only
 * after it is committed" holds for every one of them (with `synchronous_commit = on` the
 * COMMIT flushed the WAL). Without events the statement is its own transaction; with events,
 * the batch's events are appended in the same transaction (./postgres-events.ts).
 *
 * Why: a table with field indexes (one per field a list filters or sorts by) makes an insert
 * cost several index entries, and concurrent inserts of one resource all add to the same
 * right-most pages of those indexes (the sequence number closes every key), so N backends
 * inserting at once queue on those pages' locks. One backend writing the N rows takes each page
 * once, and pays one statement, one transaction and one WAL flush instead of N. With events
 * it pays most: appending events takes a lock held to COMMIT (their seqs in commit order), so
 * writers with events commit one at a time, and N of them in one transaction take it once.
 *
 * When: as src/store/sqlite-commit.ts, the first queued insert schedules the flush with
 * setImmediate, the check phase of the same turn, so every create whose body was read in this
 * turn's poll phase joins the batch and none waits for a timer. One insert alone is sent as
 * the single-row statement it always was.
 *
 * Failures stay each insert's own: the batch inserts `ON CONFLICT DO NOTHING`, so a taken id
 * or unique value skips its row instead of failing the others; each skipped insert is then
 * sent again alone, and the database refuses it with its own error (a DuplicateIdError or the
 * constraint's UniqueViolationError, as before). A batch that fails as a whole for another
 * reason (a value jsonb cannot hold) is sent again one insert at one time, each answered by its
 * own statement; one that fails because the database is gone fails every insert in it.
 * Sequence numbers a retried insert took in the batch are not reused (none ever is).
 */
import type { EventMaker } from './events.ts';
import type { NewRecord } from './store.ts';

/** Larger batches gain nothing more and make one statement's parameters large. */
const MAX_BATCH = 256;

export interface QueuedInsert {
  readonly id: string | null;
  readonly owner: string | null;
  /** The data as JSON text, taken when the insert was called. */
  readonly data: string;
  /** The events of the record written, appended in its transaction. */
  readonly events?: EventMaker;
}

export interface BatchWriter<R> {
  /** One insert alone: its record, or its own error. */
  one(resource: string, insert: QueuedInsert): Promise<R>;
  /** Several inserts in one statement; rejects only when the statement as a whole failed. */
  many(resource: string, inserts: readonly QueuedInsert[]): Promise<readonly (R | undefined)[]>;
  /** Whether a failure of `many` is the database being gone (nothing to retry alone). */
  lost(error: unknown): boolean;
}

interface Queued<R> {
  readonly insert: QueuedInsert;
  readonly resolve: (record: R) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupInsert<R> {
  readonly #writer: BatchWriter<R>;
  #queues = new Map<string, Queued<R>[]>();
  #scheduled = false;
  readonly #inFlight = new Set<Promise<void>>();
  /** Batches with events sent and not yet settled. */
  #withEvents = 0;
  readonly #flush = (): void => {
    this.#scheduled = false;
    this.#send(false);
  };

  constructor(writer: BatchWriter<R>) {
    this.#writer = writer;
  }

  /** Queues an insert for this turn's batch of its resource; resolves once it is committed. */
  add(resource: string, insert: QueuedInsert): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.#queues.get(resource);
      if (queue) queue.push({ insert, resolve, reject });
      else this.#queues.set(resource, [{ insert, resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  /** Sends everything queued now, a statement per resource (and per MAX_BATCH inserts). */
  flush(): void {
    this.#send(true);
  }

  /**
   * Sends the queues; unless `all`, a queue with events waits while a batch with events is on
   * its way. Those commit one at a time whatever is sent (the events lock, ./postgres-events.ts),
   * so a second batch sent meanwhile would only queue on the lock in the database; kept here,
   * it grows by the inserts that arrive until the first commits, and they take the lock once.
   */
  #send(all: boolean): void {
    const queues = this.#queues;
    if (queues.size === 0) return;
    this.#queues = new Map();
    for (const [resource, queue] of queues) {
      const events = queue.some((q) => q.insert.events);
      if (events && !all && this.#withEvents > 0) {
        this.#queues.set(resource, queue);
        continue;
      }
      for (let i = 0; i < queue.length; i += MAX_BATCH) this.#track(this.#write(resource, queue.slice(i, i + MAX_BATCH)), events);
    }
  }

  /** Sends what is queued and waits until every batch sent has settled (the store calls it before closing). */
  async drain(): Promise<void> {
    this.flush();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  #track(p: Promise<void>, events: boolean): void {
    this.#inFlight.add(p);
    if (events) this.#withEvents++;
    void p.finally(() => {
      this.#inFlight.delete(p);
      if (!events) return;
      this.#withEvents--;
      // What waited for this batch goes now, with what arrives in this turn.
      if (this.#queues.size > 0 && !this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  async #write(resource: string, batch: readonly Queued<R>[]): Promise<void> {
    if (batch.length === 1) return this.#alone(resource, batch[0]);
    let rows: readonly (R | undefined)[];
    try {
      rows = await this.#writer.many(resource, batch.map((q) => q.insert));
    } catch (error) {
      if (this.#writer.lost(error)) {
        for (const q of batch) q.reject(error);
        return;
      }
      // Each alone, sent in their order (a statement is queued when called): each gets its own answer.
      await Promise.all(batch.map((q) => this.#alone(resource, q)));
      return;
    }
    const skipped: Promise<void>[] = [];
    batch.forEach((q, i) => {
      const row = rows[i];
      if (row === undefined) skipped.push(this.#alone(resource, q));
      else q.resolve(row);
    });
    await Promise.all(skipped);
  }

  #alone(resource: string, q: Queued<R>): Promise<void> {
    return this.#writer.one(resource, q.insert).then(q.resolve, q.reject);
  }
}

/** An insert as it is sent: its data as JSON text, taken now. */
export function queued(record: NewRecord, data: Record<string, unknown>, events?: EventMaker): QueuedInsert {
  return { id: record.id ?? null, owner: record.owner ?? null, data: JSON.stringify(data), ...(events ? { events } : {}) };
}
