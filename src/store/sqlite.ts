/**
 * The SQLite adapter of the Store, the embedded default of `svcspec serve`: the built-in
 * `node:sqlite` (no native addon), one file, WAL mode.
 *
 *   res_<resource>   seq INTEGER PRIMARY KEY AUTOINCREMENT  insertion order, never reused
 *                    id TEXT UNIQUE NOT NULL                as stored; sequence ids are String(seq)
 *                    version INTEGER, owner TEXT, data TEXT (the JSON document, verbatim)
 *                    live TEXT   the values of effect fields kept apart (./sqlite-record.ts withLive)
 *   idempotency      (scope, key) → the first response
 *   credentials      issued credentials, secrets hashed (src/store/sqlite-credentials.ts)
 *   events, webhook_*  the event log (outbox) and webhook delivery state (src/store/sqlite-events.ts)
 *
 * Every write is one `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so the
 * reads that decide a compare-and-set (version, state, owner) and the write that follows
 * see the same row, in this process or any other on the same file. A write's promise
 * resolves after COMMIT returned. `node:sqlite` is synchronous, so no two transactions of
 * one store interleave; another connection waits up to the busy timeout for the lock.
 * Inserts and updates (transitions, actions) are group-committed: those of one event-loop
 * turn share one transaction, and each is acknowledged after its COMMIT
 * (src/store/sqlite-commit.ts). Updates too: a transaction each would pay an fsync each, and
 * write again every page the updates of one turn share (a related record an effect changes,
 * its row and an entry in each of its indexes). Removals stay one transaction each.
 *
 * The data is stored as given: the store adds nothing to it, the id included (the id is the
 * `id` column; the API layer types it and puts it in the representation). A record read
 * back keeps that JSON text (`json`) and parses it only when `data` is read: a presenter
 * that sends the stored fields as they are never parses nor re-serializes them.
 *
 * A database file deleted or replaced under the running store is noticed (./sqlite-file.ts):
 * nothing more is acknowledged, and every call fails with StoreUnavailableError.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { GroupCommit } from './sqlite-commit.ts';
import { DatabaseFile, FILE_CHECK_MS } from './sqlite-file.ts';
import { sqliteCredentials } from './sqlite-credentials.ts';
import { eventAppender, sqliteEvents } from './sqlite-events.ts';
import { SqliteQueries } from './sqlite-queries.ts';
import { SqliteReader } from './sqlite-reader.ts';
import { decideStep, giveBackSequences, runStep, takeSequences, uniqueViolation, writeDecided, type TxAccess } from './sqlite-domain.ts';
import { ofItem, type DomainStep } from './domain.ts';
import { Refused, unmet } from './expectation.ts';
import { sweepInBatches } from './sqlite-sweep.ts';
import { LazyRecord } from './lazy-record.ts';
import { prepareStatements, toRecord, type Row, type Statements } from './sqlite-record.ts';
import { PlainMarks } from './sqlite-plain.ts';
import { migrateTables, persistedLive, prepareDatabase } from './sqlite-schema.ts';
import { sqliteTx } from './sqlite-tx.ts';
import { appendAfter, recordWriter, savepointRunner } from './sqlite-write.ts';
import { tableName, transaction } from './sqlite-sql.ts';
import type { CredentialStore } from './credentials.ts';
import type { EventMaker, EventStore, NewEvent, WriteOptions } from './events.ts';
import { DuplicateIdError, StoreUnavailableError, type BatchChange, type BatchResult, type ChangeResult, type CountQuery, type Expectation, type IdempotentResponse, type LeanListQuery, type ListedRecord, type ListQuery, type ListResult, type NewRecord, type RemoveResult, type Store, type StoreHealth, type StoredRecord, type TableLayout } from './store.ts';

export interface SqliteStoreOptions {
  /** A file (its directory is created), or ':memory:' for a database that lives as long as the store. */
  readonly path: string;
  /**
   * What an acknowledged write survives (https://sqlite.org/pragma.html#pragma_synchronous,
   * https://sqlite.org/wal.html), both in WAL mode:
   *   'full'    synchronous=FULL: the WAL is fsynced at every commit. A write acknowledged
   *             survives a process crash and a power loss. The default.
   *   'normal'  synchronous=NORMAL: the WAL is fsynced only at checkpoints. A process crash
   *             loses nothing; a power loss may roll back the last commits, but never
   *             corrupts the database.
   */
  readonly durability?: 'full' | 'normal';
  /** How long a write waits for another connection's lock before failing, in ms. Default 5000. */
  readonly busyTimeoutMs?: number;
}

