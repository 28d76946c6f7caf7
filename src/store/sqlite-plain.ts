/**
 * Whether the SQLite store can vouch for a table's pages (store.ts ListResult `plain`): every
 * record's id is one that JSON text holds as it is (nothing RFC 8259 §7 escapes), and no
 * record's data has a top-level member named as the layout's `idField`. A presenter then puts
 * each id in quotes in front of the stored text without checking either, which was a
 * fourteenth of a page of 20 (a scan of every character of both).
 *
 * `plain_tables` holds a mark per table whose layout names an id field: `plain` is 1 while
 * every record is plain. The store's writes keep it (PlainMarks: a write of a record that is
 * not plain clears it in the write's own transaction, before the write). A table is scanned
 * for its mark once: when its layout first names the field, or another one, or when its row
 * is gone; a table whose layout names none has no mark, and its pages are checked record by
 * record. Triggers would keep it for any writer, but a trigger costs SQLite a sub-program per
 * row (~1 µs an insert with no condition at all, 1.6 µs with this one: 3% of a create). So a
 * file is written by svcspec only (README: a tool that edits one by hand deletes its rows of
 * `plain_tables`, and the next start scans again), and the schema that has marks (6) is one
 * an older svcspec refuses to open.
 *
 * A lean page asks for the mark after its rows (./sqlite-queries.ts): `plain` goes from 1 to
 * 0 and back only when a migrate scans again, so a mark of 1 known after the rows' snapshot
 * says that no record they hold was written otherwise. The store knows it without reading it
 * again until it clears it itself, being the only writer of the file (one store object on a
 * file: SQLite is for one process, README), which makes a page cost no read of the mark at
 * all. A statement of its own was a read transaction of its own (two fcntl locks, ~4 µs of a
 * page's ~39 µs of user and system time), and the mark as a column of the page's statement
 * ~500 instructions a row. The cost of the rule: a second writer of the file (another
 * process, which README leaves out, or another store object on it) is seen by this one's
 * pages only once this one is opened again (or clears the mark itself).
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { jsonPath, quoteIdent } from './sqlite-sql.ts';

/** A table's mark: the `id_field` it is kept for, `plain` 1 while every record is plain. */
export const PLAIN_DDL = 'CREATE TABLE IF NOT EXISTS plain_tables (tbl TEXT PRIMARY KEY, id_field TEXT NOT NULL, plain INTEGER NOT NULL)';

/**
 * What JSON.stringify escapes in an id as SQLite stores it: control characters, the quote and
 * the backslash (RFC 8259 §7). A lone surrogate, which it escapes too, cannot be stored:
 * node:sqlite binds it as U+FFFD.
 */
