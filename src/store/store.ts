/**
 * The one storage interface of the reference service. SQLite (embedded, the default) and
 * PostgreSQL implement it; test/store/contract.ts is the one suite every adapter passes.
 *
 * Records are JSON documents per resource, with the bookkeeping the service needs beside
 * them: an insertion sequence (stable cursors), a version (ETags, If-Match), an owner
 * (object-level authorization). Every write is one transaction: it is acknowledged only
 * once committed. Conditional writes (a version, a state) are compare-and-set inside the
 * transaction, so two concurrent transitions of one record never both succeed. A write's
 * events (WriteOptions.events) are appended to the event log in its transaction.
 */
import type { CredentialStore } from './credentials.ts';
import type { EventStore, WriteOptions } from './events.ts';

export interface StoredRecord {
  /** The id as stored (text); the API layer types it (sequence ids are integers). */
  readonly id: string;
  /** Insertion order, unique per resource, never reused. */
  readonly seq: number;
  /** 1 on insert, +1 on every change. */
  readonly version: number;
  readonly owner?: string;
  /**
   * The fields exactly as the service stored them; the id is kept beside them (`id`). An
   * adapter may make it a getter (SQLite parses stored text on first read, and a list page's
   * records have it on their class): copy a record by its members, never by spreading it.
   */
  readonly data: Readonly<Record<string, unknown>>;
  /**
   * `data` as the JSON text the store holds, when it holds it verbatim (SQLite does): a
   * presenter may send it as it is instead of serializing `data` again. Absent otherwise.
   */
  readonly json?: string;
}

export type ScalarValue = string | number | boolean | null;

export interface SortKey {
  readonly field: string;
  readonly direction: 'asc' | 'desc';
}

/**
 * A condition on one top-level field of a list. Every operator is type-exact, as `eq` is:
 * a value matches only members of its own JSON type (true is not 1, 1 is not "1").
 *
 *   eq v        the member equals v; v null matches a null member and an absent one alike
 *   ne v        not `eq v` (so null and absent members match a non-null v)
 *   lt lte gt gte v   the member is a number (v a number) or a string (v a string, compared
 *               by code point) and is below / at most / above / at least v; null and absent never
 *   in [v…]     `eq` one of the values (a null among them matches null and absent)
 *   prefix s    the member is a string that starts with s (case-sensitive)
 *   contains s  the member is a string that contains s (case-sensitive)
 *   exists      the member is present and not null
 *   absent      the member is null or absent
 *
 * An adapter serves the first five from an index on the field (migrate's `indexes`).
 */
export type FilterOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'prefix' | 'contains' | 'exists' | 'absent';

export interface FieldFilter {
  readonly field: string;
  readonly op: FilterOp;
  /** A scalar for eq, ne, lt, lte, gt, gte, prefix, contains; a list for in; none for exists, absent. */
  readonly value?: ScalarValue | readonly ScalarValue[];
}

/** What the store keeps for a resource: its table, and an index per field lists filter or sort by. */
export interface TableLayout {
  readonly name: string;
  /** Top-level fields lists filter or sort by; each gets an index (the others are dropped). */
  readonly indexes?: readonly string[];
  /** Whether its records have owners: every list then names one, and the indexes lead with it. */
  readonly owned?: boolean;
  /** Unique constraints the store itself enforces (unique indexes), kept in step as indexes are. */
  readonly unique?: readonly UniqueConstraint[];
  /**
   * Top-level fields that writes of other records change by their effects (a book's
   * `available`, changed by each approved loan; its `updatedAt`). A hint: an adapter may keep
   * their values apart from the rest of the record, so that a related write naming only these
   * (RelatedWrite `changes`) does not write the record's other fields and their indexes
   * again. Nothing a client reads changes: records, filters and sorts are as without it.
   */
  readonly effectFields?: readonly string[];
  /**
   * The member the API shows a record's id under. The service keeps the id beside the data,
   * so no record it writes has this member in its data: an adapter may keep track of that,
   * and of ids that JSON text must escape, to vouch for its pages (ListResult `plain`).
   */
  readonly idField?: string;
}

/**
 * Values of top-level fields no two records may share (a unique index, never a read before
 * the write). Type-exact, as filters are: the number 1 and the string "1" differ. A record
 * in which any of the fields is null or absent takes part in no conflict (SQL's NULLs are
 * distinct). With `where`, only records whose fields hold one of the listed values take
 * part (a partial index: one open loan per member and book).
 */
export interface UniqueConstraint {
  /** Unique per resource; a violation names it (UniqueViolationError.constraint). */
  readonly name: string;
  readonly fields: readonly string[];
  readonly where?: readonly { readonly field: string; readonly values: readonly (string | number | boolean)[] }[];
  /** Strings compared without case (ASCII and Unicode lower case). */
  readonly ignoreCase?: boolean;
}

