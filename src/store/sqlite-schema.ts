/**
 * The SQLite adapter's tables and indexes (./sqlite.ts): a table per resource, its owner index,
 * an index per field its lists filter or sort by, its unique indexes; created or brought up to
 * the spec's layouts at each start, in one transaction.
 */
import type { DatabaseSync } from 'node:sqlite';
import { CREDENTIALS_DDL } from './sqlite-credentials.ts';
import { SEQUENCES_DDL, syncUniqueIndexes } from './sqlite-domain.ts';
import { EVENTS_DDL } from './sqlite-events.ts';
import { fieldExpression, indexable, NO_LIVE } from './sqlite-list.ts';
import { PLAIN_DDL, syncPlain } from './sqlite-plain.ts';
import { withLive } from './sqlite-record.ts';
import { fieldIndexName, ownerIndexName, quoteIdent, tableName, transaction } from './sqlite-sql.ts';
import type { TableLayout } from './store.ts';

/** The effect fields each table keeps in `live` (./sqlite-sql.ts RECORD_COLUMNS), as last migrated. */
export const LIVE_FIELDS_DDL = 'CREATE TABLE IF NOT EXISTS live_fields (tbl TEXT PRIMARY KEY, fields TEXT NOT NULL)';

/**
 * The effect fields a table keeps apart: those of its layout that no unique constraint
 * reads (a unique index is on `data`, and must see every value).
 */
export function liveFields(layout: TableLayout): ReadonlySet<string> {
  if (!layout.effectFields?.length) return NO_LIVE;
  const unique = new Set((layout.unique ?? []).flatMap((c) => [...c.fields, ...(c.where ?? []).map((w) => w.field)]));
  return new Set(layout.effectFields.filter((f) => indexable(f) && !unique.has(f)));
}

/** Creates or updates the tables and indexes; answers each resource's effect fields kept apart (liveFields). */
export function migrateTables(db: DatabaseSync, resources: readonly (string | TableLayout)[]): Map<string, ReadonlySet<string>> {
  const layouts = resources.map((r): TableLayout => (typeof r === 'string' ? { name: r } : r));
  const tables = layouts.map((l) => tableName(l.name));
  const lives = new Map<string, ReadonlySet<string>>();
  transaction(db, () => {
    db.exec(LIVE_FIELDS_DDL);
    // Table names are case-insensitive in SQLite: `Books` and `books` would share a table.
    const taken = new Map<string, string>();
    const existing = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'res\\_%' ESCAPE '\\'").all() as unknown as { name: string }[];
    for (const { name } of existing) taken.set(name.toLowerCase(), name);
    const asked = new Map<string, string>();
    for (const t of tables) {
      const other = asked.get(t.toLowerCase()) ?? taken.get(t.toLowerCase());
      if (other !== undefined && other !== t) throw new Error(`resources '${t.slice(4)}' and '${other.slice(4)}' differ only in case; SQLite cannot keep them apart`);
      asked.set(t.toLowerCase(), t);
    }
    for (const [i, t] of tables.entries()) {
      const layout = layouts[i];
      db.exec(`CREATE TABLE IF NOT EXISTS ${quoteIdent(t)} (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT UNIQUE NOT NULL,
        version INTEGER NOT NULL,
        owner TEXT,
        data TEXT NOT NULL,
        live TEXT
      )`);
      const live = liveFields(layout);
      keepLive(db, t, live);
      lives.set(layout.name, live);
      syncPlain(db, t, layout.idField);
      // Lists of an owner's records (object-level authorization) are the common filtered read.
      // Partial: records without an owner (resources that are not owned) cost no index upkeep.
      db.exec(`CREATE INDEX IF NOT EXISTS ${quoteIdent(ownerIndexName(layout.name))} ON ${quoteIdent(t)} (owner, seq) WHERE owner IS NOT NULL`);
      fieldIndexes(db, t, layout, live);
      syncUniqueIndexes(db, t, layout.name, layout.unique ?? []);
    }
  });
  return lives;
  // No ANALYZE: statistics taken at start-up (an empty table, often) would mislead the
  // planner later; without them it takes an equality on an index as selective and prefers
  // an index that gives the order to a sort, which is what a page of a list needs.
}

/**
 * An index per field lists filter or sort by, on the expression the list SQL writes
 * (src/store/sqlite-list.ts), in (value, seq) order, seq breaking ties; an owned resource's lead with
 * the owner, which every list of it names. Indexes of fields no longer listed are dropped:
 * each costs every write.
 */
/**
 * Brings a table's `live` column to its effect fields: added to a table of an earlier schema;
 * and where the fields kept apart are not those of the last start, every record's `live`
 * folded back into its `data` first, so that `data` holds every other field's value (list
 * SQL reads only the fields kept apart from `live`).
 */
/**
 * The effect fields a table kept apart at its last migrate, by any process (live_fields):
 * for a table this process has not migrated, whose rows may hold `live` values all the same.
 */
export function persistedLive(db: DatabaseSync, table: string): ReadonlySet<string> {
  const known = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'live_fields'").get();
  if (!known) return NO_LIVE;
  const row = db.prepare('SELECT fields FROM live_fields WHERE tbl = ?').get(table) as { fields: string } | undefined;
  return row ? new Set(JSON.parse(row.fields) as string[]) : NO_LIVE;
}

