/**
 * Domain steps (./domain.ts) and unique constraints in the PostgreSQL adapter.
 *
 * Unique constraints are UNIQUE expression indexes, so the database refuses the second of
 * two concurrent writes inside its INSERT or UPDATE, on any instance: never a read before
 * the write. A field is indexed as its jsonb value, whose equality is type-exact (1 is not
 * "1"); with `ignoreCase`, as its JSON type beside its lower-cased text. The index is
 * partial: records missing a field (absent or null) take no part, nor, with `where`, those
 * whose fields hold none of the listed values (jsonb literals, type-exact). Each index
 * carries the statement it was made from as its comment, so a changed constraint is seen
 * and its index made again.
 *
 * Guards with counts, and why locks rather than SERIALIZABLE. A step runs inside the
 * write's READ COMMITTED transaction, and what it reads is locked against change until
 * COMMIT:
 *   - a record it reads is read `FOR UPDATE`: a concurrent write of that record (an
 *     effect's compare-and-set, a transition) waits, so the version the step decided on is
 *     the one its related write changes;
 *   - a count or a list locks the table it reads `IN SHARE ROW EXCLUSIVE MODE` before
 *     reading. That mode conflicts with every writer's ROW EXCLUSIVE lock and with itself,
 *     so no record of that table can be inserted, changed or removed, by any instance and
 *     at any isolation level, between the count and the COMMIT: 16 concurrent guarded
 *     inserts under a limit of 3 queue, and exactly 3 get through.
 * SERIALIZABLE would detect the same conflicts only among SERIALIZABLE transactions (a
 * write at READ COMMITTED into the counted range goes unseen), so every write of the
 * adapter would have to run SERIALIZABLE and retry; under a burst on one guard most
 * attempts would then fail and retry. The locks queue the writers of a guarded table
 * instead, which is the order a guard needs anyway; writes of tables no count reads are
 * untouched. A lock cycle (a guarded write and a batch locking rows in the other order) is
 * broken by PostgreSQL's deadlock detector, and the adapter retries the victim
 * (src/store/postgres.ts).
 */
import type { TransactionSql } from 'postgres';
import { DomainLimitError, emptyRead, isMore, isRefusal, MAX_LISTED, MAX_ROUNDS, ofItem, type DomainReads, type DomainStep, type RelatedWrite } from './domain.ts';
import { fieldIndexName, indexable, quoteIdent } from './postgres-list.ts';
import { DomainRefusedError, UniqueViolationError, type CountQuery, type StoredRecord, type UniqueConstraint } from './store.ts';

export const SEQUENCES_DDL = 'CREATE TABLE sequences (name text PRIMARY KEY, value bigint NOT NULL)';

/** What a step needs of the store, inside the open transaction. */
export interface TxAccess {
  get(resource: string, id: string): Promise<StoredRecord | undefined>;
  count(resource: string, query: CountQuery): Promise<number>;
  list(resource: string, query: CountQuery, limit: number): Promise<StoredRecord[]>;
  nextSequence(name: string): Promise<number>;
  /** Writes a related change (compare-and-set on its version); false if the record changed or went. */
  apply(write: RelatedWrite): Promise<boolean>;
}

/** Runs a step to its decision (see ./sqlite-domain.ts, whose synchronous twin this is). */
export async function runStep(tx: TxAccess, step: DomainStep, current: StoredRecord | undefined, data: Record<string, unknown> | undefined): Promise<Record<string, unknown> | undefined> {
  const read = emptyRead();
  for (let round = 0; round <= MAX_ROUNDS; round++) {
    const decision = step.decide(current, data, read);
    if (isRefusal(decision)) throw new DomainRefusedError(decision.refuse);
    if (isMore(decision)) {
      await readInto(tx, decision.more, read);
      continue;
    }
    for (const write of decision.related ?? []) {
      if (!(await tx.apply(write))) throw new Error(`bug: the ${write.resource} '${write.id}' changed inside the write's own transaction`);
    }
    return decision.data ?? data;
  }
  throw new Error(`bug: a domain step asked for more reads ${MAX_ROUNDS} times (a cycle of cascades?)`);
}