export interface ListQuery {
  /** Exact matches on top-level fields: the same as `eq` filters. */
  readonly filter?: Readonly<Record<string, ScalarValue>>;
  /** Conditions on top-level fields, all of which apply (AND), with `filter`'s. */
  readonly filters?: readonly FieldFilter[];
  /** Only records of this owner. */
  readonly owner?: string;
  /** Full-text: records any of whose fields (text) contains the text, ASCII letters without case. */
  readonly search?: { readonly fields: readonly string[]; readonly text: string };
  /** Declared sort fields; ties (and no sort) fall back to insertion order, ascending. */
  readonly sort?: readonly SortKey[];
  /** Keyset position: records strictly after this one in the sort order. */
  readonly after?: { readonly values: readonly ScalarValue[]; readonly seq: number };
  readonly offset?: number;
  readonly limit: number;
  /** Whole records; `true` is a LeanListQuery (a query whose `lean` is only known to be a boolean fits neither). */
  readonly lean?: false;
  /**
   * The asking request's mark of abandonment (the service's time-out sets `abandoned` when it
   * answers the request itself): an adapter that queues slow reads drops this one, still
   * queued, once it is set (./sqlite-reader.ts), rejecting it. It selects nothing.
   */
  readonly work?: { readonly abandoned: boolean };
}

/** The conditions of a list query, without its order and page. */
export type CountQuery = Omit<ListQuery, 'sort' | 'after' | 'offset' | 'limit' | 'lean'>;

/**
 * A list that reads only what a page's items are made of: each record's id, seq and data
 * (with `json`), not its version or owner. An adapter may then read fewer columns — in
 * SQLite each column of each row is a call into the library under the connection's mutex,
 * and the two columns a page sends nothing of were a twentieth of a page's instructions
 * (README, performance). The records are the same ones a full list gives, in the same order.
 */
export interface LeanListQuery extends Omit<ListQuery, 'lean'> {
  readonly lean: true;
}

/** A record of a lean list (LeanListQuery): what a page's items and its next position are made of. */
export type ListedRecord = Pick<StoredRecord, 'id' | 'seq' | 'data' | 'json'>;

export interface ListResult<R extends ListedRecord = StoredRecord> {
  readonly records: readonly R[];
  /** Whether records follow the last one returned. */
  readonly hasMore: boolean;
  /**
   * True when the adapter vouches for every record of the page: its id is a text JSON holds
   * as it is (no character RFC 8259 §7 escapes), and its data has no top-level member named
   * as the layout's `idField`. A presenter may then put the id in front of the stored text
   * (`json`) without checking either. Absent or false: not known.
   */
  readonly plain?: boolean;
}

/** What a conditional change expects of the record it changes. */
export interface Expectation {
  /** The version the client last saw (If-Match). */
  readonly version?: number;
  /** For a transition: the state field and the states it may start from. */
  readonly state?: { readonly field: string; readonly from: readonly string[] };
  /** Only the owner may change it. */
  readonly owner?: string;
}

export type ChangeResult =
  | { readonly ok: true; readonly record: StoredRecord }
  | { readonly ok: false; readonly reason: 'missing' }
  | { readonly ok: false; readonly reason: 'version' | 'state'; readonly current: StoredRecord };

export type RemoveResult = { readonly ok: true } | { readonly ok: false; readonly reason: 'missing' } | { readonly ok: false; readonly reason: 'version'; readonly current: StoredRecord };

