/**
 * The PostgreSQL adapter of the Store: several `svcspec serve` instances, on one machine or
 * many, share one database. The client is `postgres` (porsager): a pool of connections,
 * every statement prepared once per connection (named prepared statements).
 *
 * Where: the URL's database, in the schema given by its `schema` query parameter (default
 * `public`), created on start if missing: `postgres://host/db?schema=loans`. Every table of
 * the adapter is in that schema (src/store/postgres-schema.ts), so one database can hold
 * several services, and tests a schema each.
 *
 * Records: `res_<resource> (seq bigint, id text UNIQUE, version int, owner text, data jsonb)`.
 * Every write is one transaction; a conditional change reads its row `FOR UPDATE`, so two
 * instances' concurrent transitions of one record queue on the row lock and the second
 * sees the first's result (READ COMMITTED re-reads the locked row): exactly one succeeds.
 * A taken id is refused by the UNIQUE index inside the INSERT, never by a read before it.
 * A write's promise resolves after COMMIT returned: with the server's default
 * `synchronous_commit = on` the commit is on disk (WAL flushed) before it is acknowledged.
 * Inserts without rules of one turn are group-committed as SQLite's are: one statement (and
 * transaction) per resource, each answered after its COMMIT returned (./postgres-batch.ts).
 *
 * What jsonb changes: the data read back is PostgreSQL's text of the jsonb (keys in its
 * order, `": "` between a key and its value): the same JSON value, not the same bytes; and
 * jsonb cannot hold the character U+0000, so a string holding it is refused (the contract
 * skips that one case, test/store/postgres.test.ts).
 */
import postgres, { type Sql, type TransactionSql } from 'postgres';
import type { CredentialStore } from './credentials.ts';
import type { EventStore, WriteOptions } from './events.ts';
import { postgresCredentials } from './postgres-credentials.ts';
import { appendEvents, EVENTS_CHANNEL, postgresEvents } from './postgres-events.ts';
import { countSql, listSql } from './postgres-list.ts';
import { GroupInsert, queued, type QueuedInsert } from './postgres-batch.ts';
import { casParams, casRows, refusal } from './postgres-cas.ts';
import { expireIdempotent, readIdempotent, writeIdempotent } from './postgres-idempotency.ts';
import { PgRecord, recordStatements, type PgRow, type Statements } from './postgres-record.ts';
import { migrateSchema, migrateTables } from './postgres-schema.ts';
import { itemized, runStep, uniqueViolation, type TxAccess } from './postgres-domain.ts';
import { txAccess } from './postgres-tx.ts';
import { Refused, unmet } from './expectation.ts';
import { isUniqueViolation, parsePostgresUrl, send, sendRows, unavailable } from './postgres-connection.ts';
import {
  DuplicateIdError, StoreUnavailableError, type BatchChange, type BatchResult, type ChangeResult, type CountQuery, type Expectation, type IdempotentResponse,
  type LeanListQuery, type ListQuery, type ListResult, type NewRecord, type RemoveResult, type Store, type StoreHealth, type StoredRecord, type TableLayout,
} from './store.ts';

