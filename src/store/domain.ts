/**
 * Domain rules inside a write's transaction: the protocol between the service (which knows
 * the spec's guards, effects and managed values) and a store adapter (which knows
 * transactions). The service states what to read and decides from what was read, in pure
 * synchronous functions; the adapter reads, inside the write's transaction, whatever the
 * step asks for, and writes what it decided together with the write itself, or nothing.
 *
 * Why this shape: a guard ("fewer than maxLoans open loans", "a copy is on the shelf") read
 * outside the transaction can be bypassed by two concurrent requests that both read before
 * either writes. Read inside it, with SQLite's one writer (BEGIN IMMEDIATE) or PostgreSQL's
 * row locks, it cannot. The service never holds a transaction across an `await`: SQLite's
 * transactions are synchronous, and PostgreSQL's adapter awaits its reads itself between
 * the calls of `decide`.
 *
 * The loop: `decide(current, read)` is called with what has been read so far (at first
 * nothing); it answers with more to read (`more`: a cascade that must list the records
 * referring to each removed one), a refusal, or the decision. An adapter stops a step that
 * asks for more than MAX_ROUNDS rounds (a cycle the spec's check missed) with an error.
 */
import type { EventMaker } from './events.ts';
import { DomainRefusedError, UniqueViolationError, type CountQuery, type StoredRecord } from './store.ts';

/** What a step reads, each under a key of its own choosing. */
export interface DomainReads {
  /** Records by id (absent ones are read as undefined). */
  readonly records?: readonly { readonly key: string; readonly resource: string; readonly id: string }[];
  /** How many records match (a guard's count). */
  readonly counts?: readonly { readonly key: string; readonly resource: string; readonly query: CountQuery }[];
  /** Every record that matches, in insertion order (the referrers of a removed record). */
  readonly lists?: readonly { readonly key: string; readonly resource: string; readonly query: CountQuery }[];
  /** Named counters, each advanced by one and read (a managed number: `LIB-00000042`). */
  readonly sequences?: readonly { readonly key: string; readonly name: string }[];
}

/** Everything read so far, by key. */
export interface DomainRead {
  readonly records: ReadonlyMap<string, StoredRecord | undefined>;
  readonly counts: ReadonlyMap<string, number>;
  readonly lists: ReadonlyMap<string, readonly StoredRecord[]>;
  readonly sequences: ReadonlyMap<string, number>;
}

/** A change of another record made with the write (an effect, a cascade), compare-and-set on the version read. */
export type RelatedWrite =
  /**
   * `data` is the whole record as written; `changes`, when given, names every field in which it
   * differs from the record read (an effect's fields and the managed fields it sets), so an
   * adapter that keeps a resource's effect fields apart (TableLayout `effectFields`) writes
   * only those.
   */
  | { readonly kind: 'update'; readonly resource: string; readonly id: string; readonly version: number; readonly data: Record<string, unknown>; readonly changes?: readonly string[]; readonly events?: EventMaker }
  | { readonly kind: 'remove'; readonly resource: string; readonly id: string; readonly version: number; readonly events?: EventMaker };

export type DomainDecision =
  /** Read these too, then decide again. */
  | { readonly more: DomainReads }
  /** Keep nothing: the adapter throws DomainRefusedError carrying `refusal`. */
  | { readonly refuse: unknown }
  /** Go on: the write's data (when the step changed it) and the related writes made with it. */
  | { readonly data?: Record<string, unknown>; readonly related?: readonly RelatedWrite[] };

export interface DomainStep {
  /**
   * Pure and synchronous. `current` is the record as the transaction sees it (a change or a
   * removal; undefined for an insert); `data` the data the write would store (an insert or a
   * change; undefined for a removal).
   */
  decide(current: StoredRecord | undefined, data: Record<string, unknown> | undefined, read: DomainRead): DomainDecision;
}

/** Rounds of `more` a step may ask for before the adapter gives up on it. */
export const MAX_ROUNDS = 16;
/** The most records one `lists` read returns; a larger cascade is refused rather than held in one transaction. */
export const MAX_LISTED = 10_000;

/** A read a step asked for returned more than MAX_LISTED records. */
export class DomainLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DomainLimitError';
  }
}

/** An empty read, to start with. */
export function emptyRead(): { records: Map<string, StoredRecord | undefined>; counts: Map<string, number>; lists: Map<string, readonly StoredRecord[]>; sequences: Map<string, number> } {
  return { records: new Map(), counts: new Map(), lists: new Map(), sequences: new Map() };
}

export function isMore(d: DomainDecision): d is { readonly more: DomainReads } {
  return 'more' in d;
}

export function isRefusal(d: DomainDecision): d is { readonly refuse: unknown } {
  return 'refuse' in d;
}

/**
 * A batch item's error, named by the item: a refusal of its domain step, or a unique value its
 * write or related writes took. An error that names an item already, and any other, is kept.
 */
export function ofItem(error: unknown, index: number): unknown {
  if (error instanceof DomainRefusedError && error.index === undefined) return new DomainRefusedError(error.refusal, index);
  if (error instanceof UniqueViolationError && error.index === undefined) return new UniqueViolationError(error.resource, error.constraint, index);
  return error;
}
