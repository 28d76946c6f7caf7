/**
 * An update or a removal without rules or events as one statement of the PostgreSQL store:
 * the row read `FOR UPDATE`, the expectation checked and the change written in one CTE, its
 * own transaction. A transaction of BEGIN, SELECT … FOR UPDATE, the write and COMMIT took four
 * round trips holding the row lock across them; this takes one.
 *
 * Its atomicity is the transaction's: `cur` locks the row (READ COMMITTED waits for a
 * concurrent writer, then reads the row as it committed), and the write joins that locked row
 * and tests the expectation on it, so two concurrent transitions of one record still queue on
 * the lock and the second sees the first's result. The statement answers the locked row and
 * the written one (NULLs when the expectation refused), so a refusal is reported with the
 * record it was judged on, as the transaction did.
 *
 * The expectation in SQL is unmet() of ./expectation.ts, condition for
 * condition: the owner equal, the version equal, the state field a string among `from`.
 */
import { unmet } from './expectation.ts';
import type { PgRow } from './postgres-record.ts';
import type { ChangeResult, Expectation, StoredRecord } from './store.ts';

export interface CasStatements {
  /** $1 id, $2…$5 the expectation (casParams), $6 the new data: the locked row, then the written one. */
  readonly update: string;
  /** $1 id, $2…$5 the expectation: the locked row, then the removed seq. */
  readonly remove: string;
}

const LOCKED = `cur AS (SELECT seq, id, version, owner, data FROM %T WHERE id = $1 FOR UPDATE)`;
const EXPECTED = `($2::text IS NULL OR cur.owner = $2::text) AND ($3::int IS NULL OR cur.version = $3::int)
  AND ($4::text IS NULL OR (jsonb_typeof(cur.data -> $4::text) = 'string' AND (cur.data ->> $4::text) = ANY($5::text[])))`;
const CURRENT = 'cur.seq, cur.id, cur.version, cur.owner, cur.data::text';

/** The statements of a table (its name quoted). */
export function casStatements(table: string): CasStatements {
  const locked = LOCKED.replace('%T', table);
  return {
    update: `WITH ${locked}, w AS (UPDATE ${table} t SET version = t.version + 1, data = $6::text::jsonb FROM cur WHERE t.seq = cur.seq AND ${EXPECTED}
        RETURNING t.seq, t.id, t.version, t.owner, t.data::text AS data)
      SELECT ${CURRENT}, w.seq, w.id, w.version, w.owner, w.data FROM cur LEFT JOIN w ON true`,
    remove: `WITH ${locked}, w AS (DELETE FROM ${table} t USING cur WHERE t.seq = cur.seq AND ${EXPECTED} RETURNING t.seq)
      SELECT ${CURRENT}, w.seq FROM cur LEFT JOIN w ON true`,
  };
}

/** $2…$5: the expectation's owner, version, state field and the states it may be in (NULL: not asked). */
export function casParams(expect: Expectation): unknown[] {
  return [expect.owner ?? null, expect.version ?? null, expect.state?.field ?? null, expect.state ? [...expect.state.from] : null];
}

/** The row of a statement split: the record as locked, and the written row (undefined when refused). */
export function casRows(row: readonly unknown[]): { current: PgRow; written: PgRow | undefined; removed: boolean } {
  const current = row.slice(0, 5) as unknown as PgRow;
  const written = row.length > 6 && row[5] !== null ? (row.slice(5, 10) as unknown as PgRow) : undefined;
  return { current, written, removed: row.length === 6 && row[5] !== null };
}

/** Why the one-statement write refused: unmet() of the row it locked (casStatements write the same conditions). */
export function refusal(current: StoredRecord, expect: Expectation): Exclude<ChangeResult, { ok: true }> {
  const refused = unmet(current, expect);
  if (!refused) throw new Error('bug: the one-statement write refused a record that meets its expectation (casStatements and unmet() disagree)');
  return refused;
}
