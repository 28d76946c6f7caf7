/**
 * The credentials of the SQLite store (src/store/credentials.ts), in its own table beside
 * the resource tables: `credentials (id PRIMARY KEY, scheme, kind, secret_hash, scopes JSON,
 * principal, label, created_at, expires_at, revoked_at)`. Each call is one statement, so
 * one transaction: a revocation is durable once it returns.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { CredentialStore } from './credentials.ts';
import { CREDENTIAL_COLUMNS, toCredential, type CredentialRow } from './credentials-row.ts';
import { sweepInBatches } from './sqlite-sweep.ts';

export const CREDENTIALS_DDL = [
  `CREATE TABLE IF NOT EXISTS credentials (
    id TEXT PRIMARY KEY, scheme TEXT NOT NULL, kind TEXT NOT NULL, secret_hash TEXT NOT NULL,
    scopes TEXT NOT NULL, principal TEXT NOT NULL, label TEXT,
    created_at INTEGER NOT NULL, expires_at INTEGER, issued_to TEXT, revoked_at INTEGER
  )`,
  'CREATE INDEX IF NOT EXISTS credentials_by_expiry ON credentials (expires_at) WHERE expires_at IS NOT NULL',
  'CREATE INDEX IF NOT EXISTS credentials_by_client ON credentials (issued_to) WHERE issued_to IS NOT NULL',
];

type Row = CredentialRow;
const COLUMNS = CREDENTIAL_COLUMNS;

export function sqliteCredentials(db: DatabaseSync, open: () => void): CredentialStore {
  const s: Record<'put' | 'get' | 'list' | 'revoke' | 'revokeIssued' | 'expire', StatementSync> = {
    put: db.prepare(`INSERT INTO credentials (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    get: db.prepare(`SELECT ${COLUMNS} FROM credentials WHERE id = ?`),
    list: db.prepare(`SELECT ${COLUMNS} FROM credentials WHERE kind <> 'token' ORDER BY created_at, id`),
    revoke: db.prepare('UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    revokeIssued: db.prepare('UPDATE credentials SET revoked_at = ? WHERE issued_to = ? AND revoked_at IS NULL'),
    // In batches (./sqlite-sweep.ts), by the expiry index.
    expire: db.prepare('DELETE FROM credentials WHERE rowid IN (SELECT rowid FROM credentials WHERE expires_at IS NOT NULL AND expires_at < ? ORDER BY expires_at LIMIT ?)'),
  };
  return {
    async put(c) {
      open();
      s.put.run(c.id, c.scheme, c.kind, c.secretHash, JSON.stringify(c.scopes), c.principal, c.label ?? null, c.createdAt, c.expiresAt ?? null, c.issuedTo ?? null, c.revokedAt ?? null);
    },
    async get(id) {
      open();
      const row = s.get.get(id) as Row | undefined;
      return row && toCredential(row);
    },
    async list() {
      open();
      return (s.list.all() as unknown as Row[]).map(toCredential);
    },
    async revoke(id, at) {
      open();
      // One transaction: a client and its tokens are revoked together or not at all.
      db.exec('BEGIN IMMEDIATE');
      try {
        const revoked = Number(s.revoke.run(at, id).changes) === 1;
        if (revoked) s.revokeIssued.run(at, id);
        db.exec('COMMIT');
        return revoked;
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    async expire(before) {
      return sweepInBatches(open, s.expire, [before]);
    },
  };
}
