/**
 * The SQL text of the PostgreSQL adapter that depends on its inputs: identifiers, the field
 * expressions, and the list query. Pure functions, no database. Values never enter SQL text:
 * they are bound parameters ($1, $2, …); identifiers are quoted.
 *
 * The order and filter semantics are those src/store/store.ts documents and
 * src/store/sqlite-list.ts serves on SQLite; jsonb's own order differs from them (booleans
 * after numbers, strings by the database's collation, no NULL for an absent member), so a
 * field is not compared as jsonb. Each field is read as three keys that never are NULL:
 *
 *   svcspec_rank(x)   0 null or absent, 1 a number or a boolean, 2 a string (objects and arrays: 2, as their JSON text)
 *   svcspec_num(x)    the number (a boolean as 1 or 0), else 0
 *   svcspec_str(x) COLLATE "C"   the string (by code point: "C" compares UTF-8 bytes), else ''
 *
 * (x is `data -> 'field'`), so (rank, num, str) sorts NULLs first, numbers (booleans as 1/0)
 * before text, as SQLite does. A field lists filter or sort by has a B-tree index on
 * (rank, num, str, seq) (migrate), led by the owner on an owned resource. Every filter is
 * written on those keys so the index bounds it, with a `jsonb_typeof` check after them that
 * keeps it type-exact (true is not 1); the functions are IMMUTABLE SQL, inlined by the
 * planner into the same expression the index holds. The field's key is a literal in the text
 * when its name is of the format's shape (an index matches only the same expression), else bound.
 *
 * Keyset `after`: with keys that are never NULL, "after (v, seq)" is one lexicographic
 * disjunction of row comparisons, k1 > v1 OR (k1 = v1 AND k2 > v2) … OR (all equal AND
 * seq > s), with the first key also bounded (k1 >= v1) so the index starts at the position.
 */
import { scalarOf, stringOf } from './filter-values.ts';
import type { FieldFilter, ListQuery, ScalarValue, SortKey } from './store.ts';

/** A name the format allows for a field (schema/svcspec.schema.json), safe inside a literal. */
const FIELD_NAME = /^[A-Za-z_$@][A-Za-z0-9_-]*$/;
const RESOURCE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1). */
const MAX_IDENT = 63;

export const RECORD_COLUMNS = 'seq, id, version, owner, data::text';

/** A SQL identifier in double quotes, inner quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The table of a resource; the prefix keeps it apart from the adapter's own tables. */
export function tableName(resource: string): string {
  if (!RESOURCE_NAME.test(resource)) throw new Error(`bug: '${resource}' is not a resource name (${RESOURCE_NAME})`);
  const name = `res_${resource}`;
  // `<table>_seq` is the longest name made from it.
  if (Buffer.byteLength(name) + 4 > MAX_IDENT) throw new Error(`the resource name '${resource}' is too long for PostgreSQL (at most ${MAX_IDENT - 8} characters)`);
  return name;
}

/** The index of a field; `fx_<resource>.` prefixes them all. Names past PostgreSQL's length are shortened by a hash. */
export function fieldIndexName(resource: string, field: string, owned: boolean): string {
  const name = `fx_${resource}.${field}${owned ? '.owned' : ''}`;
  if (Buffer.byteLength(name) <= MAX_IDENT) return name;
  let h = 0x811c9dc5;
  for (const c of Buffer.from(name)) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return `fx_${resource}.#${h.toString(16)}`;
}

export function indexable(field: string): boolean {
  return FIELD_NAME.test(field);
}

/** Collects bound values; each bind returns its placeholder. */
export class Params {
  readonly list: unknown[] = [];
  bind(value: unknown, cast = ''): string {
    this.list.push(value);
    return `$${this.list.length}${cast}`;
  }
  /** `data -> 'field'`, the key literal when the name allows it (so an index matches), else bound. */
  member(field: string): string {
    return indexable(field) ? `(data -> '${field}')` : `(data -> ${this.bind(field, '::text')})`;
  }
  keys(field: string): Keys {
    const x = this.member(field);
    return { x, rank: `svcspec_rank(${x})`, num: `svcspec_num(${x})`, str: `(svcspec_str(${x}) COLLATE "C")` };
  }
}

interface Keys {
  readonly x: string;
  readonly rank: string;
  readonly num: string;
  readonly str: string;
}

/** The index expressions of a field, exactly as the queries spell them. */
export function fieldIndexColumns(field: string): string {
  const k = new Params().keys(field);
  return `${k.rank}, ${k.num}, ${k.str}`;
}