const ESCAPED = /[\u0000-\u001f"\\]/;

/** The SQL of "this row is not plain" (a scan at migrate). Data that is not JSON counts as not plain. */
function unplain(field: string): string {
  const path = sqlText(jsonPath(field));
  const member = (column: string) => `(${column} IS NOT NULL AND CASE WHEN json_valid(${column}) THEN json_type(${column}, ${path}) IS NOT NULL ELSE 1 END)`;
  // An id that is not text (a BLOB written by hand) is not plain; json_quote would refuse it.
  return `CASE WHEN typeof(id) = 'text' THEN json_quote(id) <> '"' || id || '"' ELSE 1 END OR ${member('data')} OR ${member('live')}`;
}

/**
 * Brings a table's mark to its layout's id field: unchanged where its row names that field
 * already; else found by a scan; dropped where the layout names none.
 */
export function syncPlain(db: DatabaseSync, table: string, idField: string | undefined): void {
  const row = db.prepare('SELECT id_field FROM plain_tables WHERE tbl = ?').get(table) as { id_field: string } | undefined;
  if (idField !== undefined && row?.id_field === idField) return;
  db.prepare('DELETE FROM plain_tables WHERE tbl = ?').run(table);
  if (idField === undefined) return;
  const found = db.prepare(`SELECT EXISTS (SELECT 1 FROM ${quoteIdent(table)} WHERE ${unplain(idField)}) AS found`).get() as { found: number };
  db.prepare('INSERT INTO plain_tables (tbl, id_field, plain) VALUES (?, ?, ?)').run(table, idField, found.found ? 0 : 1);
}

/** A string as an SQL literal (a table's name, a JSON path). */
function sqlText(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The store's side of the marks: which field each table's mark is kept for, reading it, clearing it. */
export class PlainMarks {
  readonly #db: DatabaseSync;
  /** Table → the id field this process presents (its layout's); null: none. Read from the file for a table this process has not migrated. */
  readonly #fields = new Map<string, string | null>();
  /** Table → the read of its mark for that field (its name and field written in: nothing to bind on a page's path); null: no field. */
  readonly #reads = new Map<string, StatementSync | null>();
  readonly #clear: StatementSync;
  /**
   * Table → its mark as last read. Forgotten where this store clears it or migrates the table,
   * the only ways the mark of a file it alone writes changes: read again at the next page, once
   * the write's transaction has ended, committed (0) or rolled back (1 still).
   */
  readonly #known = new Map<string, boolean>();

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#clear = db.prepare('UPDATE plain_tables SET plain = 0 WHERE tbl = ? AND plain = 1');
  }

  /**
   * Migrates so far. A write judged before one (at its call, with the id field then) and
   * written after it (later in the turn) is judged again where it is written: see stale().
   */
  migrates = 0;

  /** The tables were migrated: each mark is kept and read for the field its layout names now, read again. */
  migrated(table: string, idField: string | undefined): void {
    this.#fields.set(table, idField ?? null);
    this.#reads.delete(table);
    this.#known.delete(table);
    this.migrates++;
  }

  /**
   * Whether a record judged plain at `migrates` = `at` must be taken as not plain now: a
   * migrate came between (another id field, perhaps). Rare, and never wrong to clear.
   */
  stale(at: number): boolean {
    return at !== this.migrates;
  }

  #field(table: string): string | null {
    let field = this.#fields.get(table);
    if (field === undefined) {
      const row = this.#db.prepare('SELECT id_field FROM plain_tables WHERE tbl = ?').get(table) as { id_field: string } | undefined;
      this.#fields.set(table, (field = row?.id_field ?? null));
    }
    return field;
  }

  /**
   * Whether a record is plain: its id needs no escape and its data has no member named as the
   * table's id field. Conservative where it cannot be exact: a member present but undefined,
   * which JSON text leaves out, counts. `id` undefined: a sequence id, digits.
   */
  plain(table: string, id: string | undefined, data: Readonly<Record<string, unknown>> | undefined): boolean {
    if (id !== undefined && ESCAPED.test(id)) return false;
    const field = this.#field(table);
    return field === null || data === undefined || !Object.hasOwn(data, field);
  }

  /**
   * Clears a table's mark, inside the transaction of the write of a record that is not plain,
   * before that write: should the write be refused after it, the mark stays cleared, which
   * only makes the table's pages checked (never the reverse: a record that is not plain
   * committed under a mark still set).
   */
  clear(table: string): void {
    this.#clear.run(table);
    this.#known.delete(table);
  }

  /** clear() where the record about to be written is not plain. */
  writing(table: string, id: string | undefined, data: Readonly<Record<string, unknown>> | undefined): void {
    if (!this.plain(table, id, data)) this.clear(table);
  }

  /**
   * Whether the mark vouches for every record of the table, for the id field this process
   * presents (a mark kept for another field vouches for nothing here). Called after a page's
   * rows; read from the file only where it is not known (see #known): a read of its own is a
   * read transaction of its own, two fcntl locks, ~4 µs of a page's ~39 (user and system
   * time, /proc).
   */
  vouched(table: string): boolean {
    const known = this.#known.get(table);
    if (known !== undefined) return known;
    let read = this.#reads.get(table);
    if (read === undefined) {
      const field = this.#field(table);
      read = field === null ? null : this.#db.prepare(`SELECT plain FROM plain_tables WHERE tbl = ${sqlText(table)} AND id_field = ${sqlText(field)}`);
      read?.setReturnArrays(true);
      this.#reads.set(table, read);
    }
    const row = read?.get() as unknown as [plain: number] | undefined;
    const plain = row !== undefined && row[0] === 1;
    this.#known.set(table, plain);
    return plain;
  }
}
