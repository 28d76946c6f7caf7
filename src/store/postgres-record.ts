/**
 * A record read from PostgreSQL: the row of RECORD_COLUMNS (seq, id, version, owner,
 * data::text), its data parsed on first read (./lazy-record.ts, shared with SQLite).
 */
import { LazyRecord } from './lazy-record.ts';

export type PgRow = readonly [seq: string | number, id: string, version: number, owner: string | null, data: string];

/** A row of RECORD_COLUMNS as the record it holds (./lazy-record.ts). */
export class PgRecord extends LazyRecord {
  constructor(row: PgRow) {
    super(Number(row[0]), row[1], row[2], row[3], row[4]);
  }
}