async function readInto(tx: TxAccess, more: DomainReads, read: ReturnType<typeof emptyRead>): Promise<void> {
  for (const r of more.records ?? []) read.records.set(r.key, await tx.get(r.resource, r.id));
  for (const c of more.counts ?? []) read.counts.set(c.key, await tx.count(c.resource, c.query));
  for (const l of more.lists ?? []) {
    const records = await tx.list(l.resource, l.query, MAX_LISTED + 1);
    if (records.length > MAX_LISTED) throw new DomainLimitError(`more than ${MAX_LISTED} ${l.resource} records would change with this write; it is refused rather than held in one transaction`);
    read.lists.set(l.key, records);
  }
  for (const s of more.sequences ?? []) read.sequences.set(s.key, await tx.nextSequence(s.name));
}

/** The index of a unique constraint; `ux_<resource>.` prefixes them all (shortened by a hash past 63 bytes). */
export function uniqueIndexName(resource: string, constraint: string): string {
  return fieldIndexName(resource, constraint, false).replace(/^fx_/, 'ux_');
}

const jsonbLiteral = (value: unknown) => `'${JSON.stringify(value).replace(/'/g, "''")}'::jsonb`;

/** The CREATE UNIQUE INDEX of a constraint. */
export function uniqueIndexSql(table: string, resource: string, c: UniqueConstraint): string {
  for (const f of [...c.fields, ...(c.where ?? []).map((w) => w.field)]) {
    if (!indexable(f)) throw new Error(`unique constraint '${c.name}' of ${resource}: '${f}' is not a field name an index can hold`);
  }
  const x = (f: string) => `(data -> '${f}')`;
  const columns = c.fields.flatMap((f) => (c.ignoreCase ? [`jsonb_typeof(${x(f)})`, `lower(${x(f)} #>> '{}')`] : [x(f)]));
  const present = c.fields.map((f) => `${x(f)} IS NOT NULL AND ${x(f)} <> 'null'::jsonb`);
  const where = (c.where ?? []).map((w) => `${x(w.field)} IN (${w.values.map(jsonbLiteral).join(', ')})`);
  return `CREATE UNIQUE INDEX ${quoteIdent(uniqueIndexName(resource, c.name))} ON ${quoteIdent(table)} (${columns.join(', ')}) WHERE ${[...present, ...where].join(' AND ')}`;
}

/** Keeps a table's unique indexes in step with its constraints; returns index name → constraint name. */
export async function syncUniqueIndexes(tx: TransactionSql, schema: string, table: string, resource: string, constraints: readonly UniqueConstraint[]): Promise<Map<string, string>> {
  const prefix = uniqueIndexName(resource, '');
  const rows = await tx.unsafe<{ name: string; made: string | null }[]>(
    `SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS made FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = $1 AND t.relname = $2`, [schema, table]);
  const present = new Map(rows.filter((r) => r.name.startsWith(prefix)).map((r) => [r.name, r.made]));
  const wanted = new Map(constraints.map((c) => [uniqueIndexName(resource, c.name), { sql: uniqueIndexSql(table, resource, c), name: c.name }]));
  for (const [name, made] of present) if (wanted.get(name)?.sql !== made) await tx.unsafe(`DROP INDEX ${quoteIdent(name)}`);
  for (const [name, want] of wanted) {
    if (present.get(name) === want.sql) continue;
    try {
      await tx.unsafe(want.sql);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new Error(`the ${resource} records stored already break the unique constraint '${want.name}': two of them share its values; change them before starting with this spec`, { cause: error });
      throw error;
    }
    await tx.unsafe(`COMMENT ON INDEX ${quoteIdent(name)} IS '${want.sql.replace(/'/g, "''")}'`);
  }
  return new Map([...wanted].map(([index, w]) => [index, w.name]));
}

/** The unique constraint a failed statement broke (by its index), or undefined for another error. */
export function uniqueViolation(error: unknown, constraints: ReadonlyMap<string, { resource: string; name: string }>, index?: number): UniqueViolationError | undefined {
  const e = error as { code?: string; constraint_name?: string };
  if (e?.code !== '23505' || e.constraint_name === undefined) return undefined;
  // An index this instance did not migrate (another made it) is read back from its name.
  let c = constraints.get(e.constraint_name);
  if (c === undefined) {
    const m = /^ux_([^.]+)\.([^#].*)$/.exec(e.constraint_name);
    if (m) c = { resource: m[1], name: m[2] };
  }
  return c ? new UniqueViolationError(c.resource, c.name, index) : undefined;
}

/** A batch item's step: its refusal, or a unique value its related writes took, names the item. */
export async function itemized<T>(index: number, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw ofItem(error, index);
  }
}
