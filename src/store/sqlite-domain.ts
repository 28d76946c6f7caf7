/**
 * Domain steps (./domain.ts) and unique constraints in the SQLite adapter.
 *
 * A step runs inside the write's own transaction, on the main connection, synchronously:
 * SQLite has one writer (BEGIN IMMEDIATE), so what the step reads cannot change before the
 * write commits, in this process or another on the same file. Counts and lists it asks for
 * are read here, on the writer, never on the reader thread (which sees only what is
 * committed).
 *
 * Unique constraints are unique expression indexes on the fields' JSON values, with each
 * field's JSON type beside it so the number 1 and the string "1" do not collide; `where`
 * makes the index partial. Literal values of `where` are written into the index's SQL (a
 * partial index cannot take parameters), quoted.
 */
import type { DatabaseSync } from 'node:sqlite';
import { DomainLimitError, emptyRead, isMore, isRefusal, MAX_LISTED, MAX_ROUNDS, type DomainReads, type DomainStep, type RelatedWrite } from './domain.ts';
import { fieldExpression, indexable } from './sqlite-list.ts';
import { jsonPath, quoteIdent } from './sqlite-sql.ts';
import { DomainRefusedError, UniqueViolationError, type CountQuery, type StoredRecord, type UniqueConstraint } from './store.ts';

export const SEQUENCES_DDL = 'CREATE TABLE IF NOT EXISTS sequences (name TEXT PRIMARY KEY, value INTEGER NOT NULL)';

/** What a step needs of the store, inside the open transaction. */
export interface TxAccess {
  get(resource: string, id: string): StoredRecord | undefined;
  count(resource: string, query: CountQuery): number;
  list(resource: string, query: CountQuery, limit: number): StoredRecord[];
  /** A named counter's value, read and not written; undefined for one never advanced. */
  sequenceValue(name: string): number | undefined;
  /** Sets a named counter that has a row (`exists`) or not; undefined removes it. */
  setSequence(name: string, value: number | undefined, exists: boolean): void;
  /** Writes a related change (compare-and-set on its version); false if the record changed or went. */
  apply(write: RelatedWrite): boolean;
}

/** The numbers a step took, per counter: its value before the step and after. Nothing of it written yet. */
export type TakenSequences = ReadonlyMap<string, { readonly before: number | undefined; readonly after: number }>;

/** What a step decided, read in the transaction and not written yet. */
export interface Decided {
  readonly data: Record<string, unknown> | undefined;
  readonly related: readonly RelatedWrite[];
  readonly sequences: TakenSequences | undefined;
}

/**
 * Runs a step to its decision, reading what it asks for round after round, and writing
 * nothing: a managed number is the counter's value as read plus one (the write lock is held,
 * so no other write can take it before this one writes it: takeSequences). Throws
 * DomainRefusedError on a refusal, before anything is written: a refused write has no
 * number to give back. The caller writes the related changes and the numbers (writeDecided).
 */
export function decideStep(tx: TxAccess, step: DomainStep, current: StoredRecord | undefined, data: Record<string, unknown> | undefined): Decided {
  const read = emptyRead();
  let taken: Map<string, { before: number | undefined; after: number }> | undefined;
  for (let round = 0; round <= MAX_ROUNDS; round++) {
    const decision = step.decide(current, data, read);
    if (isRefusal(decision)) throw new DomainRefusedError(decision.refuse);
    if (isMore(decision)) {
      readInto(tx, decision.more, read);
      for (const s of decision.more.sequences ?? []) {
        // Each read advances the counter (a second key on one name reads the next number).
        taken ??= new Map();
        const known = taken.get(s.name);
        const before = known ? known.before : tx.sequenceValue(s.name);
        const after = (known ? known.after : (before ?? 0)) + 1;
        taken.set(s.name, { before, after });
        read.sequences.set(s.key, after);
      }
      continue;
    }
    return { data: decision.data ?? data, related: decision.related ?? [], sequences: taken };
  }
  throw new Error(`bug: a domain step asked for more reads ${MAX_ROUNDS} times (a cycle of cascades?)`);
}

/** Writes what a step decided but the write itself: its related changes, then its numbers. */
export function writeDecided(tx: TxAccess, decided: Decided): void {
  for (const write of decided.related) {
    if (!tx.apply(write)) throw new Error(`bug: the ${write.resource} '${write.id}' changed inside the write's own transaction`);
  }
  takeSequences(tx, decided.sequences);
}

/** Advances the counters a step read to the numbers it took. */
export function takeSequences(tx: TxAccess, sequences: TakenSequences | undefined): void {
  if (sequences) for (const [name, { before, after }] of sequences) tx.setSequence(name, after, before !== undefined);
}

/** Gives a step's numbers back: each counter as the step read it (a write undone by hand). */
export function giveBackSequences(tx: TxAccess, sequences: TakenSequences | undefined): void {
  if (sequences) for (const [name, { before }] of sequences) tx.setSequence(name, before, true);
}

