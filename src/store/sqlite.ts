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
import { CREDENTIALS_DDL, sqliteCredentials } from './sqlite-credentials.ts';
import { eventAppender, EVENTS_DDL, sqliteEvents } from './sqlite-events.ts';
import { countArgs, countShape, countSql, listSql, NO_LIVE, type ListSql } from './sqlite-list.ts';
import { SqliteReader } from './sqlite-reader.ts';
import { decideStep, giveBackSequences, runStep, SEQUENCES_DDL, takeSequences, uniqueViolation, writeDecided, type TxAccess } from './sqlite-domain.ts';
import type { DomainStep, RelatedWrite } from './domain.ts';
import { sweepInBatches } from './sqlite-sweep.ts';
import { LazyRecord } from './lazy-record.ts';
import { liveOf, PageRecord, prepareStatements, returningArrays, toRecord, type PlainPage, type Row, type Statements } from './sqlite-record.ts';
import { migrateTables, persistedLive } from './sqlite-schema.ts';
import { tableName, transaction } from './sqlite-sql.ts';
import type { CredentialStore } from './credentials.ts';
import type { EventMaker, EventStore, NewEvent, WriteOptions } from './events.ts';
import { DomainRefusedError, DuplicateIdError, StoreUnavailableError, UniqueViolationError, type BatchChange, type BatchResult, type ChangeResult, type CountQuery, type Expectation, type IdempotentResponse, type ListQuery, type ListResult, type NewRecord, type RemoveResult, type Store, type StoreHealth, type StoredRecord, type TableLayout } from './store.ts';

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

/**
 * The layout this code reads and writes, kept in `PRAGMA user_version`. 5: a record's effect
 * fields may be in `live` rather than `data`, which an older svcspec would not read.
 */
const SCHEMA_VERSION = 5;
/** List statements differ by filter fields and sort; enough for any spec, bounded for a hostile one. */
const LIST_STATEMENT_CACHE = 256;
/**
 * An offset page skips its offset's rows one by one, and a page reads its size's: past this
 * many (a deep page number, a list the spec leaves unpaged) it is read off the main thread.
 */
const INLINE_OFFSET = 1000;

