/**
 * What a domain step (./sqlite-domain.ts) reads and writes through, inside the write's open
 * transaction on the main connection: records by id, counts and lists (./sqlite-queries.ts),
 * the managed sequences' counters, and the compare-and-set writes of related records.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { RelatedWrite } from './domain.ts';
import type { NewEvent } from './events.ts';
import { LazyRecord } from './lazy-record.ts';
import { uniqueViolation, type TxAccess } from './sqlite-domain.ts';
import { NO_LIVE } from './sqlite-list.ts';
import type { PlainMarks } from './sqlite-plain.ts';
import type { SqliteQueries } from './sqlite-queries.ts';
import { liveOf, returningArrays, toRecord, type Row, type Statements } from './sqlite-record.ts';
import type { StoredRecord } from './store.ts';

/** What the transaction's access needs of its store. */
export interface TxDeps {
  /** A resource's prepared statements. */
  statements(resource: string): Statements;
  /** The effect fields a resource's table keeps apart (`live`). */
  liveOf(resource: string): ReadonlySet<string>;
  readonly queries: SqliteQueries;
  /** Appends events to the log, in the open transaction. */
  append(events: readonly NewEvent[]): void;
  /** The tables' marks (./sqlite-plain.ts), which a related write keeps as any write does. */
  readonly marks: PlainMarks;
}

export function sqliteTx(db: DatabaseSync, deps: TxDeps): TxAccess {
  // Read, then written once the write they number stands (./sqlite-domain.ts decideStep): no
  // upsert with RETURNING, and nothing to give back when the write is refused.
  const sequences = {
    value: returningArrays(db.prepare('SELECT value FROM sequences WHERE name = ?')),
    insert: db.prepare('INSERT INTO sequences (name, value) VALUES (?, ?)'),
    update: db.prepare('UPDATE sequences SET value = ? WHERE name = ?'),
    remove: db.prepare('DELETE FROM sequences WHERE name = ?'),
  };
  return {
    get: (resource, id) => {
      const row = deps.statements(resource).get.get(id) as Row | undefined;
      return row && toRecord(row);
    },
    count: (resource, query) => deps.queries.countNow(deps.statements(resource).table, deps.liveOf(resource), query),
    list: (resource, query, limit) => deps.queries.listNow(deps.statements(resource).table, deps.liveOf(resource), query, limit),
    sequenceValue: (name) => {
      const row = sequences.value.get(name) as unknown as [number] | undefined;
      return row && Number(row[0]);
    },
    setSequence: (name, value, exists) => {
      const q = sequences;
      if (value === undefined) q.remove.run(name);
      else if (exists) q.update.run(value, name);
      else q.insert.run(name, value);
    },
    // One compare-and-set statement on the id and the version the step read: no read of the
    // row again to compare (the step read it in this transaction), RETURNING what its event
    // needs when it triggers one (an effect on a resource that declares no event on it does not).
    // A change of effect fields only, on a table that keeps them apart, writes `live` and not
    // `data` (./sqlite-record.ts Statements.updateLiveIf): the record's indexes stay as they are.
    apply: (write: RelatedWrite) => {
      const s = deps.statements(write.resource);
      const live = write.kind === 'update' ? deps.liveOf(write.resource) : NO_LIVE;
      const apart = write.kind === 'update' && write.changes !== undefined && write.changes.length > 0 && write.changes.every((f) => live.has(f));
      let record: StoredRecord;
      try {
        // Before the write, in its transaction (./sqlite-plain.ts PlainMarks.clear).
        if (write.kind === 'update') deps.marks.writing(s.table, undefined, write.data);
        if (!write.events) {
          const done = write.kind === 'remove' ? s.removeIfQuiet.run(write.id, write.version) : apart ? s.updateLiveIfQuiet.run(liveOf(write.data, live), write.id, write.version) : s.updateIfQuiet.run(JSON.stringify(write.data), write.id, write.version);
          return Number(done.changes) === 1;
        }
        if (write.kind === 'update') {
          const json = JSON.stringify(write.data);
          const row = (apart ? s.updateLiveIf.get(liveOf(write.data, live), write.id, write.version) : s.updateIf.get(json, write.id, write.version)) as readonly [seq: number, owner: string | null] | undefined;
          if (!row) return false;
          record = new LazyRecord(row[0], write.id, write.version + 1, row[1], json);
        } else {
          const row = s.removeIf.get(write.id, write.version) as Row | undefined;
          if (!row) return false;
          record = toRecord(row);
        }
      } catch (error) {
        throw uniqueViolation(error) ?? error;
      }
      if (write.events) deps.append(write.events(record));
      return true;
    },
  };
}
