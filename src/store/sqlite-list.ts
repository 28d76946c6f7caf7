/**
 * The list query of the SQLite adapter: pure functions from a ListQuery to SQL, no database.
 *
 * Indexes. A field lists filter or sort by has an expression index (migrate):
 * `(json_extract(data, '$."price"'), seq)`, led by `owner` on an owned resource. SQLite
 * matches an expression to an index only when the query spells the same expression, so the
 * field's JSON path is written into the SQL text as a literal, never bound: a bound path
 * (`json_extract(data, ?)`) scans the table whatever indexes exist. Only names of the
 * format's shape (FIELD_NAME) are written; any other name (a store used outside a spec) is
 * bound as before, correct but unindexed. Values are always bound.
 *
 * Filters are type-exact: `json_extract` reads JSON true as 1 and the string "1" as '1', so
 * each comparison also checks `json_type` — `true` matches only true, `1` only the number 1,
 * `"1"` only the string. The value comparison comes first and on the indexed expression,
 * the type check after it, so the index bounds the rows and the check only thins them.
 *
 * Order: the sort keys, then `seq` ascending. NULLs (null or absent) come first in an
 * ascending key and last in a descending one — SQLite's default, written out so the
 * PostgreSQL adapter (whose default is the reverse) can say the same. Values of different
 * JSON types in one field order as SQLite orders storage classes: numbers (booleans as 1/0)
 * before text; strings compare by bytes (BINARY collation), which is code point order.
 *
 * Keyset `after`: the rows strictly after the row (values, seq) in that order, written as
 * the lexicographic disjunction  k1 > v1  OR  (k1 = v1 AND k2 > v2)  OR ...  OR  (all
 * equal AND seq > s), where ">" means "after" in the key's direction, NULLs placed as above.
 * For the index to start at the position instead of scanning to it, the first key is also
 * bounded: `k1 >= v1` ascending, `k1 <= v1` descending. A bound cannot include the NULLs,
 * which sort on the far side of it from the position in two cases (a descending key after
 * a value, an ascending key inside its NULLs); there the page is two index ranges, the
 * values then the NULLs or the NULLs then the values (`rest`), the second read only when
 * the first does not fill the page.
 */
import type { SQLInputValue } from 'node:sqlite';
import { bindScalar, jsonPath, PAGE_COLUMNS, quoteIdent, RECORD_COLUMNS } from './sqlite-sql.ts';
import { scalarOf, stringOf } from './filter-values.ts';
import type { CountQuery, FieldFilter, LeanListQuery, ListQuery, ScalarValue, SortKey } from './store.ts';

/** A name the format allows for a field (schema/svcspec.schema.json), safe inside `'$."…"'`. */
const FIELD_NAME = /^[A-Za-z_$@][A-Za-z0-9_-]*$/;

/** One SELECT: its text and its arguments. */
export interface ListStatement {
  readonly sql: string;
  readonly args: SQLInputValue[];
}

/** The list query; `rest`, when present, continues the page where the first statement runs out (see the header). */
export interface ListSql extends ListStatement {
  readonly rest?: ListStatement;
}

/** Whether a field's JSON path goes into the SQL text, so that its index serves the query. */
export function indexable(field: string): boolean {
  return FIELD_NAME.test(field);
}

/** No effect fields kept apart (TableLayout `effectFields`). */
export const NO_LIVE: ReadonlySet<string> = new Set();

/**
 * The expression an index on a field is built on, exactly as queries spell it. An effect
 * field kept apart (`live`, ./sqlite-sql.ts RECORD_COLUMNS) is read from `live` where it is
 * there, else from `data`.
 */
export function fieldExpression(field: string, live: ReadonlySet<string> = NO_LIVE): string {
  if (!indexable(field)) throw new Error(`bug: '${field}' is not a field name that can be indexed (${FIELD_NAME})`);
  const path = `'${jsonPath(field)}'`;
  return live.has(field) ? liveValue(path, path, path) : `json_extract(data, ${path})`;
}

/** An effect field's value: `live`'s member where it has one (a JSON null included), else `data`'s. */
function liveValue(p1: string, p2: string, p3: string): string {
  return `CASE WHEN json_type(live, ${p1}) IS NULL THEN json_extract(data, ${p2}) ELSE json_extract(live, ${p3}) END`;
}

