/**
 * The SQLite store's reads of many records: list pages and counts (their SQL is
 * ./sqlite-list.ts's), on the main thread where their plan is cheap, else on the reader thread
 * (./sqlite-reader.ts); and a domain step's counts and lists inside the open transaction. Their
 * statements are prepared once per SQL text, and whether a text runs on the main thread is
 * decided once, from SQLite's own plan.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { BoundedMap } from '../spec/bounded-map.ts';
import { countArgs, countShape, countSql, listSql, type ListSql } from './sqlite-list.ts';
import type { PlainMarks } from './sqlite-plain.ts';
import type { SqliteReader } from './sqlite-reader.ts';
import { LeanRecord, PageRecord, returningArrays, toRecord, type LeanRow, type PlainPage, type Row, type Statements } from './sqlite-record.ts';
import type { CountQuery, LeanListQuery, ListedRecord, ListQuery, ListResult, StoredRecord } from './store.ts';

/** List statements differ by filter fields and sort; enough for any spec, bounded for a hostile one. */
const LIST_STATEMENT_CACHE = 256;
/**
 * An offset page skips its offset's rows one by one, and a page reads its size's: past this
 * many (a deep page number, a list the spec leaves unpaged) it is read off the main thread.
 */
const INLINE_OFFSET = 1000;
/** Plain-page statements kept per resource (by page size, owner and position): a client's one or two sizes. */
const PLAIN_PAGES = 16;


export class SqliteQueries {
  readonly #db: DatabaseSync;
  readonly #reader: SqliteReader | undefined;
  readonly #lists = new BoundedMap<string, StatementSync>(LIST_STATEMENT_CACHE);
  /** Count statements of domain steps by table and shape (./sqlite-list.ts countShape). */
  readonly #counts = new BoundedMap<string, StatementSync>(LIST_STATEMENT_CACHE);
  /** List SQL → whether it runs on the main thread (see `#inline`). */
  readonly #routes = new BoundedMap<string, boolean>(LIST_STATEMENT_CACHE);

  /** The tables' marks (./sqlite-plain.ts), read after a lean page's rows. */
  readonly #marks: PlainMarks;

  constructor(db: DatabaseSync, reader: SqliteReader | undefined, marks: PlainMarks) {
    this.#db = db;
    this.#reader = reader;
    this.#marks = marks;
  }

  /** The tables were migrated: plans change with the indexes, so every page's route is decided again; counts' SQL may read `live` now. */
  replanned(): void {
    this.#routes.clear();
    this.#counts.clear();
  }

