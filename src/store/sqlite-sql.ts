/**
 * The SQL text of the SQLite adapter that depends on its inputs: identifiers, JSON paths,
 * and the one dynamic statement, the list query. Pure functions, no database.
 *
 * Values never enter SQL text: they are bound parameters. Identifiers (tables, indexes)
 * are quoted. The list query is in src/store/sqlite-list.ts.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { BoundedMap } from '../spec/bounded-map.ts';
import type { ScalarValue } from './store.ts';

const RESOURCE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** A SQL identifier in double quotes, inner quotes doubled (https://sqlite.org/lang_keywords.html). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The table of a resource. The prefix keeps every legal resource name usable: SQLite
 * reserves names that begin with `sqlite_`, and the prefix keeps resource tables apart
 * from the adapter's own (`idempotency`).
 */
export function tableName(resource: string): string {
  if (!RESOURCE_NAME.test(resource)) throw new Error(`bug: '${resource}' is not a resource name (${RESOURCE_NAME})`);
  return `res_${resource}`;
}

/** The owner index of a resource table; `idx_<name>_owner` maps back to one resource only. */
export function ownerIndexName(resource: string): string {
  return `idx_${resource}_owner`;
}

/** The index of a field of a resource; `fx_<resource>.` prefixes them all (a dot is in neither name). */
export function fieldIndexName(resource: string, field: string, owned: boolean): string {
  return `fx_${resource}.${field}${owned ? '.owned' : ''}`;
}

/**
 * The JSON path of a top-level member, quoted so a name with dots or brackets is one key,
 * not a path (https://sqlite.org/json1.html#path_arguments).
 */
export function jsonPath(field: string): string {
  return `$."${field.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A scalar as SQLite compares it with `json_extract`: JSON true and false read as 1 and 0. */
export function bindScalar(value: ScalarValue): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError(`bug: ${value} is not a JSON number`);
  return value;
}

/**
 * A record's columns. `live` holds the values of its effect fields (TableLayout
 * `effectFields`) written by related writes since its data was last written whole, NULL when
 * none was: the record is `data` with those members put in (./sqlite-record.ts withLive).
 */
export const RECORD_COLUMNS = 'seq, id, version, owner, data, live';

/**
 * The columns of a list page of a table that keeps no field apart: its `live` is NULL in
 * every row (a change of the fields kept apart folds `live` back first, ./sqlite-schema.ts),
 * and a column read a row is a twentieth of a page's cost.
 */
export const PAGE_COLUMNS = 'seq, id, version, owner, data';

/** Runs work in one write transaction: committed if it returns, rolled back if it throws. */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** Limits written into SQL text per statement; a caller's few (batch sizes, free slots, page sizes) fit. */
const LIMITS_PER_STATEMENT = 32;

/**
 * A statement prepared once per LIMIT, the limit written into its text (`sql(limit)`), an
 * integer, never a bound parameter: SQLite (3.53, node 24's) takes a bound LIMIT's value into
 * its plan, and so compiles a statement with `LIMIT ?` again at every run (the authorizer
 * sees it; callgrind: a fan-out's read of the log and a claim's read of due deliveries were
 * ~36K instructions of recompiling an event). The cache is first in, first out.
 */
export function byLimit(db: DatabaseSync, sql: (limit: number) => string): (limit: number) => StatementSync {
  const prepared = new BoundedMap<number, StatementSync>(LIMITS_PER_STATEMENT);
  return (limit) => {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`bug: LIMIT ${limit} is not a count`);
    let statement = prepared.get(limit);
    if (statement) return statement;
    prepared.set(limit, (statement = db.prepare(sql(limit))));
    return statement;
  };
}