/**
 * Runs a step to its decision and writes it but the write itself (decideStep, writeDecided);
 * returns the data to store. Inside a savepoint (or a transaction of its own): whatever
 * fails after it undoes all of it.
 */
export function runStep(tx: TxAccess, step: DomainStep, current: StoredRecord | undefined, data: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const decided = decideStep(tx, step, current, data);
  writeDecided(tx, decided);
  return decided.data;
}

function readInto(tx: TxAccess, more: DomainReads, read: ReturnType<typeof emptyRead>): void {
  for (const r of more.records ?? []) read.records.set(r.key, tx.get(r.resource, r.id));
  for (const c of more.counts ?? []) read.counts.set(c.key, tx.count(c.resource, c.query));
  for (const l of more.lists ?? []) {
    const records = tx.list(l.resource, l.query, MAX_LISTED + 1);
    if (records.length > MAX_LISTED) throw new DomainLimitError(`more than ${MAX_LISTED} ${l.resource} records would change with this write; it is refused rather than held in one transaction`);
    read.lists.set(l.key, records);
  }
}

/** The index of a unique constraint; `ux_<resource>.` prefixes them all. */
export function uniqueIndexName(resource: string, constraint: string): string {
  return `ux_${resource}.${constraint}`;
}

function literal(value: string | number | boolean): string {
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (!Number.isFinite(value)) throw new RangeError(`bug: ${value} is not a JSON number`);
  return String(value);
}

function typeOf(field: string): string {
  return `json_type(data, '${jsonPath(field)}')`;
}

/** The CREATE UNIQUE INDEX of a constraint. */
export function uniqueIndexSql(table: string, resource: string, c: UniqueConstraint): string {
  for (const f of [...c.fields, ...(c.where ?? []).map((w) => w.field)]) {
    if (!indexable(f)) throw new Error(`unique constraint '${c.name}' of ${resource}: '${f}' is not a field name an index can hold`);
  }
  const columns = c.fields.flatMap((f) => [c.ignoreCase ? `lower(${fieldExpression(f)})` : fieldExpression(f), typeOf(f)]);
  // A record missing any of the fields conflicts with none (SQL NULLs are distinct): the
  // JSON type column is NULL for an absent member, and 'null' for a JSON null, so say both.
  const present = c.fields.map((f) => `${fieldExpression(f)} IS NOT NULL`);
  const where = (c.where ?? []).map((w) => {
    const byType = w.values.map((v) => `(${fieldExpression(w.field)} = ${literal(v)} AND ${typeOf(w.field)} ${typeof v === 'string' ? "= 'text'" : typeof v === 'boolean' ? `= '${v}'` : "IN ('integer', 'real')"})`);
    return `(${byType.join(' OR ')})`;
  });
  return `CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdent(uniqueIndexName(resource, c.name))} ON ${quoteIdent(table)} (${columns.join(', ')}) WHERE ${[...present, ...where].join(' AND ')}`;
}

/** Keeps a table's unique indexes in step with its constraints: new ones made, changed or dropped ones removed. */
export function syncUniqueIndexes(db: DatabaseSync, table: string, resource: string, constraints: readonly UniqueConstraint[]): void {
  const prefix = uniqueIndexName(resource, '');
  const present = new Map((db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?").all(table) as unknown as { name: string; sql: string }[]).filter((r) => r.name.startsWith(prefix)).map((r) => [r.name, r.sql]));
  const wanted = new Map(constraints.map((c) => [uniqueIndexName(resource, c.name), uniqueIndexSql(table, resource, c)]));
  for (const [name, sql] of present) {
    // sqlite_schema keeps the statement without IF NOT EXISTS: compare on the rest.
    const want = wanted.get(name)?.replace('IF NOT EXISTS ', '');
    if (want !== sql) db.exec(`DROP INDEX ${quoteIdent(name)}`);
  }
  for (const [name, sql] of wanted) {
    try {
      db.exec(sql);
    } catch (error) {
      if (isConstraint(error)) throw new Error(`the ${resource} records stored already break the unique constraint '${name.slice(prefix.length)}': two of them share its values; change them before starting with this spec`, { cause: error });
      throw error;
    }
  }
}

function isConstraint(error: unknown): boolean {
  return (error as { errcode?: number }).errcode === 2067;
}

/**
 * The unique constraint a failed statement broke, or undefined when it was another
 * constraint. SQLite names an expression index in its message:
 * "UNIQUE constraint failed: index 'ux_member.email'" (a resource name has no dot).
 */
export function uniqueViolation(error: unknown, index?: number): UniqueViolationError | undefined {
  if (!isConstraint(error)) return undefined;
  const m = /index 'ux_([^.']+)\.([^']+)'/.exec((error as Error).message);
  return m ? new UniqueViolationError(m[1], m[2], index) : undefined;
}
