/**
 * The credentials of the PostgreSQL store (src/store/credentials.ts), in the `credentials`
 * table (src/store/postgres-schema.ts). Each call is one statement or one transaction, so a
 * revocation is committed, and seen by every instance's next look-up, once it returns.
 */
import type { Sql } from 'postgres';
import type { CredentialStore } from './credentials.ts';
import { CREDENTIAL_COLUMNS, toCredential, type CredentialRow } from './credentials-row.ts';

type Row = CredentialRow;
const COLUMNS = CREDENTIAL_COLUMNS;

export function postgresCredentials(sql: Sql, run: <T>(work: () => Promise<T>) => Promise<T>): CredentialStore {
  const q = <T>(text: string, params: unknown[] = []) => sql.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<T[]>;
  return {
    put: (c) => run(async () => {
      await q(`INSERT INTO credentials (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
        c.id, c.scheme, c.kind, c.secretHash, JSON.stringify(c.scopes), c.principal, c.label ?? null, c.createdAt, c.expiresAt ?? null, c.issuedTo ?? null, c.revokedAt ?? null,
      ]);
    }),
    get: (id) => run(async () => {
      const [row] = await q<Row>(`SELECT ${COLUMNS} FROM credentials WHERE id = $1`, [id]);
      return row && toCredential(row);
    }),
    list: () => run(async () => (await q<Row>(`SELECT ${COLUMNS} FROM credentials WHERE kind <> 'token' ORDER BY created_at, id`)).map(toCredential)),
    revoke: (id, at) => run(async () => {
      // One statement: a client and the tokens issued to it are revoked together or not at all.
      const rows = await q<{ id: string }>(`WITH revoked AS (UPDATE credentials SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id),
        issued AS (UPDATE credentials SET revoked_at = $1 WHERE issued_to IN (SELECT id FROM revoked) AND revoked_at IS NULL)
        SELECT id FROM revoked`, [at, id]);
      return rows.length === 1;
    }),
    expire: (before) => run(async () => (await sql.unsafe('DELETE FROM credentials WHERE expires_at IS NOT NULL AND expires_at < $1', [before], { prepare: true })).count),
  };
}
