/**
 * The SQL text of the SQLite adapter that depends on its inputs: identifiers, JSON paths,
 * and the one dynamic statement, the list query. Pure functions, no database.
 *
 * Values never enter SQL text: they are bound parameters. Identifiers (tables, indexes)
 * are quoted; field names travel as bound JSON paths.
 */
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { ListQuery, ScalarValue } from './store.ts';

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

export const RECORD_COLUMNS = 'seq, id, version, owner, data';

/**
 * The list query.
 *
 * Filters are exact and type-exact: `json_extract` reads JSON true as 1 and the string "1"
 * as '1', so each comparison also checks `json_type` — `true` matches only true, `1` only
 * the number 1, `"1"` only the string. A null filter matches a null member and an absent
 * one alike (both read as SQL NULL, and sort as NULL).
 *
 * Order: the sort keys, then `seq` ascending. NULLs (null or absent) come first in an
 * ascending key and last in a descending one — SQLite's default, written out so the
 * PostgreSQL adapter (whose default is the reverse) can say the same. Values of different
 * JSON types in one field order as SQLite orders storage classes: numbers (booleans as 1/0)
 * before text; strings compare by bytes (BINARY collation).
 *
 * Keyset `after`: the rows strictly after the row (values, seq) in that order, written as
 * the lexicographic disjunction  k1 > v1  OR  (k1 = v1 AND k2 > v2)  OR ...  OR  (all
 * equal AND seq > s), where "=" is the NULL-safe `IS` and ">" means "after" in the key's
 * direction, NULLs placed as above.
 */
export function listSql(table: string, query: ListQuery): { sql: string; args: SQLInputValue[] } {
  const where: string[] = [];
  const args: SQLInputValue[] = [];

  for (const [field, value] of Object.entries(query.filter ?? {})) {
    const path = jsonPath(field);
    if (value === null) {
      where.push('json_extract(data, ?) IS NULL');
      args.push(path);
    } else if (typeof value === 'boolean') {
      where.push('json_type(data, ?) = ?');
      args.push(path, value ? 'true' : 'false');
    } else if (typeof value === 'number') {
      where.push(`(json_type(data, ?) IN ('integer', 'real') AND json_extract(data, ?) = ?)`);
      args.push(path, path, bindScalar(value));
    } else if (typeof value === 'string') {
      where.push(`(json_type(data, ?) = 'text' AND json_extract(data, ?) = ?)`);
      args.push(path, path, value);
    } else {
      throw new TypeError(`bug: filter on '${field}' is not a scalar`);
    }
  }

  if (query.owner !== undefined) {
    where.push('owner = ?');
    args.push(query.owner);
  }

  const sort = query.sort ?? [];
  if (query.after && sort.length === 0) {
    // Insertion order alone: the keyset is the sequence (a rowid range scan).
    if (query.after.values.length !== 0) throw new Error(`bug: a keyset position of ${query.after.values.length} values for no sort keys`);
    where.push('seq > ?');
    args.push(query.after.seq);
  } else if (query.after) {
    const { values, seq } = query.after;
    if (values.length !== sort.length) throw new Error(`bug: a keyset position of ${values.length} values for ${sort.length} sort keys`);
    const disjuncts: string[] = [];
    for (let i = 0; i <= sort.length; i++) {
      const parts: string[] = [];
      const partArgs: SQLInputValue[] = [];
      for (let j = 0; j < i; j++) {
        parts.push('json_extract(data, ?) IS ?');
        partArgs.push(jsonPath(sort[j].field), bindScalar(values[j]));
      }
      if (i === sort.length) {
        parts.push('seq > ?');
        partArgs.push(seq);
      } else {
        const key = sort[i];
        const v = values[i];
        const path = jsonPath(key.field);
        if (key.direction === 'asc') {
          // NULLs first: after a NULL comes every value; after a value, the greater ones.
          parts.push(v === null ? 'json_extract(data, ?) IS NOT NULL' : 'json_extract(data, ?) > ?');
          partArgs.push(path, ...(v === null ? [] : [bindScalar(v)]));
        } else {
          // NULLs last: nothing is after a NULL but its ties; after a value, the smaller ones and the NULLs.
          if (v === null) continue;
          parts.push('(json_extract(data, ?) < ? OR json_extract(data, ?) IS NULL)');
          partArgs.push(path, bindScalar(v), path);
        }
      }
      disjuncts.push(`(${parts.join(' AND ')})`);
      args.push(...partArgs);
    }
    where.push(`(${disjuncts.join(' OR ')})`);
  }

  const order: string[] = sort.map((k) => (k.direction === 'asc' ? 'json_extract(data, ?) ASC NULLS FIRST' : 'json_extract(data, ?) DESC NULLS LAST'));
  for (const k of sort) args.push(jsonPath(k.field));
  order.push('seq ASC');

  const { limit, offset = 0 } = query;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`bug: limit ${limit} is not a count`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bug: offset ${offset} is not a count`);
  // One more than asked: its presence is `hasMore`, without a second query.
  args.push(limit + 1);
  if (offset > 0) args.push(offset);

  const sql = `SELECT ${RECORD_COLUMNS} FROM ${quoteIdent(table)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order.join(', ')} LIMIT ?${offset > 0 ? ' OFFSET ?' : ''}`;
  return { sql, args };
}

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
