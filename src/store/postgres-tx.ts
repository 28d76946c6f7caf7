/**
 * What a domain step of the PostgreSQL adapter reads and writes through, inside its write's
 * open transaction (./postgres-domain.ts runStep): records locked as read (FOR UPDATE), counts
 * and lists under a table lock that keeps the counted set still until COMMIT, the managed
 * sequences, and the related writes a step decides.
 */
import type { TransactionSql } from 'postgres';
import type { RelatedWrite } from './domain.ts';
import { send, sendRows } from './postgres-connection.ts';
import type { TxAccess } from './postgres-domain.ts';
import { appendEvents } from './postgres-events.ts';
import { countSql, listSql, quoteIdent } from './postgres-list.ts';
import { PgRecord, type PgRow, type Statements } from './postgres-record.ts';
import type { StoredRecord } from './store.ts';

/** `updateRow` writes a locked row's new data as the adapter does (a unique value refused as its error). */
export function txAccess(
  tx: TransactionSql,
  schema: string,
  statementsOf: (resource: string) => Statements,
  updateRow: (resource: string, s: Statements, row: PgRow, data: Record<string, unknown>) => Promise<StoredRecord>,
): TxAccess {
  const locked = new Set<string>();
  const lockTable = async (resource: string) => {
    const table = statementsOf(resource).table;
    if (!locked.has(table)) {
      await tx.unsafe(`LOCK TABLE ${quoteIdent(table)} IN SHARE ROW EXCLUSIVE MODE`);
      locked.add(table);
    }
    return table;
  };
  return {
    get: async (resource, id) => {
      const [row] = await sendRows(tx, statementsOf(resource).lock, [id]);
      return row && new PgRecord(row);
    },
    count: async (resource, query) => {
      const { sql, params } = countSql(await lockTable(resource), query);
      return Number((await send<{ n: number }>(tx, sql, params))[0].n);
    },
    list: async (resource, query, limit) => {
      const { sql, params } = listSql(await lockTable(resource), { ...query, limit });
      return (await sendRows(tx, sql, params)).map((row) => new PgRecord(row));
    },
    nextSequence: async (name) => Number((await send<{ value: string }>(tx, 'INSERT INTO sequences (name, value) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET value = sequences.value + 1 RETURNING value', [name]))[0].value),
    apply: async (write: RelatedWrite) => {
      const s = statementsOf(write.resource);
      const [row] = await sendRows(tx, s.lock, [write.id]);
      if (!row || row[2] !== write.version) return false;
      let record: StoredRecord = new PgRecord(row);
      if (write.kind === 'update') record = await updateRow(write.resource, s, row, write.data);
      else await send(tx, s.remove, [row[0]]);
      if (write.events) await appendEvents(tx, schema, write.events(record));
      return true;
    },
  };
}
