/**
 * The SQLite adapter's rows as records (./sqlite.ts): a row read whole, a list page's lighter
 * record, and the prepared statements of one resource table.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { LazyRecord } from './lazy-record.ts';
import { quoteIdent, RECORD_COLUMNS, tableName } from './sqlite-sql.ts';
import type { ListedRecord, StoredRecord } from './store.ts';

/** A row of RECORD_COLUMNS; a list page of a table that keeps no field apart has no `live` (PAGE_COLUMNS). */
export type Row = readonly [seq: number, id: string, version: number, owner: string | null, data: string, live?: string | null];

export function toRecord(row: Row): StoredRecord {
  if (row.length < 6 || row[5] === null) return new LazyRecord(row[0], row[1], row[2], row[3], row[4]);
  // Merged, the record is parsed already: it is handed on, not parsed again when read (a step reads it).
  const data = mergeLive(row[4], row[5] as string);
  return new LazyRecord(row[0], row[1], row[2], row[3], JSON.stringify(data), data);
}

/**
 * The record's JSON: `data` with the members of `live` (its effect fields' values, written
 * apart) put in, each where `data` has it, the others after, in `live`'s order. This is the
 * text the whole record had when a related write last changed it (JSON.stringify of the data
 * read, its effect fields set): a member already there keeps its place, a new one is added
 * last, and `live` lists its members in the record's order.
 */
export function withLive(data: string, live: string): string {
  return JSON.stringify(mergeLive(data, live));
}

/** The record withLive writes, as an object. */
function mergeLive(data: string, live: string): Record<string, unknown> {
  const record = JSON.parse(data) as Record<string, unknown>;
  const values = JSON.parse(live) as Record<string, unknown>;
  for (const key of Object.keys(values)) record[key] = values[key];
  return record;
}

/** The members of a record's data that go to `live` (see withLive): its effect fields present, in the record's order. */
export function liveOf(data: Readonly<Record<string, unknown>>, effectFields: ReadonlySet<string>): string {
  const live: Record<string, unknown> = {};
  for (const key of Object.keys(data)) if (effectFields.has(key) && data[key] !== undefined) live[key] = data[key];
  return JSON.stringify(live);
}

/**
 * A record of a list page: the same members, but `data` a getter of the class, not an own
 * accessor. A page makes up to a hundred records that are presented and dropped, never
 * spread or compared, and defining an own property on each is a measurable part of a page.
 */
export class PageRecord implements StoredRecord {
  // Declared, not defined: a class field is defined on every instance before the constructor
  // runs (a keyed define each), and a page makes up to a hundred of these.
  declare readonly id: string;
  declare readonly seq: number;
  declare readonly version: number;
  declare readonly owner?: string;
  readonly #json: string;
  #data: Record<string, unknown> | undefined;

  constructor(row: Row) {
    this.seq = row[0];
    this.id = row[1];
    this.version = row[2];
    if (row[3] !== null) (this as { owner?: string }).owner = row[3];
    this.#json = row.length < 6 || row[5] === null ? row[4] : withLive(row[4], row[5] as string);
  }

  get json(): string {
    return this.#json;
  }

  get data(): Readonly<Record<string, unknown>> {
    return (this.#data ??= JSON.parse(this.#json) as Record<string, unknown>);
  }
}

/** A row of a lean list (./sqlite-list.ts listColumns). */
export type LeanRow = readonly [seq: number, id: string, data: string, live?: string | null];

/** A record of a lean list (store.ts LeanListQuery): a PageRecord without version or owner. */
export class LeanRecord implements ListedRecord {
  declare readonly id: string;
  declare readonly seq: number;
  readonly #json: string;
  #data: Record<string, unknown> | undefined;

  constructor(row: LeanRow) {
    this.seq = row[0];
    this.id = row[1];
    this.#json = row.length < 4 || row[3] === null ? row[2] : withLive(row[2], row[3] as string);
  }

  get json(): string {
    return this.#json;
  }

