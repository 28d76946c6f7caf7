/**
 * Idempotency-Key responses in PostgreSQL (the `idempotency` table, ./postgres-schema.ts): the
 * first response to a key in a scope, kept until the sweep expires it (src/serve/idempotency.ts).
 */
import type { Sql } from 'postgres';
import { send } from './postgres-connection.ts';
import type { IdempotentResponse } from './store.ts';

export async function readIdempotent(sql: Sql, scope: string, key: string): Promise<IdempotentResponse | undefined> {
  const [row] = await send<{ fingerprint: string; status: number; headers: string; body: string; created_at: string }>(
    sql, 'SELECT fingerprint, status, headers, body, created_at FROM idempotency WHERE scope = $1 AND key = $2', [scope, key]);
  if (!row) return undefined;
  return { fingerprint: row.fingerprint, status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body, createdAt: Number(row.created_at) };
}

/** One statement; ON CONFLICT DO NOTHING keeps the first response, whichever instance wrote it. True when this one was kept. */
export async function writeIdempotent(sql: Sql, scope: string, key: string, response: IdempotentResponse): Promise<boolean> {
  const r = await sql.unsafe('INSERT INTO idempotency (scope, key, fingerprint, status, headers, body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, key) DO NOTHING',
    [scope, key, response.fingerprint, response.status, JSON.stringify(response.headers), response.body, response.createdAt], { prepare: true });
  return r.count === 1;
}

export async function expireIdempotent(sql: Sql, before: number): Promise<number> {
  return (await sql.unsafe('DELETE FROM idempotency WHERE created_at < $1', [before], { prepare: true })).count;
}
