/**
 * Sweeps of the SQLite adapter: forgetting expired rows (Idempotency-Key responses, issued
 * tokens) a batch at a time, the event loop turning between batches. `node:sqlite` is
 * synchronous, so one DELETE of every expired row holds every request until it returns: a
 * busy service that takes an hour of idempotent writes, a million rows, would stop for
 * seconds at each hourly sweep, and a request whose expired key starts one would stop
 * everyone (issue #20: no request stalls the others). A batch is one statement, so one
 * transaction; a sweep cut short (the store closed between batches) has removed whole
 * batches only, and the next sweep takes the rest.
 */
import type { SQLInputValue, StatementSync } from 'node:sqlite';

/** Rows a batch removes: a few milliseconds of the main thread, indexes included. */
export const SWEEP_BATCH = 1000;

/**
 * Runs `batch` — a DELETE of at most its last argument's count of rows, the LIMIT — until it
 * removes fewer than SWEEP_BATCH; `open` is called before each batch and throws once the
 * store is closed. Resolves with the rows removed.
 */
export async function sweepInBatches(open: () => void, batch: StatementSync, args: readonly SQLInputValue[]): Promise<number> {
  let removed = 0;
  for (;;) {
    open();
    const changes = Number(batch.run(...args, SWEEP_BATCH).changes);
    removed += changes;
    if (changes < SWEEP_BATCH) return removed;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