  get data(): Readonly<Record<string, unknown>> {
    return (this.#data ??= JSON.parse(this.#json) as Record<string, unknown>);
  }
}

export function returningArrays(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true);
  return statement;
}

/** The prepared statements of one resource table. */
export interface Statements {
  readonly table: string;
  readonly get: StatementSync;
  readonly nextSeq: StatementSync;
  readonly insert: StatementSync;
  readonly update: StatementSync;
  readonly remove: StatementSync;
  /** A related write of a domain step (compare-and-set on id and version): RETURNING (seq, owner). */
  readonly updateIf: StatementSync;
  /** Likewise a removal, RETURNING the record as it was. */
  readonly removeIf: StatementSync;
  /**
   * The same two without RETURNING, for a related write that triggers no event (nothing to
   * build from the row): SQLite gathers RETURNING rows in a table of their own before the
   * first is read, which is a tenth of a one-row update's cost; here `changes` says enough.
   */
  readonly updateIfQuiet: StatementSync;
  readonly removeIfQuiet: StatementSync;
  /**
   * A related write that changes effect fields only (TableLayout `effectFields`): their values
   * go to `live`, and `data`, with every index on it, is not written (SQLite writes an
   * expression index again whenever a column it reads is written, even to the same key).
   * RETURNING (seq, owner), and without.
   */
  readonly updateLiveIf: StatementSync;
  readonly updateLiveIfQuiet: StatementSync;
  /**
   * The plain pages (insertion order; no filter, search, sort or offset), prepared on first
   * use, by page size and slot: limit * 8 + (1 with an owner) + (2 after a position) + (4
   * lean) (./sqlite-queries.ts #plainPage; the LIMIT is written into the SQL). Emptied when
   * the tables are migrated again.
   */
  readonly plain: Map<number, PlainPage | null>;
}

/** A plain page's statement; null in its slot when such a page goes to the reader thread instead. */
export interface PlainPage {
  readonly statement: StatementSync;
}

/** The statements of a resource table (it exists once migrated, here or by an earlier start). */
export function prepareStatements(db: DatabaseSync, resource: string): Statements {
  const table = tableName(resource);
  const q = quoteIdent(table);
  let statements: Statements;
  try {
    statements = {
      table,
      get: returningArrays(db.prepare(`SELECT ${RECORD_COLUMNS} FROM ${q} WHERE id = ?`)),
      nextSeq: db.prepare(`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), coalesce((SELECT max(seq) FROM ${q}), 0)) + 1 AS next`),
      // No RETURNING: the seq is the rowid, which `run` gives as lastInsertRowid, and RETURNING
      // gathers its rows in a table of their own first (callgrind: ~20K instructions an insert).
      insert: db.prepare(`INSERT INTO ${q} (seq, id, version, owner, data) VALUES (?, ?, 1, ?, ?)`),
      // A write of the whole record: its effect fields are in `data` again, `live` is emptied.
      update: db.prepare(`UPDATE ${q} SET version = ?, data = ?, live = NULL WHERE seq = ?`),
      remove: db.prepare(`DELETE FROM ${q} WHERE seq = ?`),
      updateIf: returningArrays(db.prepare(`UPDATE ${q} SET version = version + 1, data = ?, live = NULL WHERE id = ? AND version = ? RETURNING seq, owner`)),
      removeIf: returningArrays(db.prepare(`DELETE FROM ${q} WHERE id = ? AND version = ? RETURNING ${RECORD_COLUMNS}`)),
      updateIfQuiet: db.prepare(`UPDATE ${q} SET version = version + 1, data = ?, live = NULL WHERE id = ? AND version = ?`),
      removeIfQuiet: db.prepare(`DELETE FROM ${q} WHERE id = ? AND version = ?`),
      updateLiveIf: returningArrays(db.prepare(`UPDATE ${q} SET version = version + 1, live = ? WHERE id = ? AND version = ? RETURNING seq, owner`)),
      updateLiveIfQuiet: db.prepare(`UPDATE ${q} SET version = version + 1, live = ? WHERE id = ? AND version = ?`),
      plain: new Map(),
    };
  } catch (error) {
    if (/no such table/.test((error as Error).message)) throw new Error(`bug: resource '${resource}' is not migrated`, { cause: error });
    throw error;
  }
  return statements;
}