export { parsePostgresUrl } from './postgres-connection.ts';

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database?schema=name` (postgresql:// too). */
  readonly url: string;
  /** The pool's size (connections this instance opens at most). Default 10. */
  readonly max?: number;
}

export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  /** The schema its tables are in. */
  readonly schema: string;
  /**
   * Calls `listener` when another write (this instance's or another's) appended events, as
   * soon as it committed (LISTEN/NOTIFY); returns the function that stops it.
   */
  watchEvents(listener: () => void): () => void;
  /** The pool, for what shares the database (the shared rate limiter). */
  readonly sql: Sql;
}

/** Runs of a transaction chosen as a deadlock's victim, at most. */
const RETRIES = 5;

export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { url, schema } = parsePostgresUrl(options.url);
  const sql = postgres(url, {
    max: options.max ?? 10,
    // IF NOT EXISTS and friends say NOTICE; nothing of it is for the user.
    onnotice: () => {},
    connection: { search_path: `"${schema}"`, application_name: 'svcspec' },
    connect_timeout: 10,
    idle_timeout: 60,
  });
  try {
    await migrateSchema(sql, schema);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw unavailable(error) ?? error;
  }
  return new PostgresStoreImpl(sql, schema);
}

class PostgresStoreImpl implements PostgresStore {
  readonly kind = 'postgres' as const;
  readonly sql: Sql;
  readonly schema: string;
  readonly credentials: CredentialStore;
  readonly events: EventStore;
  readonly #resources = new Map<string, Statements>();
  readonly #watchers = new Set<() => void>();
  /** Unique indexes by name → the constraint they hold (migrate). */
  readonly #unique = new Map<string, { resource: string; name: string }>();
  #listening: Promise<{ unlisten(): Promise<void> }> | undefined;
  #closed = false;
  /** Inserts without rules of one turn, one statement per resource (./postgres-batch.ts). */
  readonly #group: GroupInsert<StoredRecord>;

  constructor(sql: Sql, schema: string) {
    this.sql = sql;
    this.schema = schema;
    this.#group = new GroupInsert<StoredRecord>({
      one: (resource, insert) => this.#reached(() => this.#insertAlone(resource, insert)),
      many: (resource, inserts) => this.#reached(() => this.#insertBatch(resource, inserts)),
      lost: (error) => error instanceof StoreUnavailableError,
    });
    const run = <T>(work: () => Promise<T>) => this.#run(work);
    this.credentials = postgresCredentials(sql, run);
    this.events = postgresEvents(sql, run);
  }

  /** Runs a call: refused once closed; a lost database becomes StoreUnavailableError. */
  async #run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('the store is closed');
    // Inserts queued in this turn go first: of two calls the first still reaches the database first.
    this.#group.flush();
    return this.#reached(work);
  }

  /** A lost database as StoreUnavailableError (work accepted before close runs to its end). */
  async #reached<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw unavailable(error) ?? error;
    }
  }

  watchEvents(listener: () => void): () => void {
    this.#watchers.add(listener);
    this.#listening ??= this.sql.listen(EVENTS_CHANNEL, (payload) => {
      if (payload !== this.schema) return;
      for (const w of this.#watchers) w();
    });
    // A LISTEN that fails (the database is down) leaves the readers to their polls.
    this.#listening.catch(() => (this.#listening = undefined));
    return () => this.#watchers.delete(listener);
  }

  async migrate(resources: readonly (string | TableLayout)[]): Promise<void> {
    const layouts = resources.map((r): TableLayout => (typeof r === 'string' ? { name: r } : r));
    await this.#run(() => this.sql.begin(async (tx) => {
      for (const [index, constraint] of await migrateTables(tx, this.schema, layouts)) this.#unique.set(index, constraint);
    }));
  }

  #statements(resource: string): Statements {
    let s = this.#resources.get(resource);
    if (!s) this.#resources.set(resource, (s = recordStatements(resource)));
    return s;
  }

  /** The INSERT of a record (its data as decided, as JSON text), a taken id or unique value refused by the database itself. */
  async #insertOne(tx: TransactionSql | Sql, resource: string, s: Statements, insert: QueuedInsert, index?: number): Promise<StoredRecord> {
    try {
      const [row] = await sendRows(tx, s.insert, [insert.id, insert.owner, insert.data]);
      return new PgRecord(row);
    } catch (error) {
      throw this.#conflict(error, resource, s, insert.id ?? undefined, index);
    }
  }

  /** An insert without rules: one statement, or with its events a transaction of its own. */
  async #insertAlone(resource: string, insert: QueuedInsert): Promise<StoredRecord> {
    const s = this.#statements(resource);
    const { events } = insert;
    if (!events) return this.#insertOne(this.sql, resource, s, insert);
    return this.#transaction(async (tx) => {
      const written = await this.#insertOne(tx, resource, s, insert);
      await appendEvents(tx, this.schema, events(written));
      return written;
    });
  }

  /**
   * Inserts without rules in one statement, with their events in its transaction; a
   * conflicting one is skipped (undefined), for the caller to send again alone.
   */
  async #insertBatch(resource: string, inserts: readonly QueuedInsert[]): Promise<(StoredRecord | undefined)[]> {
    const s = this.#statements(resource);
    const params = [inserts.map((x) => x.id), inserts.map((x) => x.owner), inserts.map((x) => x.data)];
    const records = (rows: PgRow[]) => rows.map((row) => (row[0] === null ? undefined : new PgRecord(row)));
    if (!inserts.some((x) => x.events)) return records(await sendRows(this.sql, s.insertBatch, params));
    return this.#transaction(async (tx) => {
      const written = records(await sendRows(tx, s.insertBatch, params));
      await appendEvents(tx, this.schema, written.flatMap((r, i) => (r && inserts[i].events ? inserts[i].events(r) : [])));
      return written;
    });
  }

  /** A unique violation as the Store's error: the id (DuplicateIdError) or a unique constraint (UniqueViolationError). */
  #conflict(error: unknown, resource: string, s: Statements, id: string | undefined, index?: number): unknown {
    const unique = uniqueViolation(error, this.#unique, index);
    if (unique) return unique;
    const e = error as { code?: string; constraint_name?: string; detail?: string };
    if (isUniqueViolation(error) && e.constraint_name === `${s.table}_id_key`) {
      // A sequence id can meet an id given earlier (a resource that mixes both): the server names it.
      return new DuplicateIdError(resource, id ?? /\(id\)=\((.*)\)/.exec(e.detail ?? '')?.[1] ?? '', index);
    }
    return error;
  }

  async insert(resource: string, record: NewRecord, options: WriteOptions = {}): Promise<StoredRecord> {
    const s = this.#statements(resource);
    const { events, domain } = options;
    // Without rules, one statement shared with the other inserts of this turn (./postgres-batch.ts):
    // without events, no transaction of its own (no BEGIN and COMMIT round trips).
    if (!domain) {
      if (this.#closed) throw new Error('the store is closed');
      return this.#group.add(resource, queued(record, record.data, events));
    }
    return this.#run(() => this.#transaction(async (tx) => {
      const data = await runStep(this.#access(tx), domain, undefined, record.data);
      const written = await this.#insertOne(tx, resource, s, queued(record, data ?? record.data));
      if (events) await appendEvents(tx, this.schema, events(written));
      return written;
    }));
  }

  async insertMany(resource: string, records: readonly NewRecord[], options: WriteOptions = {}): Promise<StoredRecord[]> {
    if (records.length === 0) return [];
    const s = this.#statements(resource);
    const { events, domains } = options;
    return this.#run(() => this.#transaction(async (tx) => {
      const written: StoredRecord[] = [];
      for (const [index, record] of records.entries()) {
        const domain = domains?.[index];
        const data = domain ? await itemized(index, () => runStep(this.#access(tx), domain, undefined, record.data)) : record.data;
        const r = await this.#insertOne(tx, resource, s, queued(record, data ?? record.data), index);
        written.push(r);
        if (events) await appendEvents(tx, this.schema, events(r));
      }
      return written;
    }));
  }

  async get(resource: string, id: string): Promise<StoredRecord | undefined> {
    const s = this.#statements(resource);
    return this.#run(async () => {
      const [row] = await sendRows(this.sql, s.get, [id]);
      return row && new PgRecord(row);
    });
  }

  /** The UPDATE of a locked row to new data, a unique value refused by the database. */
  async #updateRow(tx: TransactionSql, resource: string, s: Statements, row: PgRow, data: Record<string, unknown>, index?: number): Promise<StoredRecord> {
    try {
      const [updated] = await sendRows(tx, s.update, [row[0], JSON.stringify(data)]);
      return new PgRecord(updated);
    } catch (error) {
      throw this.#conflict(error, resource, s, row[1], index);
    }
  }

  async update(resource: string, id: string, data: Record<string, unknown>, expect: Expectation = {}, options: WriteOptions = {}): Promise<ChangeResult> {
    const s = this.#statements(resource);
    const { events, domain } = options;
    if (!events && !domain) {
      return this.#run(async (): Promise<ChangeResult> => {
        let row: PgRow | undefined;
        try {
          [row] = await sendRows(this.sql, s.cas.update, [id, ...casParams(expect), JSON.stringify(data)]);
        } catch (error) {
          throw this.#conflict(error, resource, s, id);
        }
        if (!row) return { ok: false, reason: 'missing' };
        const { current, written } = casRows(row);
        if (written) return { ok: true, record: new PgRecord(written) };
        return refusal(new PgRecord(current), expect);
      });
    }
    return this.#run(() => this.#transaction(async (tx): Promise<ChangeResult> => {
      const [row] = await sendRows(tx, s.lock, [id]);
      if (!row) return { ok: false, reason: 'missing' };
      const current = new PgRecord(row);
      const refused = unmet(current, expect);
      if (refused) return refused;
      const decided = domain ? await runStep(this.#access(tx), domain, current, data) : data;
      const record = await this.#updateRow(tx, resource, s, row, decided ?? data);
      if (events) await appendEvents(tx, this.schema, events(record));
      return { ok: true, record };
    }));
  }

  async remove(resource: string, id: string, expect: Expectation = {}, options: WriteOptions = {}): Promise<RemoveResult> {
    if (expect.state) throw new Error('bug: remove takes no state expectation (RemoveResult has no state reason)');
    const s = this.#statements(resource);
    const { events, domain } = options;
    if (!events && !domain) {
      return this.#run(async (): Promise<RemoveResult> => {
        const [row] = await sendRows(this.sql, s.cas.remove, [id, ...casParams(expect)]);
        if (!row) return { ok: false, reason: 'missing' };
        const { current, removed } = casRows(row);
        return removed ? { ok: true } : (refusal(new PgRecord(current), expect) as RemoveResult);
      });
    }
    return this.#run(() => this.#transaction(async (tx): Promise<RemoveResult> => {
      const [row] = await sendRows(tx, s.lock, [id]);
      if (!row) return { ok: false, reason: 'missing' };
      const current = new PgRecord(row);
      const refused = unmet(current, expect);
      if (refused) return refused as RemoveResult;
      if (domain) await runStep(this.#access(tx), domain, current, undefined);
      await send(tx, s.remove, [row[0]]);
      if (events) await appendEvents(tx, this.schema, events(current));
      return { ok: true };
    }));
  }

  async changeMany(resource: string, changes: readonly BatchChange[], options: WriteOptions = {}): Promise<BatchResult> {
    if (changes.length === 0) return { ok: true, records: [] };
    const s = this.#statements(resource);
    const { events, domains } = options;
    return this.#run(() => this.#transaction(async (tx): Promise<BatchResult> => {
      const records: StoredRecord[] = [];
      for (const [index, change] of changes.entries()) {
        const [row] = await sendRows(tx, s.lock, [change.id]);
        if (!row) throw new Refused<BatchResult>({ ok: false, index, reason: 'missing' });
        const current = new PgRecord(row);
        const refused = unmet(current, change.expect ?? {});
        if (refused) throw new Refused<BatchResult>({ ...refused, index });
        const domain = domains?.[index];
        let record: StoredRecord = current;
        if (change.kind === 'update') {
          const decided = domain ? await itemized(index, () => runStep(this.#access(tx), domain, current, change.data)) : change.data;
          record = await this.#updateRow(tx, resource, s, row, decided ?? change.data, index);
        } else {
          if (domain) await itemized(index, () => runStep(this.#access(tx), domain, current, undefined));
          await send(tx, s.remove, [row[0]]);
        }
        records.push(record);
        if (events) await appendEvents(tx, this.schema, events(record));
      }
      return { ok: true, records };
    }));
  }

  /**
   * A write transaction. Work that refuses (throws Refused) is rolled back and its refusal
   * answered. A transaction PostgreSQL chose as a deadlock's victim (two writers locking in
   * opposite orders, ./postgres-domain.ts) or could not serialize is run again from the
   * start, a few times: nothing of it was kept, and the work is pure but for its statements.
   */
  async #transaction<T>(work: (tx: TransactionSql) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.sql.begin(work)) as T;
      } catch (error) {
        if (error instanceof Refused) return error.result as T;
        const code = (error as { code?: string }).code;
        if ((code === '40P01' || code === '40001') && attempt < RETRIES) continue;
        throw error;
      }
    }
  }

  /** What a domain step reads and writes through, inside the open transaction (./postgres-domain.ts txAccess). */
  #access(tx: TransactionSql): TxAccess {
    return txAccess(tx, this.schema, (resource) => this.#statements(resource), (resource, s, row, data) => this.#updateRow(tx, resource, s, row, data));
  }

  // A lean list (store.ts LeanListQuery) reads whole records here, which it may: the two
  // columns it could leave are a small part of a page that crosses the network.
  async list(resource: string, query: ListQuery | LeanListQuery): Promise<ListResult> {
    const s = this.#statements(resource);
    const { lean: _whole, ...whole } = query; // the same SQL either way: whole records
    const { sql, params } = listSql(s.table, whole);
    return this.#run(async () => {
      const rows = await sendRows(this.sql, sql, params);
      const count = Math.min(rows.length, query.limit);
      const records: StoredRecord[] = new Array(count);
      for (let i = 0; i < count; i++) records[i] = new PgRecord(rows[i]);
      return { records, hasMore: rows.length > query.limit };
    });
  }

  async count(resource: string, query: CountQuery): Promise<number> {
    const s = this.#statements(resource);
    const { sql, params } = countSql(s.table, query);
    return this.#run(async () => Number((await send<{ n: number }>(this.sql, sql, params))[0].n));
  }

  getIdempotent(scope: string, key: string): Promise<IdempotentResponse | undefined> {
    return this.#run(() => readIdempotent(this.sql, scope, key));
  }

  putIdempotent(scope: string, key: string, response: IdempotentResponse): Promise<boolean> {
    return this.#run(() => writeIdempotent(this.sql, scope, key, response));
  }

  expireIdempotent(before: number): Promise<number> {
    return this.#run(() => expireIdempotent(this.sql, before));
  }

  async health(): Promise<StoreHealth> {
    if (this.#closed) return { ok: false, reason: 'the store is closed' };
    try {
      await this.sql`SELECT 1`;
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: `PostgreSQL does not answer: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Inserts queued or on their way are answered before the pool ends.
    await this.#group.drain();
    this.#watchers.clear();
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening) await listening.then((l) => l.unlisten()).catch(() => {});
    await this.sql.end({ timeout: 5 });
  }
}