/**
 * The columns a list reads: a whole record's, `live` only where the table keeps fields apart;
 * a lean list's (store.ts LeanListQuery) leave version and owner out (./sqlite-record.ts LeanRow).
 */
export function listColumns(lean: boolean, live: boolean): string {
  if (lean) return live ? 'seq, id, data, live' : 'seq, id, data';
  return live ? RECORD_COLUMNS : PAGE_COLUMNS;
}

/** Collects arguments in the order their placeholders are written (template literals evaluate left to right). */
class Args {
  readonly list: SQLInputValue[] = [];
  /** The table's effect fields kept apart in `live`. */
  readonly live: ReadonlySet<string>;
  constructor(live: ReadonlySet<string>) {
    this.live = live;
  }
  /** A bound value: '?'. */
  bind(value: SQLInputValue): string {
    this.list.push(value);
    return '?';
  }
  /** The member's value: the literal path when the name allows it, else a bound one. */
  value(field: string): string {
    if (indexable(field)) return fieldExpression(field, this.live);
    if (!this.live.has(field)) return `json_extract(data, ${this.bind(jsonPath(field))})`;
    return liveValue(this.bind(jsonPath(field)), this.bind(jsonPath(field)), this.bind(jsonPath(field)));
  }
  /** The member's JSON type ('integer', 'real', 'text', 'true', 'false', 'null', 'object', 'array'; NULL if absent). */
  type(field: string): string {
    const path = indexable(field) ? `'${jsonPath(field)}'` : this.bind(jsonPath(field));
    if (!this.live.has(field)) return `json_type(data, ${path})`;
    // json_type is NULL only for an absent member ('null' for a JSON null): live's, else data's.
    return `coalesce(json_type(live, ${path}), json_type(data, ${indexable(field) ? path : this.bind(jsonPath(field))}))`;
  }
}

const NUMBER_TYPES = `('integer', 'real')`;

/** `eq`: type-exact equality; null matches null and absent. */
function equals(a: Args, field: string, value: ScalarValue): string {
  if (value === null) return `${a.value(field)} IS NULL`;
  if (typeof value === 'boolean') return `(${a.value(field)} = ${a.bind(value ? 1 : 0)} AND ${a.type(field)} = '${value}')`;
  if (typeof value === 'number') return `(${a.value(field)} = ${a.bind(bindScalar(value))} AND ${a.type(field)} IN ${NUMBER_TYPES})`;
  if (typeof value === 'string') return `(${a.value(field)} = ${a.bind(value)} AND ${a.type(field)} = 'text')`;
  throw new TypeError(`bug: filter on '${field}' is not a scalar`);
}

const ORDERING = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/**
 * The smallest string greater than every string that starts with `prefix` (its last code
 * point incremented, past the surrogates), or undefined if there is none.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** One filter as a condition. */