  async list(s: Statements, live: ReadonlySet<string>, query: ListQuery | LeanListQuery): Promise<ListResult<ListedRecord>> {
    const want = query.limit + 1;
    const lean = query.lean === true;
    const plain = this.#plainPage(s, query, lean, live);
    if (plain) {
      const { owner, after } = query;
      const rows = (owner === undefined ? (after ? plain.statement.all(after.seq) : plain.statement.all()) : after ? plain.statement.all(owner, after.seq) : plain.statement.all(owner)) as unknown as Row[];
      return lean ? leanPage(rows as unknown as LeanRow[], query.limit, this.#marks.vouched(s.table)) : page(rows, query.limit);
    }
    const list = listSql(s.table, query, live);
    let rows: Row[];
    if (this.#reader && !this.#inline(list, query)) rows = await this.#reader.read(list, want, query.work);
    else {
      rows = this.statement(list.sql).all(...list.args) as unknown as Row[];
      const { rest } = list;
      if (rest && rows.length < want) {
        // The second range of the page (src/store/sqlite-list.ts): what the first range left.
        const more = this.statement(rest.sql).all(...rest.args) as unknown as Row[];
        rows = rows.concat(more.length > want - rows.length ? more.slice(0, want - rows.length) : more);
      }
    }
    return lean ? leanPage(rows as unknown as LeanRow[], query.limit, this.#marks.vouched(s.table)) : page(rows, query.limit);
  }

  /**
   * The statement of a plain page (insertion order: no filter, search, sort or offset), the
   * page of every walk through a collection: prepared once per shape, so such a page costs
   * its query and no SQL text, cache look-up or plan check. Undefined for any other page, a
   * page past INLINE_OFFSET records, and a position that does not fit (listSql refuses it as
   * a bug); null where such a page is read on the reader thread (never, with SQLite's plans).
   */
  #plainPage(s: Statements, query: ListQuery | LeanListQuery, lean: boolean, live: ReadonlySet<string>): PlainPage | null | undefined {
    if (query.limit > INLINE_OFFSET || query.sort?.length || query.filters?.length || query.search !== undefined || query.offset || (query.after && query.after.values.length) || !isEmpty(query.filter)) return undefined;
    const slot = query.limit * 8 + (query.owner === undefined ? 0 : 1) + (query.after ? 2 : 0) + (lean ? 4 : 0);
    const known = s.plain.get(slot);
    if (known !== undefined) return known;
    // A page size is part of the statement's text (./sqlite-list.ts): a client that tries many
    // sizes gets the general path (its statements in the bounded cache) past the first few.
    if (s.plain.size >= PLAIN_PAGES) return undefined;
    // The statement listSql writes for this shape (its arguments: owner, position).
    const shape: ListQuery | LeanListQuery = { limit: query.limit, ...(query.owner === undefined ? {} : { owner: query.owner }), ...(query.after ? { after: query.after } : {}), ...(lean ? { lean: true as const } : {}) };
    const list = listSql(s.table, shape, live);
    const plain = !this.#reader || this.#inline(list, shape) ? { statement: this.statement(list.sql) } : null;
    s.plain.set(slot, plain);
    return plain;
  }

  async count(s: Statements, live: ReadonlySet<string>, query: CountQuery): Promise<number> {
    // The list's own conditions, so a total always agrees with the pages it counts (./sqlite-list.ts countSql).
    const counting = countSql(s.table, query, live);
    // A count reads every match: on the reader thread where there is one, never holding up requests.
    // List statements return rows as arrays (the page's fast path): the count is the first column.
    if (this.#reader) return Number(((await this.#reader.read(counting, 1, query.work)) as unknown as [[number]])[0][0]);
    const row = this.statement(counting.sql).get(...counting.args) as unknown as [number];
    return Number(row[0]);
  }

  /**
   * Whether a page is cheap enough for the main thread: its plan walks an index (or the
   * table) in the page's order and stops after the page, so its cost does not grow with the
   * table. Any other page goes to the reader thread (src/store/sqlite-reader.ts): a sort of
   * all matching rows (TEMP B-TREE FOR ORDER BY; a sort of one key's ties is bounded and
   * stays), filters no field index narrows (a scan that may read every row to fill a page),
   * filters on two fields or more (an index narrows by one of them; the rows of its range
   * that the others refuse are read one by one, as many as that range holds), a full-text
   * search (no index serves it: a text nobody wrote reads the whole table), an offset or a
   * page size past INLINE_OFFSET. Decided once per SQL text, from SQLite's own plan.
   */
  #inline(list: ListSql, query: ListQuery | LeanListQuery): boolean {
    if ((query.offset ?? 0) > INLINE_OFFSET || query.limit > INLINE_OFFSET || query.search !== undefined) return false;
    const known = this.#routes.get(list.sql);
    if (known !== undefined) return known;
    const fields = new Set([...(query.filters ?? []).map((f) => f.field), ...Object.keys(query.filter ?? {})]);
    const cheap = fields.size <= 1 && [list, ...(list.rest ? [list.rest] : [])].every(({ sql }) => {
      const plan = (this.#db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
      if (plan.some((d) => d.includes('TEMP B-TREE FOR ORDER BY'))) return false;
      return fields.size === 0 || /^SEARCH .* USING (COVERING )?INDEX fx_/.test(plan[0] ?? '');
    });
    this.#routes.set(list.sql, cheap);
    return cheap;
  }

  /**
   * A domain step's count, on the writer inside the open transaction (the reader thread sees
   * only what is committed). A step's counts have a few shapes, each counted again and again:
   * the SQL text of a shape is written once (countShape), and only the arguments per count.
   */
  countNow(table: string, live: ReadonlySet<string>, query: CountQuery): number {
    const shape = countShape(query);
    if (shape === undefined) {
      const counting = countSql(table, query, live);
      return Number((this.statement(counting.sql).get(...counting.args) as unknown as [number])[0]);
    }
    const key = `${table}\0${shape}`;
    let statement = this.#counts.get(key);
    if (!statement) {
      this.#counts.set(key, (statement = this.statement(countSql(table, query, live).sql)));
    }
    return Number((statement.get(...countArgs(query)) as unknown as [number])[0]);
  }

  /** A domain step's list, on the writer inside the open transaction. */
  listNow(table: string, live: ReadonlySet<string>, query: Omit<ListQuery, 'limit'>, limit: number): StoredRecord[] {
    const list = listSql(table, { ...query, limit }, live);
    return (this.statement(list.sql).all(...list.args) as unknown as Row[]).map(toRecord);
  }

  /** A list or count statement by its SQL text, prepared once (rows as arrays: the page's fast path). */
  statement(sql: string): StatementSync {
    const cached = this.#lists.get(sql);
    // A hit is the hot path of every page: it is not moved. The cache is first in, first out,
    // which a spec's few list shapes never fill; a hostile stream of shapes only re-prepares.
    if (cached) return cached;
    const statement = returningArrays(this.#db.prepare(sql));
    this.#lists.set(sql, statement);
    return statement;
  }
}

/** A page of `limit` records from its rows (one more than the limit says a page follows). */
function page(rows: readonly Row[], limit: number): ListResult {
  const count = Math.min(rows.length, limit);
  const records: StoredRecord[] = new Array(count);
  for (let i = 0; i < count; i++) records[i] = new PageRecord(rows[i]);
  return { records, hasMore: rows.length > limit };
}

/** A lean page (store.ts LeanListQuery) from its rows: a loop of its own, so each stays monomorphic. */
function leanPage(rows: readonly LeanRow[], limit: number, plain: boolean): ListResult<ListedRecord> {
  const count = Math.min(rows.length, limit);
  const records: ListedRecord[] = new Array(count);
  for (let i = 0; i < count; i++) records[i] = new LeanRecord(rows[i]);
  return { records, hasMore: rows.length > limit, plain };
}

function isEmpty(filter: ListQuery['filter']): boolean {
  if (filter === undefined) return true;
  for (const _ in filter) return false;
  return true;
}
