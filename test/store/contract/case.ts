/** What the contract's case files share: the case shape, the resource, small helpers. */
import type { IdempotentResponse, ListQuery, Store, StoredRecord } from '../../../src/store/store.ts';

export interface Case {
  readonly title: string;
  readonly run: (store: Store) => Promise<void>;
}

/** The resource every case works on; the runner migrates it before each case. */
export const R = 'things';

/** Fields of R the runner indexes (migrate's `indexes`): the list cases' fields, some of them. */
export const INDEXED = ['v', 'n', 's', 'm', 'rank', 'name', 'kind', 'i', 'b', 'g'];

/** `it(title, run)` appending to a case list, so a case file reads like a test file. */
export function define(list: Case[]): (title: string, run: (store: Store) => Promise<void>) => void {
  return (title, run) => {
    list.push({ title, run });
  };
}

export async function insertAll(store: Store, datas: readonly Record<string, unknown>[], owner?: string): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  for (const data of datas) out.push(await store.insert(R, { data, ...(owner !== undefined ? { owner } : {}) }));
  return out;
}

export const seqs = (records: readonly StoredRecord[]) => records.map((r) => r.seq);
export const ids = (records: readonly StoredRecord[]) => records.map((r) => r.id);

export async function listIds(store: Store, query: Omit<ListQuery, 'limit'> & { limit?: number }): Promise<string[]> {
  return ids((await store.list(R, { limit: 1000, ...query })).records);
}

/** A stored response; `n` tells them apart. */
export const response = (n: number, createdAt = 1_000): IdempotentResponse => ({ fingerprint: `fp${n}`, status: 201, headers: { location: `/things/${n}`, 'content-type': 'application/json' }, body: JSON.stringify({ n, s: 'ü' }), createdAt });
