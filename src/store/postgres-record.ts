/**
 * A record read from PostgreSQL: the row of RECORD_COLUMNS (seq, id, version, owner,
 * data::text), its data parsed on first read (./lazy-record.ts, shared with SQLite); and the
 * statements that read and write a resource's records.
 */
import { LazyRecord } from './lazy-record.ts';
import { casStatements, type CasStatements } from './postgres-cas.ts';
import { quoteIdent, RECORD_COLUMNS, tableName } from './postgres-list.ts';

export type PgRow = readonly [seq: string | number, id: string, version: number, owner: string | null, data: string];

/** A row of RECORD_COLUMNS as the record it holds (./lazy-record.ts). */
export class PgRecord extends LazyRecord {
  constructor(row: PgRow) {
    super(Number(row[0]), row[1], row[2], row[3], row[4]);
  }
}

/** The statements of a resource's table, as its records are read and written. */
export interface Statements {
  readonly table: string;
  readonly get: string;
  readonly lock: string;
  readonly insert: string;
  readonly update: string;
  readonly remove: string;
  /** Several inserts in one statement (./postgres-batch.ts): their rows in their order, a skipped one (a conflict) as NULLs. */
  readonly insertBatch: string;
  /** An update or a removal without rules or events in one statement (./postgres-cas.ts). */
  readonly cas: CasStatements;
}

export function recordStatements(resource: string): Statements {
  const table = tableName(resource);
  const q = quoteIdent(table);
  const sequence = quoteIdent(`${table}_seq`).replace(/'/g, "''");
  return {
    table,
    get: `SELECT ${RECORD_COLUMNS} FROM ${q} WHERE id = $1`,
    lock: `SELECT ${RECORD_COLUMNS} FROM ${q} WHERE id = $1 FOR UPDATE`,
    // The sequence number is the id when none is given; nextval is never rolled back, so none is reused.
    insert: `INSERT INTO ${q} (seq, id, version, owner, data) SELECT n, coalesce($1::text, n::text), 1, $2::text, $3::text::jsonb
      FROM (SELECT nextval('${sequence}') AS n) s RETURNING ${RECORD_COLUMNS}`,
    update: `UPDATE ${q} SET version = version + 1, data = $2::text::jsonb WHERE seq = $1 RETURNING ${RECORD_COLUMNS}`,
    remove: `DELETE FROM ${q} WHERE seq = $1`,
    // nextval in input order (a scan of unnest WITH ORDINALITY), so seqs follow the calls' order;
    // the CTE is materialized (volatile, read twice), so each input takes one number.
    insertBatch: `WITH x AS (SELECT nextval('${sequence}') AS n, u.i, u.id, u.owner, u.data FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(id, owner, data, i)),
      ins AS (INSERT INTO ${q} (seq, id, version, owner, data) SELECT n, coalesce(id, n::text), 1, owner, data::jsonb FROM x ORDER BY i
        ON CONFLICT DO NOTHING RETURNING ${RECORD_COLUMNS})
      SELECT ins.seq, ins.id, ins.version, ins.owner, ins.data FROM x LEFT JOIN ins ON ins.seq = x.n ORDER BY x.i`,
    cas: casStatements(q),
  };
}