function condition(a: Args, f: FieldFilter): string {
  const { field } = f;
  switch (f.op) {
    case 'eq':
      return equals(a, field, scalarOf(f));
    case 'ne': {
      const v = scalarOf(f);
      if (v === null) return `${a.value(field)} IS NOT NULL`;
      // `NOT (x = v …)` is NULL, not true, where the member is NULL: those rows are named.
      return `(${a.value(field)} IS NULL OR NOT ${equals(a, field, v)})`;
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const v = scalarOf(f);
      const op = ORDERING[f.op];
      // Numbers sort before text: '' bounds the other end of the range to the value's type,
      // so the index range holds only members of that type.
      // The other bound is written where it stands: a field bound as an argument (a name not
      // written into the text) takes its placeholder in the order the text has them.
      if (typeof v === 'number') {
        const other = () => (f.op === 'gt' || f.op === 'gte' ? ` AND ${a.value(field)} < ''` : '');
        return `(${a.value(field)} ${op} ${a.bind(bindScalar(v))}${other()} AND ${a.type(field)} IN ${NUMBER_TYPES})`;
      }
      if (typeof v === 'string') {
        const other = () => (f.op === 'lt' || f.op === 'lte' ? ` AND ${a.value(field)} >= ''` : '');
        return `(${a.value(field)} ${op} ${a.bind(v)}${other()} AND ${a.type(field)} = 'text')`;
      }
      throw new TypeError(`bug: filter ${f.op} on '${field}' takes a number or a string, not ${JSON.stringify(v)}`);
    }
    case 'in': {
      if (!Array.isArray(f.value)) throw new TypeError(`bug: filter in on '${field}' takes a list`);
      const values = f.value as readonly ScalarValue[];
      if (values.length === 0) return '0';
      const parts: string[] = [];
      // Numbers and strings in one IN list: SQLite never finds a number equal to a text, so
      // the type check need only keep booleans (read as 1 and 0) and objects (read as JSON text) out.
      const plain = values.filter((v) => typeof v === 'number' || typeof v === 'string');
      if (plain.length) {
        const types = [...new Set(plain.flatMap((v) => (typeof v === 'number' ? ['integer', 'real'] : ['text'])))];
        parts.push(`(${a.value(field)} IN (${plain.map((v) => a.bind(bindScalar(v))).join(', ')}) AND ${a.type(field)} IN (${types.map((t) => `'${t}'`).join(', ')}))`);
      }
      for (const b of [true, false]) if (values.includes(b)) parts.push(equals(a, field, b));
      if (values.includes(null)) parts.push(`${a.value(field)} IS NULL`);
      for (const v of values) if (v !== null && typeof v !== 'number' && typeof v !== 'string' && typeof v !== 'boolean') throw new TypeError(`bug: filter in on '${field}' holds a value that is not a scalar`);
      return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
    }
    case 'prefix': {
      const s = stringOf(f);
      if (s === '') return `${a.type(field)} = 'text'`;
      const end = prefixEnd(s);
      // [prefix, prefixEnd): exactly the strings that start with it, in code point order.
      if (end !== undefined) return `(${a.value(field)} >= ${a.bind(s)} AND ${a.value(field)} < ${a.bind(end)} AND ${a.type(field)} = 'text')`;
      return `(${a.value(field)} >= ${a.bind(s)} AND substr(${a.value(field)}, 1, ${a.bind([...s].length)}) = ${a.bind(s)} AND ${a.type(field)} = 'text')`;
    }
    case 'contains':
      return `(${a.type(field)} = 'text' AND instr(${a.value(field)}, ${a.bind(stringOf(f))}) > 0)`;
    case 'exists':
      return `${a.value(field)} IS NOT NULL`;
    case 'absent':
      return `${a.value(field)} IS NULL`;
    default:
      throw new TypeError(`bug: no filter operator '${(f as { op: string }).op}'`);
  }
}

/**
 * A full-text search: any of the fields holds the text, ASCII letters compared without case
 * (SQLite's lower() folds only those). A scan of the matches' rows: no index serves it.
 */
function searched(a: Args, search: NonNullable<ListQuery['search']>): string {
  if (search.fields.length === 0) return '0';
  const text = search.text.toLowerCase();
  const parts: string[] = [];
  // Bound in the order the placeholders stand in the text.
  for (const f of search.fields) {
    const type = a.type(f);
    const value = a.value(f);
    parts.push(`(${type} = 'text' AND instr(lower(${value}), ${a.bind(text)}) > 0)`);
  }
  return `(${parts.join(' OR ')})`;
}

/** `key = value`, NULL-safe, written so an index can use it. */
function same(a: Args, field: string, value: ScalarValue): string {
  return value === null ? `${a.value(field)} IS NULL` : `${a.value(field)} = ${a.bind(bindScalar(value))}`;
}

/** Strictly after `value` in one key's order (NULLs first ascending, last descending); undefined: nothing is. */
function beyond(a: Args, key: SortKey, value: ScalarValue): string | undefined {
  const x = a.value(key.field);
  if (key.direction === 'asc') return value === null ? `${x} IS NOT NULL` : `${x} > ${a.bind(bindScalar(value))}`;
  if (value === null) return undefined;
  return `(${x} < ${a.bind(bindScalar(value))} OR ${a.value(key.field)} IS NULL)`;
}

