/**
 * The PostgreSQL adapter's own tables, as versioned migrations. `svcspec_schema` holds the
 * version reached; each migration runs once, in order, in the transaction that records it.
 * The whole of it runs under a transaction-level advisory lock keyed by the schema's name,
 * so several instances starting at once on one database apply each migration once: the
 * others wait on the lock, then find the version reached and do nothing. Resource tables
 * (the store's migrate) are created under the same lock (migrateTables).
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
import type { Sql, TransactionSql } from 'postgres';
import { SEQUENCES_DDL, syncUniqueIndexes } from './postgres-domain.ts';
import { fieldIndexColumns, fieldIndexName, indexable, quoteIdent, tableName } from './postgres-list.ts';
import type { TableLayout } from './store.ts';

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

/**
 * The resource tables of `layouts` (migrate), under the same advisory lock as the schema's
 * migrations: several instances starting at once, one creates, the others wait and find it
 * made. Returns each unique index by name with the constraint it holds.
 */
export async function migrateTables(tx: TransactionSql, schema: string, layouts: readonly TableLayout[]): Promise<Map<string, { resource: string; name: string }>> {
  const unique = new Map<string, { resource: string; name: string }>();
  await tx`SELECT pg_advisory_xact_lock(${LOCK_MIGRATE}, hashtext(${schema}))`;
  for (const layout of layouts) {
    const t = tableName(layout.name);
    const q = quoteIdent(t);
    await tx.unsafe(`CREATE SEQUENCE IF NOT EXISTS ${quoteIdent(`${t}_seq`)}`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${q} (
      seq bigint PRIMARY KEY, id text NOT NULL UNIQUE, version int NOT NULL, owner text, data jsonb NOT NULL)`);
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS ${quoteIdent(`idx_${layout.name}_owner`.slice(0, 63))} ON ${q} (owner, seq) WHERE owner IS NOT NULL`);
    await fieldIndexes(tx, schema, t, layout);
    for (const [index, name] of await syncUniqueIndexes(tx, schema, t, layout.name, layout.unique ?? [])) unique.set(index, { resource: layout.name, name });
  }
  return unique;
}

/** An index per field lists filter or sort by (see postgres-list.ts); the ones no longer asked for are dropped. */
async function fieldIndexes(tx: TransactionSql, schema: string, table: string, layout: TableLayout): Promise<void> {
  const owned = layout.owned === true;
  const wanted = new Map<string, string>();
  for (const field of new Set(layout.indexes ?? [])) if (indexable(field)) wanted.set(fieldIndexName(layout.name, field, owned), field);
  const prefix = fieldIndexName(layout.name, '', false);
  const present = (await tx.unsafe<{ indexname: string }[]>('SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2', [schema, table]))
    .map((r) => r.indexname)
    .filter((n) => n.startsWith(prefix));
  for (const name of present) if (!wanted.has(name)) await tx.unsafe(`DROP INDEX ${quoteIdent(name)}`);
  for (const [name, field] of wanted) {
    if (present.includes(name)) continue;
    const columns = `${owned ? 'owner, ' : ''}${fieldIndexColumns(field)}, seq`;
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS ${quoteIdent(name)} ON ${quoteIdent(table)} (${columns})${owned ? ' WHERE owner IS NOT NULL' : ''}`);
  }
}
