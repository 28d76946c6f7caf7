/**
 * The PostgreSQL adapter's own tables, as versioned migrations. `svcspec_schema` holds the
 * version reached; each migration runs once, in order, in the transaction that records it.
 * The whole of it runs under a transaction-level advisory lock keyed by the schema's name,
 * so several instances starting at once on one database apply each migration once: the
 * others wait on the lock, then find the version reached and do nothing. Resource tables
 * (migrate) are created under the same lock (src/store/postgres.ts).
 *
 *   res_<resource>        seq bigint (its own sequence: insertion order, never reused), id text UNIQUE,
 *                         version, owner, data jsonb
 *   idempotency           (scope, key) → the first response
 *   credentials           issued credentials, secrets hashed
 *   events                the event log (outbox): seq bigserial, appended in commit order (postgres-events.ts)
 *   webhook_*             subscriptions, deliveries (leases), the dispatch cursor
 *   rate_windows          rate-limit windows shared by every instance (src/serve/limits/shared.ts)
 *   svcspec_rank/num/str  the three order keys of a field (src/store/postgres-list.ts)
 */
import type { Sql } from 'postgres';
import { SEQUENCES_DDL } from './postgres-domain.ts';

/** Lock class of the advisory locks this adapter takes (the first key); the second is per schema. */
export const LOCK_MIGRATE = 7_301;
export const LOCK_EVENTS = 7_302;

const MIGRATIONS: readonly (readonly string[])[] = [
  // 1: everything of the first release.
  [
    `CREATE FUNCTION svcspec_rank(v jsonb) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE jsonb_typeof(v) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 2 WHEN 'array' THEN 2 ELSE 0 END $$`,
    `CREATE FUNCTION svcspec_num(v jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE jsonb_typeof(v) WHEN 'number' THEN v::numeric WHEN 'boolean' THEN CASE WHEN v::boolean THEN 1 ELSE 0 END ELSE 0 END $$`,
    `CREATE FUNCTION svcspec_str(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN jsonb_typeof(v) IN ('string', 'object', 'array') THEN v #>> '{}' ELSE '' END $$`,
    `CREATE TABLE idempotency (
      scope text NOT NULL, key text NOT NULL, fingerprint text NOT NULL, status int NOT NULL, headers text NOT NULL, body text NOT NULL,
      created_at bigint NOT NULL, PRIMARY KEY (scope, key))`,
    'CREATE INDEX idempotency_by_age ON idempotency (created_at)',
    `CREATE TABLE credentials (
      id text PRIMARY KEY, scheme text NOT NULL, kind text NOT NULL, secret_hash text NOT NULL, scopes text NOT NULL, principal text NOT NULL,
      label text, created_at bigint NOT NULL, expires_at bigint, issued_to text, revoked_at bigint)`,
    'CREATE INDEX credentials_by_expiry ON credentials (expires_at) WHERE expires_at IS NOT NULL',
    'CREATE INDEX credentials_by_client ON credentials (issued_to) WHERE issued_to IS NOT NULL',
    `CREATE TABLE events (
      seq bigserial PRIMARY KEY, name text NOT NULL, resource text NOT NULL, record_id text NOT NULL, owner text,
      payloads text NOT NULL, created_at bigint NOT NULL)`,
    `CREATE TABLE webhook_subscriptions (
      id text PRIMARY KEY, url text NOT NULL, events text NOT NULL, description text, status text NOT NULL, api_version text, principal text,
      scopes text, secrets text NOT NULL, created_at bigint NOT NULL, created_seq bigint NOT NULL, disabled_reason text, credential text,
      added bigserial)`,
    `CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY, subscription_id text NOT NULL, event_seq bigint NOT NULL, status text NOT NULL, attempts int NOT NULL,
      next_attempt_at bigint, last_status int, last_error text, created_at bigint NOT NULL, delivered_at bigint,
      UNIQUE (subscription_id, event_seq))`,
    "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
    'CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (subscription_id, created_at)',
    'CREATE TABLE event_cursor (name text PRIMARY KEY, seq bigint NOT NULL)',
    // The row exists from the start, so a fan-out locks it (FOR UPDATE) instead of racing to insert it.
    "INSERT INTO event_cursor (name, seq) VALUES ('dispatch', 0)",
    'CREATE TABLE rate_windows (policy text NOT NULL, key text NOT NULL, closes_at bigint NOT NULL, used int NOT NULL, PRIMARY KEY (policy, key))',
  ],
  // 2: the counters of managed sequences (src/store/domain.ts).
  [SEQUENCES_DDL],
];

/** The version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Creates the schema if needed and applies the migrations it lacks, under the advisory lock. */
export async function migrateSchema(sql: Sql, schema: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_MIGRATE}, hashtext(${schema}))`;
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '""')}"`);
    await tx.unsafe('CREATE TABLE IF NOT EXISTS svcspec_schema (version int NOT NULL)');
    const rows = await tx.unsafe('SELECT version FROM svcspec_schema');
    const version = rows.length ? Number(rows[0].version) : 0;
    if (version > SCHEMA_VERSION) throw new Error(`the PostgreSQL schema '${schema}' was written by a newer svcspec (store schema ${version}; this one reads ${SCHEMA_VERSION})`);
    for (let v = version; v < SCHEMA_VERSION; v++) for (const ddl of MIGRATIONS[v]) await tx.unsafe(ddl);
    if (rows.length === 0) await tx.unsafe('INSERT INTO svcspec_schema (version) VALUES ($1)', [SCHEMA_VERSION]);
    else if (version < SCHEMA_VERSION) await tx.unsafe('UPDATE svcspec_schema SET version = $1', [SCHEMA_VERSION]);
  });
}