/** The lexicographic disjunction of the rows after (values, seq) in the order of `sort` then seq. */
function afterAll(a: Args, sort: readonly SortKey[], values: readonly ScalarValue[], seq: number): string {
  const disjuncts: string[] = [];
  for (let i = 0; i <= sort.length; i++) {
    // Each disjunct collects its arguments apart: one that turns out empty leaves none behind.
    const d = new Args(a.live);
    const parts: string[] = [];
    for (let j = 0; j < i; j++) parts.push(same(d, sort[j].field, values[j]));
    const after = i === sort.length ? `seq > ${d.bind(seq)}` : beyond(d, sort[i], values[i]);
    // Nothing is after a NULL of a descending key but its ties.
    if (after === undefined) continue;
    parts.push(after);
    a.list.push(...d.list);
    disjuncts.push(parts.length === 1 ? parts[0] : `(${parts.join(' AND ')})`);
  }
  return disjuncts.length === 1 ? disjuncts[0] : `(${disjuncts.join(' OR ')})`;
}

function check(query: ListQuery | LeanListQuery): void {
  const { limit, offset = 0 } = query;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`bug: limit ${limit} is not a count`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bug: offset ${offset} is not a count`);
  const sort = query.sort ?? [];
  if (query.after && query.after.values.length !== sort.length) {
    throw new Error(sort.length === 0 ? `bug: a keyset position of ${query.after.values.length} values for no sort keys` : `bug: a keyset position of ${query.after.values.length} values for ${sort.length} sort keys`);
  }
}

/**
 * How many rows a query's conditions select: the list's own conditions (so a total agrees
 * with the pages it counts), without its order and limit. With them (a count over the list
 * statement) SQLite walks the table in `seq` order to honour the ORDER BY instead of using a
 * field's index, and a count reads every row of the table: a guard's count grew with it.
 */
export function countSql(table: string, query: CountQuery, live: ReadonlySet<string> = NO_LIVE): ListStatement {
  check({ ...query, limit: 1 });
  const a = new Args(live);
  const filters: FieldFilter[] = [...Object.entries(query.filter ?? {}).map(([field, value]): FieldFilter => ({ field, op: 'eq', value })), ...(query.filters ?? [])];
  const where = filters.map((f) => condition(a, f));
  if (query.owner !== undefined) where.push(`owner = ${a.bind(query.owner)}`);
  if (query.search) where.push(searched(a, query.search));
  return { sql: `SELECT count(*) FROM ${quoteIdent(table)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, args: a.list };
}

/**
 * What a count's SQL text depends on besides its table, when its conditions are `eq` and
 * `in` filters alone (a domain step's counts): the fields, the operators, the JSON type of
 * each value. Counts of one shape share one text (one prepared statement), and only their
 * arguments (countArgs) are made per count. Undefined for any other count.
 */
export function countShape(query: CountQuery): string | undefined {
  if (query.filter !== undefined || query.owner !== undefined || query.search !== undefined || !query.filters) return undefined;
  let shape = '';
  for (const f of query.filters) {
    const values = f.op === 'eq' ? [f.value] : f.op === 'in' && Array.isArray(f.value) ? (f.value as readonly unknown[]) : undefined;
    // A name outside the format's shape binds its JSON path too (Args.value): left to countSql.
    if (values === undefined || !indexable(f.field)) return undefined;
    shape += `${f.field}\0${f.op}`;
    for (const v of values) {
      const tag = v === null ? 'z' : typeof v === 'boolean' ? 'b' : typeof v === 'number' ? 'n' : typeof v === 'string' ? 's' : undefined;
      // A value that is no scalar: the full builder says it is a bug.
      if (tag === undefined) return undefined;
      shape += tag;
    }
    shape += '\0';
  }
  return shape;
}

/** The arguments of a count of a shape (countShape), in the order `condition` binds them. */
export function countArgs(query: CountQuery): SQLInputValue[] {
  const args: SQLInputValue[] = [];
  for (const f of query.filters ?? []) {
    if (f.op === 'eq') {
      const v = scalarOf(f);
      if (v !== null) args.push(bindScalar(v));
      continue;
    }
    const values = f.value as readonly ScalarValue[];
    for (const v of values) if (typeof v === 'number' || typeof v === 'string') args.push(bindScalar(v));
    if (values.includes(true)) args.push(1);
    if (values.includes(false)) args.push(0);
  }
  return args;
}

