/**
 * The writing steps of the SQLite adapter (./sqlite.ts) that its write paths share: the one
 * INSERT of a record, a write's events appended after it, and a savepoint around a work that
 * writes more than once. Each runs inside the group's open transaction (./sqlite-commit.ts).
 */
import type { DatabaseSync } from 'node:sqlite';
import type { NewEvent } from './events.ts';
import { LazyRecord } from './lazy-record.ts';
import { uniqueViolation } from './sqlite-domain.ts';
import type { PlainMarks } from './sqlite-plain.ts';
import type { Statements } from './sqlite-record.ts';
import { DuplicateIdError, type NewRecord, type StoredRecord } from './store.ts';

/** SQLITE_CONSTRAINT_UNIQUE (2067) or SQLITE_CONSTRAINT_PRIMARYKEY (1555). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { errcode?: number }).errcode;
  return code === 2067 || code === 1555;
}

/**
 * The one INSERT of a record (on the resource's statements `s`), as a function run inside a
 * transaction; given data (a domain step's), it inserts that instead of the record's.
 */
export function recordWriter(s: Statements, marks: PlainMarks, resource: string, record: NewRecord, decides = false): (decided?: Record<string, unknown>) => StoredRecord {
  // Serialized now, when the call is made (the work runs later in the turn); a record a
  // domain step decides is serialized as decided, and its data never (a stringify wasted).
  const prepared = decides ? undefined : JSON.stringify(record.data);
  const owner = record.owner ?? null;
  const given = record.id;
  // Judged for the table's mark (./sqlite-plain.ts) with the text it is serialized to: now, or as decided.
  const plainNow = decides || marks.plain(s.table, given, record.data);
  const judgedAt = marks.migrates;
  const write = (decided?: Record<string, unknown>): StoredRecord => {
    const data = decided === undefined ? (prepared ?? JSON.stringify(record.data)) : JSON.stringify(decided);
    if (decided === undefined ? !plainNow || marks.stale(judgedAt) : !marks.plain(s.table, given, decided)) marks.clear(s.table);
    if (given !== undefined) {
      // The UNIQUE constraint refuses a taken id inside the INSERT itself.
      try {
        return new LazyRecord(Number(s.insert.run(null, given, owner, data).lastInsertRowid), given, 1, owner, data);
      } catch (error) {
        const unique = uniqueViolation(error);
        if (unique) throw unique;
        if (isUniqueViolation(error)) throw new DuplicateIdError(resource, given);
        throw error;
      }
    }
    // The next sequence number, read under the write lock: AUTOINCREMENT's own counter,
    // which remembers deleted rows, so an id is never handed out twice.
    const seq = Number(s.nextSeq.get(s.table)?.next);
    const id = String(seq);
    // A resource that mixes given and sequence ids can meet a taken id here too.
    if (s.get.get(id) !== undefined) throw new DuplicateIdError(resource, id);
    try {
      return new LazyRecord(Number(s.insert.run(seq, id, owner, data).lastInsertRowid), id, 1, owner, data);
    } catch (error) {
      throw uniqueViolation(error) ?? error;
    }
  };
  return write;
}

/**
 * A write's events, appended after it without a savepoint: the write went first, being the
 * one statement that can be refused (a taken id, a unique index), and the events' INSERTs
 * refuse nothing (their one constraint, NOT NULL, is always met). Should the events fail all
 * the same (their maker throws, say), they take themselves back out (./sqlite-events.ts) and
 * the write is undone by hand; if that fails too, the group's whole transaction is rolled
 * back, and the group commit fails every work in it: a record is never committed without its
 * events. A savepoint instead copied every page the write changed (the record's table, field
 * and unique indexes) into its journal: ~30K instructions a create with events (callgrind).
 */
export function appendAfter(db: DatabaseSync, append: (events: readonly NewEvent[]) => void, events: () => readonly NewEvent[], undo: () => void): void {
  try {
    append(events());
  } catch (error) {
    if (db.isTransaction) {
      try {
        undo();
      } catch {
        try {
          db.exec('ROLLBACK');
        } catch {
          // Rolled back already by SQLite, or closed: either way nothing of it is committed.
        }
      }
    }
    throw error;
  }
}

/** Runs a work inside a savepoint of the open transaction: all of it, or none of it. */
export function savepointRunner(db: DatabaseSync): <T>(work: () => T) => T {
  // Prepared once: a savepoint per write with events or rules would otherwise parse its SQL every time.
  const open = db.prepare('SAVEPOINT write');
  const release = db.prepare('RELEASE write');
  const undo = db.prepare('ROLLBACK TO write');
  return <T>(work: () => T): T => {
    open.run();
    try {
      const result = work();
      release.run();
      return result;
    } catch (error) {
      if (db.isTransaction) {
        undo.run();
        release.run();
      }
      throw error;
    }
  };
}
