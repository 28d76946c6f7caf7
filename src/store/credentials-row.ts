/**
 * The `credentials` table's row, as both adapters keep it (src/store/sqlite-credentials.ts,
 * src/store/postgres-credentials.ts), and its reading as a CredentialRecord. Times are epoch
 * milliseconds: SQLite returns INTEGER as a number, PostgreSQL's client a BIGINT as text.
 */
import type { CredentialKind, CredentialRecord } from './credentials.ts';

export interface CredentialRow {
  readonly id: string;
  readonly scheme: string;
  readonly kind: string;
  readonly secret_hash: string;
  readonly scopes: string;
  readonly principal: string;
  readonly label: string | null;
  readonly created_at: number | string;
  readonly expires_at: number | string | null;
  readonly issued_to: string | null;
  readonly revoked_at: number | string | null;
}

export const CREDENTIAL_COLUMNS = 'id, scheme, kind, secret_hash, scopes, principal, label, created_at, expires_at, issued_to, revoked_at';

export function toCredential(row: CredentialRow): CredentialRecord {
  return {
    id: row.id,
    scheme: row.scheme,
    kind: row.kind as CredentialKind,
    secretHash: row.secret_hash,
    scopes: JSON.parse(row.scopes) as string[],
    principal: row.principal,
    createdAt: Number(row.created_at),
    ...(row.label !== null ? { label: row.label } : {}),
    ...(row.expires_at !== null ? { expiresAt: Number(row.expires_at) } : {}),
    ...(row.issued_to !== null ? { issuedTo: row.issued_to } : {}),
    ...(row.revoked_at !== null ? { revokedAt: Number(row.revoked_at) } : {}),
  };
}
