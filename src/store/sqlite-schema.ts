/**
 * The SQLite adapter's tables and indexes (./sqlite.ts): a table per resource, its owner index,
 * an index per field its lists filter or sort by, its unique indexes; created or brought up to
 * the spec's layouts at each start, in one transaction.
 */
import type { DatabaseSync } from 'node:sqlite';
import { syncUniqueIndexes } from './sqlite-domain.ts';
import { fieldExpression, indexable } from './sqlite-list.ts';
import { fieldIndexName, ownerIndexName, quoteIdent, tableName, transaction } from './sqlite-sql.ts';
import type { TableLayout } from './store.ts';

export function migrateTables(db: DatabaseSync, resources: readonly (string | TableLayout)[]): void {
  const layouts = resources.map((r): TableLayout => (typeof r === 'string' ? { name: r } : r));
  const tables = layouts.map((l) => tableName(l.name));
  transaction(db, () => {
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
        data TEXT NOT NULL
      )`);
      // Lists of an owner's records (object-level authorization) are the common filtered read.
      // Partial: records without an owner (resources that are not owned) cost no index upkeep.
      db.exec(`CREATE INDEX IF NOT EXISTS ${quoteIdent(ownerIndexName(layout.name))} ON ${quoteIdent(t)} (owner, seq) WHERE owner IS NOT NULL`);
      fieldIndexes(db, t, layout);
      syncUniqueIndexes(db, t, layout.name, layout.unique ?? []);
    }
  });
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
export function fieldIndexes(db: DatabaseSync, table: string, layout: TableLayout): void {
  const owned = layout.owned === true;
  const wanted = new Map<string, string>();
  for (const field of new Set(layout.indexes ?? [])) {
    // A name outside the format's shape is queried by a bound path, which no index serves.
    if (!indexable(field)) continue;
    wanted.set(fieldIndexName(layout.name, field, owned), field);
  }
  const prefix = fieldIndexName(layout.name, '', false);
  const present = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?").all(table) as unknown as { name: string }[]).map((r) => r.name).filter((n) => n.startsWith(prefix));
  for (const name of present) if (!wanted.has(name)) db.exec(`DROP INDEX ${quoteIdent(name)}`);
  for (const [name, field] of wanted) {
    // No `seq` column: seq is the rowid, which every index entry ends with, so the index is
    // already in (value, seq) order, the order of ties (https://sqlite.org/queryplanner.html).
    const columns = `${owned ? 'owner, ' : ''}${fieldExpression(field)}`;
    db.exec(`CREATE INDEX IF NOT EXISTS ${quoteIdent(name)} ON ${quoteIdent(table)} (${columns})${owned ? ' WHERE owner IS NOT NULL' : ''}`);
  }
}