/** The Store, plus a read of the connection's settings for tests and diagnostics. */
export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  /** The value of a PRAGMA on this store's connection (journal_mode, synchronous, busy_timeout, temp_store). */
  pragma(name: 'journal_mode' | 'synchronous' | 'busy_timeout' | 'temp_store'): string | number;
}

export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const memory = options.path === ':memory:';
  if (!memory && !options.path.startsWith('file:')) mkdirSync(dirname(options.path), { recursive: true });
  const db = new DatabaseSync(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    prepareDatabase(db, options.path, options.durability);
  } catch (error) {
    db.close();
    throw error;
  }
  // An in-memory database is this connection's alone: no other thread can read it.
  return new SqliteStoreImpl(db, memory ? undefined : new SqliteReader(options.path, options.busyTimeoutMs ?? 5000), new DatabaseFile(options.path));
}

/**
 * A row of RECORD_COLUMNS (seq, id, version, owner, data). Record statements return arrays
 * (setReturnArrays): no object with named members is built per row, only to be copied.
 */
class SqliteStoreImpl implements SqliteStore {
  readonly kind = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #resources = new Map<string, Statements>();
  /** Per resource, the effect fields its table keeps in `live` (./sqlite-schema.ts liveFields), as migrated. */
  readonly #live = new Map<string, ReadonlySet<string>>();
  /** Pages and counts (./sqlite-queries.ts). */
  readonly #queries: SqliteQueries;
  readonly #reader: SqliteReader | undefined;
  readonly #idempotency: { get: StatementSync; put: StatementSync; expire: StatementSync };
  readonly credentials: CredentialStore;
  readonly events: EventStore;
  readonly #append: ReturnType<typeof eventAppender>;
  readonly #group: GroupCommit;
  readonly #file: DatabaseFile;
  readonly #fileTimer: NodeJS.Timeout;
  readonly #tx: TxAccess;
  /** The tables' marks (./sqlite-plain.ts), which every write of a record keeps. */
  readonly #marks: PlainMarks;
  /** Runs a work inside a savepoint of the open transaction (./sqlite-write.ts). */
  readonly #savepoint: <T>(work: () => T) => T;
  #closed = false;