/** The list query (see the header). */
export function listSql(table: string, query: ListQuery | LeanListQuery, live: ReadonlySet<string> = NO_LIVE): ListSql {
  check(query);
  const columns = listColumns(query.lean === true, live.size > 0);
  const sort = query.sort ?? [];
  const { limit, offset = 0 } = query;
  const filters: FieldFilter[] = [...Object.entries(query.filter ?? {}).map(([field, value]): FieldFilter => ({ field, op: 'eq', value })), ...(query.filters ?? [])];

  /** One SELECT over the filters, the owner and `extra` (conditions written into `a` after them), at the offset. */
  const statement = (extra: (a: Args) => string[], firstKeyNull = false): ListStatement => {
    const a = new Args(live);
    const where = filters.map((f) => condition(a, f));
    if (query.owner !== undefined) where.push(`owner = ${a.bind(query.owner)}`);
    if (query.search) where.push(searched(a, query.search));
    where.push(...extra(a));
    // Where the first key is NULL in every row, ordering by it orders nothing, and SQLite does
    // not see that: it would sort the rows instead of reading the index's (NULL, seq) run in order.
    const order = (firstKeyNull ? sort.slice(1) : sort).map((k) => (k.direction === 'asc' ? `${a.value(k.field)} ASC NULLS FIRST` : `${a.value(k.field)} DESC NULLS LAST`));
    order.push('seq ASC');
    // One more than asked: its presence is `hasMore`, without a second query. Written into the
    // SQL, not bound: SQLite's planner reads a bound LIMIT's value (select.c computeLimitRegisters
    // adds it to the statement's variable mask), so binding one makes the statement compile
    // again on its next step, parse and plan included (~34K instructions a page). The second
    // range of a page (`rest`) has the same LIMIT: its reader keeps what the first one left.
    let tail = ` LIMIT ${limit + 1}`;
    if (offset > 0) tail += ` OFFSET ${a.bind(offset)}`;
    const sql = `SELECT ${columns} FROM ${quoteIdent(table)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order.join(', ')}${tail}`;
    return { sql, args: a.list };
  };

  const after = query.after;
  if (!after) return statement(() => []);
  // Insertion order alone: the keyset is the sequence (a rowid range scan).
  if (sort.length === 0) return statement((a) => [`seq > ${a.bind(after.seq)}`]);
  // An offset counts from the position: one statement, not two ranges.
  if (offset > 0) return statement((a) => [afterAll(a, sort, after.values, after.seq)]);

  const [first, ...others] = sort;
  const [v, ...otherValues] = after.values;
  const x = (a: Args) => a.value(first.field);
  /** Ties on the first key: the rows after the position in the other keys' order. */
  const ties = (a: Args) => afterAll(a, others, otherValues, after.seq);
  if (first.direction === 'asc' && v !== null) {
    return statement((a) => [`${x(a)} >= ${a.bind(bindScalar(v))}`, `(${x(a)} > ${a.bind(bindScalar(v))} OR (${x(a)} = ${a.bind(bindScalar(v))} AND ${ties(a)}))`]);
  }
  if (first.direction === 'desc' && v === null) return statement((a) => [`${x(a)} IS NULL`, ties(a)], true);
  if (first.direction === 'asc') {
    // Inside the NULLs of an ascending key: the NULL ties after the position, then every value.
    return { ...statement((a) => [`${x(a)} IS NULL`, ties(a)], true), rest: statement((a) => [`${x(a)} IS NOT NULL`]) };
  }
  // After a value of a descending key: the smaller values (and ties after the position), then the NULLs.
  return {
    ...statement((a) => [`${x(a)} <= ${a.bind(bindScalar(v))}`, `(${x(a)} < ${a.bind(bindScalar(v))} OR (${x(a)} = ${a.bind(bindScalar(v))} AND ${ties(a)}))`]),
    rest: statement((a) => [`${x(a)} IS NULL`], true),
  };
}