export interface IdempotentResponse {
  readonly fingerprint: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

/** A record to insert: without an id, the store assigns the sequence number as the id. */
export interface NewRecord {
  readonly id?: string;
  readonly owner?: string;
  readonly data: Record<string, unknown>;
}

/** One change of a changeMany: new data for a record (an update), or its removal. */
export type BatchChange =
  | { readonly kind: 'update'; readonly id: string; readonly data: Record<string, unknown>; readonly expect?: Expectation }
  | { readonly kind: 'remove'; readonly id: string; readonly expect?: Omit<Expectation, 'state'> };

/**
 * What a changeMany did: every change (the records as updated, or as they were when removed,
 * in order), or none, with the index of the first change whose record was missing or did
 * not meet its expectation.
 */
export type BatchResult =
  | { readonly ok: true; readonly records: readonly StoredRecord[] }
  | { readonly ok: false; readonly index: number; readonly reason: 'missing' }
  | { readonly ok: false; readonly index: number; readonly reason: 'version' | 'state'; readonly current: StoredRecord };

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Creates what the resources need (a name alone: a table with no field indexes); safe to
   * call on every start. A field index no longer asked for is dropped.
   */
  migrate(resources: readonly (string | TableLayout)[]): Promise<void>;
  /** Inserts a record. Without an id, the store assigns the sequence number as the id. Fails with DuplicateIdError on a taken id. */
  insert(resource: string, record: { readonly id?: string; readonly owner?: string; readonly data: Record<string, unknown> }, options?: WriteOptions): Promise<StoredRecord>;
  /**
   * Inserts records all-or-nothing, in one transaction, in order, each with its events
   * (a bulk create). A taken id fails the whole write with DuplicateIdError naming the
   * item's index; nothing of it is kept.
   */
  insertMany(resource: string, records: readonly NewRecord[], options?: WriteOptions): Promise<StoredRecord[]>;
  /**
   * Updates and removes records all-or-nothing, in one transaction, in order, each with its
   * events (WriteOptions.events, made from the record as updated, or as it was when removed):
   * a bulk update or delete. A record missing or not meeting its change's expectation keeps
   * every record as it was and writes no event; the result names the change.
   */
  changeMany(resource: string, changes: readonly BatchChange[], options?: WriteOptions): Promise<BatchResult>;
  get(resource: string, id: string): Promise<StoredRecord | undefined>;
  /** Replaces the data of a record if it meets the expectation; the version increases by one. */
  update(resource: string, id: string, data: Record<string, unknown>, expect?: Expectation, options?: WriteOptions): Promise<ChangeResult>;
  /** Removes a record if it meets the expectation; its events are made from the record as it was. */
  remove(resource: string, id: string, expect?: Expectation, options?: WriteOptions): Promise<RemoveResult>;
  list(resource: string, query: LeanListQuery): Promise<ListResult<ListedRecord>>;
  list(resource: string, query: ListQuery): Promise<ListResult>;
  /** Either (a wrapper handing a query on): records of a lean list at least. */
  list(resource: string, query: ListQuery | LeanListQuery): Promise<ListResult<ListedRecord>>;
  /** How many records the query's conditions (filters, owner) select, across all pages: a page body's total. */
  count(resource: string, query: CountQuery): Promise<number>;
  /** Idempotency-Key records, by a scope (principal, method, path) and the key. */
  getIdempotent(scope: string, key: string): Promise<IdempotentResponse | undefined>;
  /** Stores the first response for a key; false if one was stored meanwhile. */
  putIdempotent(scope: string, key: string, response: IdempotentResponse): Promise<boolean>;
  /** Forgets keys older than this (epoch ms). */
  expireIdempotent(before: number): Promise<number>;
  /** Credentials the service issued (part 5). */
  readonly credentials: CredentialStore;
  /** The event log, webhook subscriptions and deliveries (part 6); src/store/events.ts. */
  readonly events: EventStore;
  /**
   * Whether the store can take writes now (the readiness check, src/serve/health.ts): a real
   * round trip to the database, and for a file, that the file opened is still the one at its
   * path. Optional: an adapter without it is taken as healthy while its calls succeed.
   */
  health?(): Promise<StoreHealth>;
  /**
   * Calls `listener` when events were appended through any process on the same database,
   * once they are committed (PostgreSQL: LISTEN/NOTIFY); returns the function that stops it.
   * Optional: without it, streams and delivery learn of another process's events at their
   * next poll (src/serve/events).
   */
  watchEvents?(listener: () => void): () => void;
  close(): Promise<void>;
}

export type StoreHealth = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * The store cannot keep what it is given (its database file was deleted or replaced while
 * open, say): the write was not acknowledged, and none will be until an operator acts. The
 * service answers 503 `unavailable` and logs it as an error (src/serve/app.ts).
 */
export class StoreUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'StoreUnavailableError';
  }
}

/** A write would give two records the values a unique constraint keeps apart; nothing of it was kept. */
export class UniqueViolationError extends Error {
  readonly resource: string;
  readonly constraint: string;
  /** In an insertMany or changeMany: the index of the item that conflicted. */
  readonly index?: number;
  constructor(resource: string, constraint: string, index?: number) {
    super(`a ${resource} with the same values of its unique constraint '${constraint}' exists`);
    this.name = 'UniqueViolationError';
    this.resource = resource;
    this.constraint = constraint;
    if (index !== undefined) this.index = index;
  }
}

/**
 * A write's domain rules refused it inside its transaction (a guard, a rule over a related
 * record): nothing of it was kept. `refusal` is what the DomainStep decided, passed through.
 */
export class DomainRefusedError extends Error {
  readonly refusal: unknown;
  /** In an insertMany or changeMany: the index of the item refused. */
  readonly index?: number;
  constructor(refusal: unknown, index?: number) {
    super('the domain rules refused the write');
    this.name = 'DomainRefusedError';
    this.refusal = refusal;
    if (index !== undefined) this.index = index;
  }
}

export class DuplicateIdError extends Error {
  readonly id: string;
  /** In an insertMany: the index of the record whose id is taken. */
  readonly index?: number;
  constructor(resource: string, id: string, index?: number) {
    super(`a ${resource} with id '${id}' exists`);
    this.name = 'DuplicateIdError';
    this.id = id;
    if (index !== undefined) this.index = index;
  }
}