/** A scalar's three keys (see the header). */
export function scalarKeys(v: ScalarValue): [rank: number, num: string, str: string] {
  if (v === null) return [0, '0', ''];
  if (typeof v === 'boolean') return [1, v ? '1' : '0', ''];
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`bug: ${v} is not a JSON number`);
    return [1, String(v), ''];
  }
  if (typeof v === 'string') return [2, '0', v];
  throw new TypeError('bug: not a scalar');
}

function row(p: Params, k: Keys): string {
  return `(${k.rank}, ${k.num}, ${k.str})`;
}

function tuple(p: Params, v: ScalarValue): string {
  const [r, n, s] = scalarKeys(v);
  return `(${p.bind(r, '::int')}, ${p.bind(n, '::numeric')}, ${p.bind(s, '::text')})`;
}

/** `eq`: type-exact equality; null matches null and absent. */
function equals(p: Params, field: string, v: ScalarValue): string {
  const k = p.keys(field);
  if (v === null) return `${k.rank} = 0`;
  if (typeof v === 'boolean') return `(${k.rank} = 1 AND ${k.num} = ${v ? 1 : 0} AND jsonb_typeof(${k.x}) = 'boolean')`;
  if (typeof v === 'number') return `(${k.rank} = 1 AND ${k.num} = ${p.bind(scalarKeys(v)[1], '::numeric')} AND jsonb_typeof(${k.x}) = 'number')`;
  if (typeof v === 'string') return `(${k.rank} = 2 AND ${k.num} = 0 AND ${k.str} = ${p.bind(v, '::text')} AND jsonb_typeof(${k.x}) = 'string')`;
  throw new TypeError(`bug: filter on '${field}' is not a scalar`);
}

const ORDERING = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** The smallest string greater than every string that starts with `prefix`, or undefined. */
function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) return points.join('') + String.fromCodePoint(last + 1 === 0xd800 ? 0xe000 : last + 1);
  }
  return undefined;
}

/** Lower-cases ASCII letters only, as the search promises (store.ts). */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function condition(p: Params, f: FieldFilter): string {
  const { field } = f;
  switch (f.op) {
    case 'eq':
      return equals(p, field, scalarOf(f));
    case 'ne':
      // equals() is never NULL (rank is never NULL and is tested first), so NOT is exact.
      return `NOT ${equals(p, field, scalarOf(f))}`;
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const v = scalarOf(f);
      const op = ORDERING[f.op];
      const k = p.keys(field);
      if (typeof v === 'number') return `(${k.rank} = 1 AND ${k.num} ${op} ${p.bind(scalarKeys(v)[1], '::numeric')} AND jsonb_typeof(${k.x}) = 'number')`;
      if (typeof v === 'string') return `(${k.rank} = 2 AND ${k.num} = 0 AND ${k.str} ${op} ${p.bind(v, '::text')} AND jsonb_typeof(${k.x}) = 'string')`;
      throw new TypeError(`bug: filter ${f.op} on '${field}' takes a number or a string, not ${JSON.stringify(v)}`);
    }
    case 'in': {
      if (!Array.isArray(f.value)) throw new TypeError(`bug: filter in on '${field}' takes a list`);
      const values = f.value as readonly ScalarValue[];
      if (values.length === 0) return 'false';
      return `(${values.map((v) => equals(p, field, v)).join(' OR ')})`;
    }
    case 'prefix': {
      const s = stringOf(f);
      const k = p.keys(field);
      if (s === '') return `jsonb_typeof(${k.x}) = 'string'`;
      const end = prefixEnd(s);
      const bounded = `${k.rank} = 2 AND ${k.num} = 0 AND ${k.str} >= ${p.bind(s, '::text')}`;
      if (end !== undefined) return `(${bounded} AND ${k.str} < ${p.bind(end, '::text')} AND jsonb_typeof(${k.x}) = 'string')`;
      return `(${bounded} AND starts_with(${k.x} #>> '{}', ${p.bind(s, '::text')}) AND jsonb_typeof(${k.x}) = 'string')`;
    }
    case 'contains': {
      const x = p.member(field);
      return `(jsonb_typeof(${x}) = 'string' AND strpos(${x} #>> '{}', ${p.bind(stringOf(f), '::text')}) > 0)`;
    }
    case 'exists':
      return `${p.keys(field).rank} <> 0`;
    case 'absent':
      return `${p.keys(field).rank} = 0`;
    default:
      throw new TypeError(`bug: no filter operator '${(f as { op: string }).op}'`);
  }
}

function searched(p: Params, search: NonNullable<ListQuery['search']>): string {
  if (search.fields.length === 0) return 'false';
  const text = asciiLower(search.text);
  const parts = search.fields.map((field) => {
    const x = p.member(field);
    return `(jsonb_typeof(${x}) = 'string' AND strpos(translate(${x} #>> '{}', '${UPPER}', '${UPPER.toLowerCase()}'), ${p.bind(text, '::text')}) > 0)`;
  });
  return `(${parts.join(' OR ')})`;
}

