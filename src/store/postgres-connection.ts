/**
 * Reaching PostgreSQL (./postgres.ts): the URL the adapter takes, how a statement is sent, and
 * the errors of the client and the server it tells apart — a database that cannot be reached
 * (the service answers 503) and a unique violation (a taken id or unique value).
 */
import type { Sql, TransactionSql } from 'postgres';
import type { PgRow } from './postgres-record.ts';
import { StoreUnavailableError } from './store.ts';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The URL without its `schema` parameter, and the schema. */
export function parsePostgresUrl(url: string): { url: string; schema: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`'${url}' is not a PostgreSQL URL (postgres://user@host:5432/database?schema=name)`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new Error(`'${url}' is not a PostgreSQL URL: it must start with postgres:// or postgresql://`);
  const schema = parsed.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`the schema '${schema}' of ${parsed.host}${parsed.pathname} is not a plain PostgreSQL name (letters, digits and _, at most 63)`);
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
}

/** A failure to reach the database, as the error the service answers 503 for; undefined for any other. */
export function unavailable(error: unknown): StoreUnavailableError | undefined {
  const e = error as { code?: string; message?: string };
  const code = e?.code ?? '';
  // Connection failures of the client and the server's "shutting down" / "cannot connect now" classes.
  if (/^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|57P0[1-3]|08\d\d\d)$/.test(code)) {
    return new StoreUnavailableError(`PostgreSQL cannot be reached: ${e.message ?? code}`);
  }
  return undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23505';
}

/**
 * A prepared statement, sent now: `execute()` queues it on a connection in call order (a
 * query of the client otherwise starts only when awaited, a tick later), so of two calls made
 * in one turn the first reaches the database first, as the Store's contract expects.
 */
export function send<T>(on: Sql | TransactionSql, text: string, params: readonly unknown[]): Promise<T[]> {
  return on.unsafe(text, params as never[], { prepare: true }).execute() as unknown as Promise<T[]>;
}

/** send(), its rows as arrays (RECORD_COLUMNS order): no object per row is built only to be copied. */
export function sendRows(on: Sql | TransactionSql, text: string, params: readonly unknown[]): Promise<PgRow[]> {
  return on.unsafe(text, params as never[], { prepare: true }).values().execute() as unknown as Promise<PgRow[]>;
}