  constructor(db: DatabaseSync, reader: SqliteReader | undefined, file: DatabaseFile) {
    this.#db = db;
    this.#reader = reader;
    this.#marks = new PlainMarks(db);
    this.#queries = new SqliteQueries(db, reader, this.#marks);
    this.#file = file;
    // Checked every second besides each write (./sqlite-file.ts); never keeps the process alive.
    this.#fileTimer = setInterval(() => this.#file.check(), FILE_CHECK_MS);
    this.#fileTimer.unref();
    this.#group = new GroupCommit(db);
    this.credentials = sqliteCredentials(db, () => this.#open());
    this.events = sqliteEvents(db, () => this.#open(), (work) => this.#group.run(work));
    this.#append = eventAppender(db);
    this.#savepoint = savepointRunner(db);
    this.#tx = sqliteTx(db, { statements: (resource) => this.#statements(resource), liveOf: (resource) => this.#liveOf(resource), queries: this.#queries, append: this.#append, marks: this.#marks });
    this.#idempotency = {
      get: db.prepare('SELECT fingerprint, status, headers, body, created_at FROM idempotency WHERE scope = ? AND key = ?'),
      put: db.prepare('INSERT INTO idempotency (scope, key, fingerprint, status, headers, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING'),
      // In batches (./sqlite-sweep.ts): the oldest first, by the created_at index.
      expire: db.prepare('DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE created_at < ? ORDER BY created_at LIMIT ?)'),
    };
  }

  pragma(name: 'journal_mode' | 'synchronous' | 'busy_timeout' | 'temp_store'): string | number {
    const row = this.#open().prepare(`PRAGMA ${name}`).get() ?? {};
    return Object.values(row)[0] as string | number;
  }

  async migrate(resources: readonly (string | TableLayout)[]): Promise<void> {
    // Added to what earlier migrates said: a migrate of some tables leaves the others as they are.
    for (const [resource, live] of migrateTables(this.#open(), resources)) this.#live.set(resource, live);
    for (const r of resources) this.#marks.migrated(tableName(typeof r === 'string' ? r : r.name), typeof r === 'string' ? undefined : r.idField);
    this.#queries.replanned();
    for (const s of this.#resources.values()) s.plain.clear();
  }

  async insert(resource: string, record: NewRecord, options: WriteOptions = {}): Promise<StoredRecord> {
    const { events, domain } = options;
    const write = this.#writer(resource, record, domain !== undefined);
    // Inside the group's transaction (see the header); each work's one write that can be
    // refused is its first. What a create writes after its record (events, managed numbers)
    // is undone by hand should it fail (#appendAfter); only a step that changes other records
    // first (effects) writes in a savepoint, which undoes all of it if any statement fails,
    // so the record is never kept without its events and effects.
    if (!events && !domain) return this.#acknowledged(await this.#group.run(() => write()));
    if (!domain) {
      const s = this.#statements(resource);
      return this.#acknowledged(await this.#group.run(() => {
        const written = write();
        this.#appendAfter(() => (events as EventMaker)(written), () => s.remove.run(written.seq));
        return written;
      }));
    }
    const s = this.#statements(resource);
    return this.#acknowledged(await this.#group.run(() => {
      // The step reads and decides, writing nothing (a refusal leaves nothing to undo).
      const decided = decideStep(this.#tx, domain, undefined, record.data);
      if (decided.related.length) {
        return this.#savepoint(() => {
          writeDecided(this.#tx, decided);
          const written = write(decided.data);
          if (events) this.#append(events(written));
          return written;
        });
      }
      // Nothing but the record itself to write first, as a create without rules: the INSERT
      // is the one statement that can be refused (a unique index, a taken id), and a refused
      // one leaves nothing behind, its managed numbers not taken yet. What follows refuses
      // nothing: the numbers, then the events, undone by hand should they fail all the same
      // (#appendAfter). A savepoint around the step copied every page it changed into its
      // journal: ~50K instructions a member create (callgrind).
      const written = write(decided.data);
      if (!decided.sequences && !events) return written;
      this.#appendAfter(() => {
        takeSequences(this.#tx, decided.sequences);
        return events ? events(written) : [];
      }, () => {
        s.remove.run(written.seq);
        giveBackSequences(this.#tx, decided.sequences);
      });
      return written;
    }));
  }

  async insertMany(resource: string, records: readonly NewRecord[], options: WriteOptions = {}): Promise<StoredRecord[]> {
    const { events, domains } = options;
    const writers = records.map((r, index) => this.#writer(resource, r, domains?.[index] !== undefined));
    // One work of the group, in one savepoint: every record and its events, or none of them.
    return this.#acknowledged(await this.#group.run(() => this.#savepoint(() => writers.map((write, index) => {
      let written: StoredRecord;
      try {
        const domain = domains?.[index];
        written = write(domain && runStep(this.#tx, domain, undefined, records[index].data));
      } catch (error) {
        if (error instanceof DuplicateIdError) throw new DuplicateIdError(resource, error.id, index);
        throw ofItem(error, index);
      }
      if (events) this.#append(events(written));
      return written;
    }))));
  }

  async changeMany(resource: string, changes: readonly BatchChange[], options: WriteOptions = {}): Promise<BatchResult> {
    const s = this.#statements(resource);
    const { events, domains } = options;
    // Serialized, and judged for the table's mark, now (the work runs later in the turn); a change a domain step decides, as decided.
    const jsons = changes.map((c, i) => (c.kind === 'update' && !domains?.[i] ? JSON.stringify(c.data) : undefined));
    const plains = changes.map((c, i) => c.kind !== 'update' || domains?.[i] !== undefined || this.#marks.plain(s.table, undefined, c.data));
    const judgedAt = this.#marks.migrates;
    // One work of the group, in one savepoint: a refused change throws, which rolls back the
    // changes before it (and their events), and its result is answered after.
    try {
      const records = await this.#group.run(() => this.#savepoint(() => changes.map((change, index) => {
        const row = s.get.get(change.id) as Row | undefined;
        if (!row) throw new Refused<BatchResult>({ ok: false, index, reason: 'missing' });
        const current = toRecord(row);
        const refused = unmet(current, change.expect ?? {});
        if (refused) throw new Refused<BatchResult>({ ...refused, index });
        let record: StoredRecord = current;
        const domain = domains?.[index];
        try {
          if (change.kind === 'update') {
            const data = domain ? runStep(this.#tx, domain, current, change.data) : change.data;
            const json = jsons[index] ?? JSON.stringify(data);
            if (domain ? !this.#marks.plain(s.table, undefined, data) : !plains[index] || this.#marks.stale(judgedAt)) this.#marks.clear(s.table);
            s.update.run(current.version + 1, json, current.seq);
            record = new LazyRecord(current.seq, current.id, current.version + 1, row[3], json);
          } else {
            if (domain) runStep(this.#tx, domain, current, undefined);
            s.remove.run(row[0]);
          }
        } catch (error) {
          throw uniqueViolation(error, index) ?? ofItem(error, index);
        }
        if (events) this.#append(events(record));
        return record;
      })));
      return this.#acknowledged({ ok: true, records });
    } catch (error) {
      if (error instanceof Refused) return error.result as BatchResult;
      throw error;
    }
  }

  async get(resource: string, id: string): Promise<StoredRecord | undefined> {
    const row = this.#statements(resource).get.get(id) as Row | undefined;
    return row && toRecord(row);
  }

  async update(resource: string, id: string, data: Record<string, unknown>, expect: Expectation = {}, options: WriteOptions = {}): Promise<ChangeResult> {
    const s = this.#statements(resource);
    const { domain } = options;
    const prepared = domain ? undefined : JSON.stringify(data);
    const plainNow = domain !== undefined || this.#marks.plain(s.table, undefined, data);
    const judgedAt = this.#marks.migrates;
    // Group-committed as inserts are (see the header): the compare-and-set reads the row and
    // writes it inside the group's transaction, under its write lock, so no other write comes
    // between. With events or rules a work writes more than once: a savepoint undoes all of it.
    const work = (): ChangeResult => {
      const row = s.get.get(id) as Row | undefined;
      if (!row) return { ok: false, reason: 'missing' };
      const current = toRecord(row);
      const refused = unmet(current, expect);
      if (refused) return refused;
      const version = current.version + 1;
      const written = domain ? runStep(this.#tx, domain, current, data) : data;
      const json = prepared ?? JSON.stringify(written);
      if (domain ? !this.#marks.plain(s.table, undefined, written) : !plainNow || this.#marks.stale(judgedAt)) this.#marks.clear(s.table);
      try {
        s.update.run(version, json, current.seq);
      } catch (error) {
        throw uniqueViolation(error) ?? error;
      }
      const record = new LazyRecord(current.seq, current.id, version, row[3], json);
      if (options.events) this.#append(options.events(record));
      return { ok: true, record };
    };
    return this.#acknowledged(await this.#group.run(options.events || domain ? () => this.#savepoint(work) : work));
  }

  async remove(resource: string, id: string, expect: Expectation = {}, options: WriteOptions = {}): Promise<RemoveResult> {
    if (expect.state) throw new Error('bug: remove takes no state expectation (RemoveResult has no state reason)');
    const s = this.#statements(resource);
    return this.#acknowledged(transaction(this.#db, (): RemoveResult => {
      const row = s.get.get(id) as Row | undefined;
      if (!row) return { ok: false, reason: 'missing' };
      const current = toRecord(row);
      const refused = unmet(current, expect);
      if (refused) return refused as RemoveResult;
      if (options.domain) runStep(this.#tx, options.domain, current, undefined);
      s.remove.run(row[0]);
      if (options.events) this.#append(options.events(current));
      return { ok: true };
    }));
  }

  // Not async: the queries' promise is handed on as it is (an async wrapper adds a promise and its ticks to every page).
  list(resource: string, query: LeanListQuery): Promise<ListResult<ListedRecord>>;
  list(resource: string, query: ListQuery): Promise<ListResult>;
  list(resource: string, query: ListQuery | LeanListQuery): Promise<ListResult<ListedRecord>>;
  list(resource: string, query: ListQuery | LeanListQuery): Promise<ListResult<ListedRecord>> {
    try {
      return this.#queries.list(this.#statements(resource), this.#liveOf(resource), query);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  async count(resource: string, query: CountQuery): Promise<number> {
    return this.#queries.count(this.#statements(resource), this.#liveOf(resource), query);
  }

  async getIdempotent(scope: string, key: string): Promise<IdempotentResponse | undefined> {
    this.#open();
    const row = this.#idempotency.get.get(scope, key) as { fingerprint: string; status: number; headers: string; body: string; created_at: number } | undefined;
    if (!row) return undefined;
    return { fingerprint: row.fingerprint, status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body, createdAt: row.created_at };
  }

  async putIdempotent(scope: string, key: string, response: IdempotentResponse): Promise<boolean> {
    this.#open();
    // One statement is one transaction; ON CONFLICT DO NOTHING keeps the first response.
    const r = this.#idempotency.put.run(scope, key, response.fingerprint, response.status, JSON.stringify(response.headers), response.body, response.createdAt);
    return this.#acknowledged(Number(r.changes) === 1);
  }

  async expireIdempotent(before: number): Promise<number> {
    return sweepInBatches(() => this.#open(), this.#idempotency.expire, [before]);
  }

  async health(): Promise<StoreHealth> {
    if (this.#closed) return { ok: false, reason: 'the store is closed' };
    const lost = this.#file.check();
    if (lost !== undefined) return { ok: false, reason: lost };
    try {
      this.#db.prepare('SELECT 1').get();
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: `the database does not answer: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#fileTimer);
    // Inserts queued for the next group commit are written, not dropped.
    this.#group.flush();
    // Their promises settle after the close, when SQLite has removed the WAL: the file is judged now.
    this.#file.check();
    this.#closed = true;
    await this.#reader?.close();
    this.#db.close();
  }

  /** The effect fields a resource's table keeps apart; none before it is migrated. */
  #liveOf(resource: string): ReadonlySet<string> {
    let live = this.#live.get(resource);
    if (live === undefined) {
      // Not migrated by this process: what its last migrate kept apart, read once.
      live = persistedLive(this.#open(), tableName(resource));
      this.#live.set(resource, live);
    }
    return live;
  }

  /** The one INSERT of a record, as a function run inside a transaction (./sqlite-write.ts recordWriter). */
  #writer(resource: string, record: NewRecord, decides = false): (decided?: Record<string, unknown>) => StoredRecord {
    return recordWriter(this.#statements(resource), this.#marks, resource, record, decides);
  }

  /** A write's events, appended after it without a savepoint; undone by hand should they fail (./sqlite-write.ts appendAfter). */
  #appendAfter(events: () => readonly NewEvent[], undo: () => void): void {
    appendAfter(this.#db, this.#append, events, undo);
  }

  #open(): DatabaseSync {
    if (this.#closed) throw new Error('the store is closed');
    if (this.#file.lost !== undefined) throw new StoreUnavailableError(this.#file.lost);
    return this.#db;
  }

  /** A committed write's result, once the file it went to is still the database's (see the header); else StoreUnavailableError. */
  #acknowledged<T>(result: T): T {
    if (!this.#closed) this.#file.verify();
    else if (this.#file.lost !== undefined) throw new StoreUnavailableError(this.#file.lost);
    return result;
  }

  /** The statements of a resource, prepared on first use (its table exists once migrated, here or by an earlier start). */
  #statements(resource: string): Statements {
    // Open first: a closed store, or one whose file is lost, refuses even a prepared statement.
    const db = this.#open();
    const known = this.#resources.get(resource);
    if (known) return known;
    const statements = prepareStatements(db, resource);
    this.#resources.set(resource, statements);
    return statements;
  }

}