/** The rows after (values, seq) in the order of `sort` then seq. */
function afterAll(p: Params, sort: readonly SortKey[], values: readonly ScalarValue[], seq: number): string {
  const disjuncts: string[] = [];
  for (let i = 0; i <= sort.length; i++) {
    const parts: string[] = [];
    for (let j = 0; j < i; j++) parts.push(`${row(p, p.keys(sort[j].field))} = ${tuple(p, values[j])}`);
    if (i === sort.length) parts.push(`seq > ${p.bind(seq, '::bigint')}`);
    else parts.push(`${row(p, p.keys(sort[i].field))} ${sort[i].direction === 'asc' ? '>' : '<'} ${tuple(p, values[i])}`);
    disjuncts.push(parts.length === 1 ? parts[0] : `(${parts.join(' AND ')})`);
  }
  return disjuncts.length === 1 ? disjuncts[0] : `(${disjuncts.join(' OR ')})`;
}

function check(query: ListQuery): void {
  const { limit, offset = 0 } = query;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`bug: limit ${limit} is not a count`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bug: offset ${offset} is not a count`);
  if (query.after && query.after.values.length !== (query.sort ?? []).length) throw new Error(`bug: a keyset position of ${query.after.values.length} values for ${(query.sort ?? []).length} sort keys`);
}

export interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

/** The WHERE conditions of a list or count (filters, owner, search), written into `p`. */
function conditions(p: Params, query: Omit<ListQuery, 'limit'>): string[] {
  const filters: FieldFilter[] = [...Object.entries(query.filter ?? {}).map(([field, value]): FieldFilter => ({ field, op: 'eq', value })), ...(query.filters ?? [])];
  const where = filters.map((f) => condition(p, f));
  if (query.owner !== undefined) where.push(`owner = ${p.bind(query.owner, '::text')}`);
  if (query.search) where.push(searched(p, query.search));
  return where;
}

/**
 * A page in insertion order, filtered by nothing but its owner: the one plan it can have is a
 * range of the seq key (of the owner's index), so its prepared statement may keep PostgreSQL's
 * generic plan. With the LIMIT bound, the generic plan's cost is reckoned for an unknown row
 * count, never wins, and every page is planned again (the planner weighing each field index):
 * half the database's time of a page. So its LIMIT is written into the text: one prepared
 * statement per page size, so only up to LITERAL_LIMIT (a spec with `maxSize: none` accepts any
 * size, and a client looping over sizes must not grow every connection's statement cache).
 * Larger, filtered or sorted pages keep their LIMIT bound and their plans made for their values.
 */
const LITERAL_LIMIT = 100;

function plainPage(query: ListQuery): boolean {
  return query.limit <= LITERAL_LIMIT && (query.sort ?? []).length === 0 && !query.offset && !query.search && !(query.filters ?? []).length && Object.keys(query.filter ?? {}).length === 0;
}

/** The list query: one SELECT, one more row than the page (its presence is `hasMore`). */
export function listSql(table: string, query: ListQuery): Statement {
  check(query);
  const p = new Params();
  const sort = query.sort ?? [];
  const where = conditions(p, query);
  const after = query.after;
  if (after) {
    if (sort.length === 0) where.push(`seq > ${p.bind(after.seq, '::bigint')}`);
    else {
      const first = sort[0];
      // Bounds the first key so the index starts at the position (see the header).
      if (!query.offset) where.push(`${row(p, p.keys(first.field))} ${first.direction === 'asc' ? '>=' : '<='} ${tuple(p, after.values[0])}`);
      where.push(afterAll(p, sort, after.values, after.seq));
    }
  }
  const order = sort.flatMap((s) => {
    const k = p.keys(s.field);
    const d = s.direction === 'asc' ? 'ASC' : 'DESC';
    return [`${k.rank} ${d}`, `${k.num} ${d}`, `${k.str} ${d}`];
  });
  order.push('seq ASC');
  let tail = ` LIMIT ${plainPage(query) ? String(query.limit + 1) : p.bind(query.limit + 1, '::bigint')}`;
  if (query.offset) tail += ` OFFSET ${p.bind(query.offset, '::bigint')}`;
  const sql = `SELECT ${RECORD_COLUMNS} FROM ${quoteIdent(table)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order.join(', ')}${tail}`;
  return { sql, params: p.list };
}

/** How many records the conditions select. */
export function countSql(table: string, query: Omit<ListQuery, 'limit'>): Statement {
  const p = new Params();
  const where = conditions(p, query);
  return { sql: `SELECT count(*)::float8 AS n FROM ${quoteIdent(table)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params: p.list };
}
