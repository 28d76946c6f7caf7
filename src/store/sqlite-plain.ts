/**
 * Whether the SQLite store can vouch for a table's pages (store.ts ListResult `plain`): every
 * record's id is one that JSON text holds as it is (nothing RFC 8259 §7 escapes), and no
 * record's data (nor its `live`) has a top-level member named as the layout's `idField`.
 * A presenter then puts each id in quotes in front of the stored text without checking
 * either, which was a fourteenth of a page of 20 (a scan of every character of both).
 *
 * Kept by SQLite, not by this process: `plain_tables` holds a row per table whose layout
 * names an id field, and two triggers on the table clear its `plain` when a write, by any
 * writer (a tool on the file, an older svcspec), adds a record that is not plain. The
 * triggers are pure SQL, so every writer keeps the mark true. A table's row and triggers are
 * made when its layout first names the field, or another one, and `plain` is then found by
 * one scan of the table (once, not at every start); a table whose layout names no id field
 * has neither, and its pages are checked record by record.
 *
 * A lean page reads the mark after its rows (./sqlite-queries.ts): `plain` goes from 1 to 0
 * and back only when a migrate scans again, so a mark of 1 read after the rows' snapshot says
 * that no record they hold was written otherwise, whoever writes the file. (Reading it as a
 * column of the page's own statement costs more: ~500 instructions a row against ~5K a page.)
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { jsonPath, quoteIdent } from './sqlite-sql.ts';

/** A table's mark: `id_field` its triggers test for, `plain` 1 while every record is plain. */
export const PLAIN_DDL = 'CREATE TABLE IF NOT EXISTS plain_tables (tbl TEXT PRIMARY KEY, id_field TEXT NOT NULL, plain INTEGER NOT NULL)';

/**
 * The SQL of "this row is not plain", over `row` (NEW in a trigger, the table in a scan).
 * A data text that is not JSON (which no svcspec writes) counts as not plain rather than
 * failing the write: json_type refuses malformed JSON.
 */
function unplain(row: string, field: string): string {
  const path = sqlText(jsonPath(field));
  const member = (column: string) => `(${column} IS NOT NULL AND CASE WHEN json_valid(${column}) THEN json_type(${column}, ${path}) IS NOT NULL ELSE 1 END)`;
  return `json_quote(${row}id) <> '"' || ${row}id || '"' OR ${member(`${row}data`)} OR ${member(`${row}live`)}`;
}

const triggerName = (table: string, when: 'insert' | 'update') => `${table}_unplain_${when}`;

/**
 * Brings a table's mark to its layout's id field: unchanged where its row names that field
 * already; else the triggers made for it and `plain` found by a scan; dropped where the
 * layout names none.
 */
export function syncPlain(db: DatabaseSync, table: string, idField: string | undefined): void {
  const q = quoteIdent(table);
  const row = db.prepare('SELECT id_field FROM plain_tables WHERE tbl = ?').get(table) as { id_field: string } | undefined;
  if (idField !== undefined && row?.id_field === idField) return;
  for (const when of ['insert', 'update'] as const) db.exec(`DROP TRIGGER IF EXISTS ${quoteIdent(triggerName(table, when))}`);
  db.prepare('DELETE FROM plain_tables WHERE tbl = ?').run(table);
  if (idField === undefined) return;
  const clear = `UPDATE plain_tables SET plain = 0 WHERE tbl = ${sqlText(table)} AND plain = 1`;
  db.exec(`CREATE TRIGGER ${quoteIdent(triggerName(table, 'insert'))} AFTER INSERT ON ${q} WHEN ${unplain('NEW.', idField)} BEGIN ${clear}; END`);
  db.exec(`CREATE TRIGGER ${quoteIdent(triggerName(table, 'update'))} AFTER UPDATE OF id, data, live ON ${q} WHEN ${unplain('NEW.', idField)} BEGIN ${clear}; END`);
  const found = db.prepare(`SELECT EXISTS (SELECT 1 FROM ${q} WHERE ${unplain('', idField)}) AS found`).get() as { found: number };
  db.prepare('INSERT INTO plain_tables (tbl, id_field, plain) VALUES (?, ?, ?)').run(table, idField, found.found ? 0 : 1);
}

/** A string as an SQL literal (a table's name, a JSON path, inside a trigger's text). */
function sqlText(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * The read of a table's mark: [1] while every record is plain. Prepared per table with its
 * name written in (nothing to bind on a page's path); no row where its layout names no id field.
 */
export function markStatement(db: DatabaseSync, table: string): StatementSync {
  const statement = db.prepare(`SELECT plain FROM plain_tables WHERE tbl = ${sqlText(table)}`);
  statement.setReturnArrays(true);
  return statement;
}