function keepLive(db: DatabaseSync, table: string, live: ReadonlySet<string>): void {
  const q = quoteIdent(table);
  const columns = (db.prepare(`PRAGMA table_info(${q})`).all() as unknown as { name: string }[]).map((c) => c.name);
  if (!columns.includes('live')) db.exec(`ALTER TABLE ${q} ADD COLUMN live TEXT`);
  const fields = JSON.stringify([...live].sort());
  const before = (db.prepare('SELECT fields FROM live_fields WHERE tbl = ?').get(table) as { fields: string } | undefined)?.fields;
  if (before === fields) return;
  const fold = db.prepare(`UPDATE ${q} SET data = ?, live = NULL WHERE seq = ?`);
  for (const row of db.prepare(`SELECT seq, data, live FROM ${q} WHERE live IS NOT NULL`).all() as unknown as { seq: number; data: string; live: string }[]) fold.run(withLive(row.data, row.live), row.seq);
  db.prepare('INSERT INTO live_fields (tbl, fields) VALUES (?, ?) ON CONFLICT (tbl) DO UPDATE SET fields = excluded.fields').run(table, fields);
}

export function fieldIndexes(db: DatabaseSync, table: string, layout: TableLayout, live: ReadonlySet<string> = NO_LIVE): void {
  const owned = layout.owned === true;
  const wanted = new Map<string, string>();
  for (const field of new Set(layout.indexes ?? [])) {
    // A name outside the format's shape is queried by a bound path, which no index serves.
    if (!indexable(field)) continue;
    wanted.set(fieldIndexName(layout.name, field, owned), field);
  }
  const prefix = fieldIndexName(layout.name, '', false);
  const present = (db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?").all(table) as unknown as { name: string; sql: string }[]).filter((r) => r.name.startsWith(prefix));
  const statement = (name: string, field: string) => {
    // No `seq` column: seq is the rowid, which every index entry ends with, so the index is
    // already in (value, seq) order, the order of ties (https://sqlite.org/queryplanner.html).
    const columns = `${owned ? 'owner, ' : ''}${fieldExpression(field, live)}`;
    return `CREATE INDEX ${quoteIdent(name)} ON ${quoteIdent(table)} (${columns})${owned ? ' WHERE owner IS NOT NULL' : ''}`;
  };
  // An index no longer wanted, or on another expression (a field that became, or stopped being, an effect field kept apart), goes.
  for (const { name, sql } of present) {
    const field = wanted.get(name);
    if (field === undefined || statement(name, field) !== sql) db.exec(`DROP INDEX ${quoteIdent(name)}`);
  }
  for (const [name, field] of wanted) db.exec(statement(name, field).replace('CREATE INDEX ', 'CREATE INDEX IF NOT EXISTS '));
}

/**
 * The layout this code reads and writes, kept in `PRAGMA user_version`. 5: a record's effect
 * fields may be in `live` rather than `data`, which an older svcspec would not read. 6: the
 * tables' marks (./sqlite-plain.ts), which an older svcspec would not keep as it writes.
 */
export const SCHEMA_VERSION = 6;

/**
 * A store's database made ready (./sqlite.ts openSqliteStore): WAL mode (refused where it
 * cannot be had), the durability asked, and the tables every store has, created or upgraded
 * to SCHEMA_VERSION; a file of a newer layout is refused.
 */
export function prepareDatabase(db: DatabaseSync, path: string, durability: 'normal' | 'full' | undefined): void {
  const memory = path === ':memory:';
  // An in-memory database has no WAL; it answers 'memory'. A file that cannot be put in WAL
  // mode (a file system without shared memory) would not keep the store's promises (./sqlite.ts): refuse it.
  const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
  if (!memory && mode !== 'wal') throw new Error(`SQLite could not put ${path} in WAL mode (it stays in '${String(mode)}' mode)`);
  db.exec(`PRAGMA synchronous = ${durability === 'normal' ? 'NORMAL' : 'FULL'}`);
  // The undo journal of a savepoint (a write with events or domain rules, a batch) spills to
  // a temporary file once it passes 64 KiB (SQLITE_STMTJRNL_SPILL), about 16 pages: one
  // record with its indexes, its events and a step's writes passes it. Each transaction then
  // created, wrote and deleted a file in /var/tmp. Kept in memory, it is only a copy of the
  // pages the savepoint changed, freed at its release. Its other temporary data is small (pages
  // that would sort much are read on the reader thread), except while migrate builds a new
  // field or unique index over a large existing table: that sorter runs in memory too.
  db.exec('PRAGMA temp_store = MEMORY');
  transaction(db, () => {
    const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
    if (version > SCHEMA_VERSION) throw new Error(`${path} was written by a newer svcspec (store schema ${version}; this one reads ${SCHEMA_VERSION})`);
    db.exec(`CREATE TABLE IF NOT EXISTS idempotency (
      scope TEXT NOT NULL, key TEXT NOT NULL,
      fingerprint TEXT NOT NULL, status INTEGER NOT NULL, headers TEXT NOT NULL, body TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (scope, key)
    )`);
    db.exec('CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (created_at)');
    // Schema 2 added the credentials table; creating it is all a schema-1 file needs.
    for (const ddl of CREDENTIALS_DDL) db.exec(ddl);
    // Schema 3 added the event log and webhook tables, likewise.
    for (const ddl of EVENTS_DDL) db.exec(ddl);
    // Schema 4 added the counters of managed sequences (src/store/domain.ts), likewise.
    db.exec(SEQUENCES_DDL);
    // Schema 6 added the tables' marks (./sqlite-plain.ts), which every lean page reads: made
    // here, so a file of an earlier schema lists before any migrate (no mark: nothing vouched for).
    db.exec(PLAIN_DDL);
    if (version < SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  });
}