export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const memory = options.path === ':memory:';
  if (!memory && !options.path.startsWith('file:')) mkdirSync(dirname(options.path), { recursive: true });
  const db = new DatabaseSync(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    // An in-memory database has no WAL; it answers 'memory'. A file that cannot be put in WAL
    // mode (a file system without shared memory) would not keep the promises above: refuse it.
    const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
    if (!memory && mode !== 'wal') throw new Error(`SQLite could not put ${options.path} in WAL mode (it stays in '${String(mode)}' mode)`);
    db.exec(`PRAGMA synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
    // The undo journal of a savepoint (a write with events or domain rules, a batch) spills to
    // a temporary file once it passes 64 KiB (SQLITE_STMTJRNL_SPILL), about 16 pages: one
    // record with its indexes, its events and a step's writes passes it. Each transaction then
    // created, wrote and deleted a file in /var/tmp. Kept in memory, it is only a copy of the
    // pages the savepoint changed, freed at its release. Its other temporary data is small (pages
    // that would sort much are read on the reader thread), except while migrate builds a new
    // field or unique index over a large existing table: that sorter runs in memory too.
    db.exec('PRAGMA temp_store = MEMORY');
    transaction(db, () => {
      const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
      if (version > SCHEMA_VERSION) throw new Error(`${options.path} was written by a newer svcspec (store schema ${version}; this one reads ${SCHEMA_VERSION})`);
      db.exec(`CREATE TABLE IF NOT EXISTS idempotency (
        scope TEXT NOT NULL, key TEXT NOT NULL,
        fingerprint TEXT NOT NULL, status INTEGER NOT NULL, headers TEXT NOT NULL, body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
      )`);
      db.exec('CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (created_at)');
      // Schema 2 added the credentials table; creating it is all a schema-1 file needs.
      for (const ddl of CREDENTIALS_DDL) db.exec(ddl);
      // Schema 3 added the event log and webhook tables, likewise.
      for (const ddl of EVENTS_DDL) db.exec(ddl);
      // Schema 4 added the counters of managed sequences (src/store/domain.ts), likewise.
      db.exec(SEQUENCES_DDL);
      if (version < SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
  } catch (error) {
    db.close();
    throw error;
  }
  // An in-memory database is this connection's alone: no other thread can read it.
  return new SqliteStoreImpl(db, memory ? undefined : new SqliteReader(options.path, options.busyTimeoutMs ?? 5000), new DatabaseFile(options.path));
}

/** SQLITE_CONSTRAINT_UNIQUE (2067) or SQLITE_CONSTRAINT_PRIMARYKEY (1555). */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { errcode?: number }).errcode;
  return code === 2067 || code === 1555;
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
  readonly #lists = new Map<string, StatementSync>();
  /** Count statements of domain steps by table and shape (./sqlite-list.ts countShape). */
  readonly #counts = new Map<string, StatementSync>();
  /** List SQL → whether it runs on the main thread (see `#inline`). */
  readonly #routes = new Map<string, boolean>();
  readonly #reader: SqliteReader | undefined;
  readonly #idempotency: { get: StatementSync; put: StatementSync; expire: StatementSync };
  readonly credentials: CredentialStore;
  readonly events: EventStore;
  readonly #append: ReturnType<typeof eventAppender>;
  readonly #group: GroupCommit;
  readonly #file: DatabaseFile;
  readonly #fileTimer: NodeJS.Timeout;
  readonly #tx: TxAccess;
  readonly #sequences: { readonly value: StatementSync; readonly insert: StatementSync; readonly update: StatementSync; readonly remove: StatementSync };
  readonly #savepoints: { readonly open: StatementSync; readonly release: StatementSync; readonly undo: StatementSync };
  #closed = false;

  constructor(db: DatabaseSync, reader: SqliteReader | undefined, file: DatabaseFile) {
    this.#db = db;
    this.#reader = reader;
    this.#file = file;
    // Checked every second besides each write (./sqlite-file.ts); never keeps the process alive.
    this.#fileTimer = setInterval(() => this.#file.check(), FILE_CHECK_MS);
    this.#fileTimer.unref();
    this.#group = new GroupCommit(db);
    this.credentials = sqliteCredentials(db, () => this.#open());
    this.events = sqliteEvents(db, () => this.#open(), (work) => this.#group.run(work));
    this.#append = eventAppender(db);
    // Read, then written once the write they number stands (./sqlite-domain.ts decideStep): no
    // upsert with RETURNING, and nothing to give back when the write is refused.
    this.#sequences = {
      value: returningArrays(db.prepare('SELECT value FROM sequences WHERE name = ?')),
      insert: db.prepare('INSERT INTO sequences (name, value) VALUES (?, ?)'),
      update: db.prepare('UPDATE sequences SET value = ? WHERE name = ?'),
      remove: db.prepare('DELETE FROM sequences WHERE name = ?'),
    };
    this.#savepoints = { open: db.prepare('SAVEPOINT write'), release: db.prepare('RELEASE write'), undo: db.prepare('ROLLBACK TO write') };
    this.#tx = this.#txAccess();
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
    // Plans change with the indexes: every page's route is decided again; counts' SQL may read `live` now.
    this.#routes.clear();
    this.#counts.clear();
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
        if (error instanceof UniqueViolationError && error.index === undefined) throw new UniqueViolationError(error.resource, error.constraint, index);
        if (error instanceof DomainRefusedError && error.index === undefined) throw new DomainRefusedError(error.refusal, index);
        throw error;
      }
      if (events) this.#append(events(written));
      return written;
    }))));
  }

  async changeMany(resource: string, changes: readonly BatchChange[], options: WriteOptions = {}): Promise<BatchResult> {
    const s = this.#statements(resource);
    const { events, domains } = options;
    const jsons = changes.map((c) => (c.kind === 'update' && !domains?.[changes.indexOf(c)] ? JSON.stringify(c.data) : undefined));
    // One work of the group, in one savepoint: a refused change throws, which rolls back the
    // changes before it (and their events), and its result is answered after.
    try {
      const records = await this.#group.run(() => this.#savepoint(() => changes.map((change, index) => {
        const row = s.get.get(change.id) as Row | undefined;
        if (!row) throw new BatchRefused({ ok: false, index, reason: 'missing' });
        const current = toRecord(row);
        const refused = check(current, change.expect ?? {});
        if (refused) throw new BatchRefused({ ...refused, index });
        let record: StoredRecord = current;
        const domain = domains?.[index];
        try {
          if (change.kind === 'update') {
            const json = jsons[index] ?? JSON.stringify(domain ? runStep(this.#tx, domain, current, change.data) : change.data);
            s.update.run(current.version + 1, json, current.seq);
            record = new LazyRecord(current.seq, current.id, current.version + 1, row[3], json);
          } else {
            if (domain) runStep(this.#tx, domain, current, undefined);
            s.remove.run(row[0]);
          }
        } catch (error) {
          const unique = uniqueViolation(error, index);
          if (unique) throw unique;
          if (error instanceof UniqueViolationError && error.index === undefined) throw new UniqueViolationError(error.resource, error.constraint, index);
          if (error instanceof DomainRefusedError && error.index === undefined) throw new DomainRefusedError(error.refusal, index);
          throw error;
        }
        if (events) this.#append(events(record));
        return record;
      })));
      return this.#acknowledged({ ok: true, records });
    } catch (error) {
      if (error instanceof BatchRefused) return error.result;
      throw error;
    }
  }

  /**
   * The one INSERT of a record, as a function run inside a transaction; given data (a
   * domain step's), it inserts that instead of the record's.
   */
  #writer(resource: string, record: NewRecord, decides = false): (decided?: Record<string, unknown>) => StoredRecord {
    const s = this.#statements(resource);
    // Serialized now, when the call is made (the work runs later in the turn); a record a
    // domain step decides is serialized as decided, and its data never (a stringify wasted).
    const prepared = decides ? undefined : JSON.stringify(record.data);
    const owner = record.owner ?? null;
    const given = record.id;
    const write = (decided?: Record<string, unknown>): StoredRecord => {
      const data = decided === undefined ? (prepared ?? JSON.stringify(record.data)) : JSON.stringify(decided);
      if (given !== undefined) {
        // The UNIQUE constraint refuses a taken id inside the INSERT itself.
        try {
          return new LazyRecord(Number(s.insert.run(null, given, owner, data).lastInsertRowid), given, 1, owner, data);
        } catch (error) {
          const unique = uniqueViolation(error);
          if (unique) throw unique;
          if (isUniqueViolation(error)) throw new DuplicateIdError(resource, given);
          throw error;
        }
      }
      // The next sequence number, read under the write lock: AUTOINCREMENT's own counter,
      // which remembers deleted rows, so an id is never handed out twice.
      const seq = Number(s.nextSeq.get(s.table)?.next);
      const id = String(seq);
      // A resource that mixes given and sequence ids can meet a taken id here too.
      if (s.get.get(id) !== undefined) throw new DuplicateIdError(resource, id);
      try {
        return new LazyRecord(Number(s.insert.run(seq, id, owner, data).lastInsertRowid), id, 1, owner, data);
      } catch (error) {
        throw uniqueViolation(error) ?? error;
      }
    };
    return write;
  }

  async get(resource: string, id: string): Promise<StoredRecord | undefined> {
    const row = this.#statements(resource).get.get(id) as Row | undefined;
    return row && toRecord(row);
  }

  async update(resource: string, id: string, data: Record<string, unknown>, expect: Expectation = {}, options: WriteOptions = {}): Promise<ChangeResult> {
    const s = this.#statements(resource);
    const { domain } = options;
    const prepared = domain ? undefined : JSON.stringify(data);
    // Group-committed as inserts are (see the header): the compare-and-set reads the row and
    // writes it inside the group's transaction, under its write lock, so no other write comes
    // between. With events or rules a work writes more than once: a savepoint undoes all of it.
    const work = (): ChangeResult => {
      const row = s.get.get(id) as Row | undefined;
      if (!row) return { ok: false, reason: 'missing' };
      const current = toRecord(row);
      const refused = check(current, expect);
      if (refused) return refused;
      const version = current.version + 1;
      const json = prepared ?? JSON.stringify(runStep(this.#tx, domain as DomainStep, current, data));
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
      const refused = check(current, expect);
      if (refused) return refused as RemoveResult;
      if (options.domain) runStep(this.#tx, options.domain, current, undefined);
      s.remove.run(row[0]);
      if (options.events) this.#append(options.events(current));
      return { ok: true };
    }));
  }

  async list(resource: string, query: ListQuery): Promise<ListResult> {
    const s = this.#statements(resource);
    const want = query.limit + 1;
    const plain = this.#plainPage(s, query, resource);
    if (plain) {
      const { owner, after } = query;
      const rows = (owner === undefined ? (after ? plain.statement.all(after.seq) : plain.statement.all()) : after ? plain.statement.all(owner, after.seq) : plain.statement.all(owner)) as unknown as Row[];
      return page(rows, query.limit);
    }
    const list = listSql(s.table, query, this.#liveOf(resource));
    let rows: Row[];
    if (this.#reader && !this.#inline(list, query)) rows = await this.#reader.read(list, want);
    else {
      rows = this.#listStatement(list.sql).all(...list.args) as unknown as Row[];
      const { rest } = list;
      if (rest && rows.length < want) {
        // The second range of the page (src/store/sqlite-list.ts): its LIMIT is what is still missing.
        rest.args[rest.args.length - 1] = want - rows.length;
        rows = rows.concat(this.#listStatement(rest.sql).all(...rest.args) as unknown as Row[]);
      }
    }
    return page(rows, query.limit);
  }

  /**
   * The statement of a plain page (insertion order: no filter, search, sort or offset), the
   * page of every walk through a collection: prepared once per shape, so such a page costs
   * its query and no SQL text, cache look-up or plan check. Undefined for any other page, a
   * page past INLINE_OFFSET records, and a position that does not fit (listSql refuses it as
   * a bug); null where such a page is read on the reader thread (never, with SQLite's plans).
   */
  #plainPage(s: Statements, query: ListQuery, resource: string): PlainPage | null | undefined {
    if (query.limit > INLINE_OFFSET || query.sort?.length || query.filters?.length || query.search !== undefined || query.offset || (query.after && query.after.values.length) || !isEmpty(query.filter)) return undefined;
    const slot = query.limit * 4 + (query.owner === undefined ? 0 : 1) + (query.after ? 2 : 0);
    const known = s.plain.get(slot);
    if (known !== undefined) return known;
    // The statement listSql writes for this shape (its arguments: owner, position).
    const shape: ListQuery = { limit: query.limit, ...(query.owner === undefined ? {} : { owner: query.owner }), ...(query.after ? { after: query.after } : {}) };
    const list = listSql(s.table, shape, this.#liveOf(resource));
    const plain = !this.#reader || this.#inline(list, shape) ? { statement: this.#listStatement(list.sql) } : null;
    s.plain.set(slot, plain);
    return plain;
  }

  async count(resource: string, query: CountQuery): Promise<number> {
    const s = this.#statements(resource);
    // The list's own conditions, so a total always agrees with the pages it counts (./sqlite-list.ts countSql).
    const counting = countSql(s.table, query, this.#liveOf(resource));
    // A count reads every match: on the reader thread where there is one, never holding up requests.
    // List statements return rows as arrays (the page's fast path): the count is the first column.
    if (this.#reader) return Number(((await this.#reader.read(counting, 1)) as unknown as [[number]])[0][0]);
    const row = this.#listStatement(counting.sql).get(...counting.args) as unknown as [number];
    return Number(row[0]);
  }

  /**
   * Whether a page is cheap enough for the main thread: its plan walks an index (or the
   * table) in the page's order and stops after the page, so its cost does not grow with the
   * table. Any other page goes to the reader thread (src/store/sqlite-reader.ts): a sort of
   * all matching rows (TEMP B-TREE FOR ORDER BY; a sort of one key's ties is bounded and
   * stays), filters no field index narrows (a scan that may read every row to fill a page),
   * filters on two fields or more (an index narrows by one of them; the rows of its range
   * that the others refuse are read one by one, as many as that range holds), a full-text
   * search (no index serves it: a text nobody wrote reads the whole table), an offset or a
   * page size past INLINE_OFFSET. Decided once per SQL text, from SQLite's own plan.
   */
  #inline(list: ListSql, query: ListQuery): boolean {
    if ((query.offset ?? 0) > INLINE_OFFSET || query.limit > INLINE_OFFSET || query.search !== undefined) return false;
    const known = this.#routes.get(list.sql);
    if (known !== undefined) return known;
    const fields = new Set([...(query.filters ?? []).map((f) => f.field), ...Object.keys(query.filter ?? {})]);
    const cheap = fields.size <= 1 && [list, ...(list.rest ? [list.rest] : [])].every(({ sql }) => {
      const plan = (this.#db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
      if (plan.some((d) => d.includes('TEMP B-TREE FOR ORDER BY'))) return false;
      return fields.size === 0 || /^SEARCH .* USING (COVERING )?INDEX fx_/.test(plan[0] ?? '');
    });
    if (this.#routes.size >= LIST_STATEMENT_CACHE) this.#routes.delete(this.#routes.keys().next().value as string);
    this.#routes.set(list.sql, cheap);
    return cheap;
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

  /** What a domain step reads and writes through, inside the open transaction (./sqlite-domain.ts). */
  #txAccess(): TxAccess {
    return {
      get: (resource, id) => {
        const row = this.#statements(resource).get.get(id) as Row | undefined;
        return row && toRecord(row);
      },
      // On the writer, inside the transaction: the reader thread sees only what is committed.
      // A step's counts have a few shapes, each counted again and again: the SQL text of a
      // shape is written once (countShape), and only the arguments per count.
      count: (resource, query) => {
        const { table } = this.#statements(resource);
        const live = this.#liveOf(resource);
        const shape = countShape(query);
        if (shape === undefined) {
          const counting = countSql(table, query, live);
          return Number((this.#listStatement(counting.sql).get(...counting.args) as unknown as [number])[0]);
        }
        const key = `${table}\0${shape}`;
        let statement = this.#counts.get(key);
        if (!statement) {
          if (this.#counts.size >= LIST_STATEMENT_CACHE) this.#counts.delete(this.#counts.keys().next().value as string);
          this.#counts.set(key, (statement = this.#listStatement(countSql(table, query, live).sql)));
        }
        return Number((statement.get(...countArgs(query)) as unknown as [number])[0]);
      },
      list: (resource, query, limit) => {
        const list = listSql(this.#statements(resource).table, { ...query, limit }, this.#liveOf(resource));
        return (this.#listStatement(list.sql).all(...list.args) as unknown as Row[]).map(toRecord);
      },
      sequenceValue: (name) => {
        const row = this.#sequences.value.get(name) as unknown as [number] | undefined;
        return row && Number(row[0]);
      },
      setSequence: (name, value, exists) => {
        const q = this.#sequences;
        if (value === undefined) q.remove.run(name);
        else if (exists) q.update.run(value, name);
        else q.insert.run(name, value);
      },
      // One compare-and-set statement on the id and the version the step read: no read of the
      // row again to compare (the step read it in this transaction), RETURNING what its event
      // needs when it triggers one (an effect on a resource that declares no event on it does not).
      // A change of effect fields only, on a table that keeps them apart, writes `live` and not
      // `data` (./sqlite-record.ts Statements.updateLiveIf): the record's indexes stay as they are.
      apply: (write: RelatedWrite) => {
        const s = this.#statements(write.resource);
        const live = write.kind === 'update' ? this.#liveOf(write.resource) : NO_LIVE;
        const apart = write.kind === 'update' && write.changes !== undefined && write.changes.length > 0 && write.changes.every((f) => live.has(f));
        let record: StoredRecord;
        try {
          if (!write.events) {
            const done = write.kind === 'remove' ? s.removeIfQuiet.run(write.id, write.version) : apart ? s.updateLiveIfQuiet.run(liveOf(write.data, live), write.id, write.version) : s.updateIfQuiet.run(JSON.stringify(write.data), write.id, write.version);
            return Number(done.changes) === 1;
          }
          if (write.kind === 'update') {
            const json = JSON.stringify(write.data);
            const row = (apart ? s.updateLiveIf.get(liveOf(write.data, live), write.id, write.version) : s.updateIf.get(json, write.id, write.version)) as readonly [seq: number, owner: string | null] | undefined;
            if (!row) return false;
            record = new LazyRecord(row[0], write.id, write.version + 1, row[1], json);
          } else {
            const row = s.removeIf.get(write.id, write.version) as Row | undefined;
            if (!row) return false;
            record = toRecord(row);
          }
        } catch (error) {
          throw uniqueViolation(error) ?? error;
        }
        if (write.events) this.#append(write.events(record));
        return true;
      },
    };
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

  /** Runs work inside a savepoint of the open transaction: all of it, or none of it. */
  /**
   * A write's events, appended after it without a savepoint: the write went first, being the
   * one statement that can be refused (a taken id, a unique index), and the events' INSERTs
   * refuse nothing (their one constraint, NOT NULL, is always met). Should the events fail all
   * the same (their maker throws, say), they take themselves back out (./sqlite-events.ts) and
   * the write is undone by hand; if that fails too, the group's whole transaction is rolled
   * back, and the group commit fails every work in it: a record is never committed without its
   * events. A savepoint instead copied every page the write changed (the record's table, field
   * and unique indexes) into its journal: ~30K instructions a create with events (callgrind).
   */
  #appendAfter(events: () => readonly NewEvent[], undo: () => void): void {
    try {
      this.#append(events());
    } catch (error) {
      if (this.#db.isTransaction) {
        try {
          undo();
        } catch {
          try {
            this.#db.exec('ROLLBACK');
          } catch {
            // Rolled back already by SQLite, or closed: either way nothing of it is committed.
          }
        }
      }
      throw error;
    }
  }

  #savepoint<T>(work: () => T): T {
    const db = this.#db;
    // Prepared once: a savepoint per write with events or rules would otherwise parse its SQL every time.
    const sp = this.#savepoints;
    sp.open.run();
    try {
      const result = work();
      sp.release.run();
      return result;
    } catch (error) {
      if (db.isTransaction) {
        sp.undo.run();
        sp.release.run();
      }
      throw error;
    }
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

  #listStatement(sql: string): StatementSync {
    const cached = this.#lists.get(sql);
    // A hit is the hot path of every page: it is not moved. The cache is first in, first out,
    // which a spec's few list shapes never fill; a hostile stream of shapes only re-prepares.
    if (cached) return cached;
    const statement = returningArrays(this.#db.prepare(sql));
    if (this.#lists.size >= LIST_STATEMENT_CACHE) this.#lists.delete(this.#lists.keys().next().value as string);
    this.#lists.set(sql, statement);
    return statement;
  }
}

/**
 * Whether a record meets an expectation, in the order of RFC 9110 §13.2.2: the
 * precondition (the version, If-Match) before what the method itself requires (the state).
 * A record of another owner is reported as missing: to its non-owner it does not exist
 * (object-level authorization; the result has no owner reason).
 */
/** Thrown inside a changeMany's savepoint to undo it; carries what the caller is answered. */
class BatchRefused extends Error {
  readonly result: Exclude<BatchResult, { ok: true }>;
  constructor(result: Exclude<BatchResult, { ok: true }>) {
    super('batch refused');
    this.result = result;
  }
}

function check(current: StoredRecord, expect: Expectation): Exclude<ChangeResult, { ok: true }> | undefined {
  if (expect.owner !== undefined && current.owner !== expect.owner) return { ok: false, reason: 'missing' };
  if (expect.version !== undefined && current.version !== expect.version) return { ok: false, reason: 'version', current };
  if (expect.state) {
    const value = current.data[expect.state.field];
    if (typeof value !== 'string' || !expect.state.from.includes(value)) return { ok: false, reason: 'state', current };
  }
  return undefined;
}

/** A page of `limit` records from its rows (one more than the limit says a page follows). */
function page(rows: readonly Row[], limit: number): ListResult {
  const count = Math.min(rows.length, limit);
  const records: StoredRecord[] = new Array(count);
  for (let i = 0; i < count; i++) records[i] = new PageRecord(rows[i]);
  return { records, hasMore: rows.length > limit };
}

function isEmpty(filter: ListQuery['filter']): boolean {
  if (filter === undefined) return true;
  for (const _ in filter) return false;
  return true;
}
