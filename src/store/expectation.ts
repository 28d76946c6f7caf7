/**
 * Whether a stored record meets a write's expectation (store.ts `Expectation`), and the
 * refusal that undoes a write when it does not: the one judgement both adapters make, inside
 * their transaction, on the row they read or locked. PostgreSQL's one-statement writes
 * (./postgres-cas.ts) write the same conditions in SQL.
 */
import type { ChangeResult, Expectation, StoredRecord } from './store.ts';

/**
 * Why a record does not meet an expectation, undefined where it does; in the order of RFC
 * 9110 §13.2.2: the precondition (the version, If-Match) before what the method itself
 * requires (the state). A record of another owner is reported as missing: to its non-owner
 * it does not exist (object-level authorization; the result has no owner reason).
 */
export function unmet(current: StoredRecord, expect: Expectation): Exclude<ChangeResult, { ok: true }> | undefined {
  if (expect.owner !== undefined && current.owner !== expect.owner) return { ok: false, reason: 'missing' };
  if (expect.version !== undefined && current.version !== expect.version) return { ok: false, reason: 'version', current };
  if (expect.state) {
    const value = current.data[expect.state.field];
    if (typeof value !== 'string' || !expect.state.from.includes(value)) return { ok: false, reason: 'state', current };
  }
  return undefined;
}

/**
 * Thrown inside a transaction or savepoint to undo it when an expectation is not met (a
 * batch's item, say); carries what the caller is answered. Caught by the adapter that threw it.
 */
export class Refused<T> extends Error {
  readonly result: T;
  constructor(result: T) {
    super('refused');
    this.result = result;
  }
}
