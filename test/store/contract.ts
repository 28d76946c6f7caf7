/**
 * The Store contract: the one suite every adapter runs (SQLite now, PostgreSQL next), in
 * the manner of Hono's src/router/common.case.test.ts. An adapter may skip a case only by
 * its exact title and with a reason; a skip naming no case fails, so a renamed case cannot
 * leave a stale skip behind.
 *
 *   storeContract('sqlite :memory:', () => openSqliteStore({ path: ':memory:' }));
 *   storeContract('postgres', open, { skip: { 'JSON round trip: a NUL character in a string': 'jsonb cannot hold \\u0000' } });
 *
 * `open` gives a store over a fresh, empty database (a new file, a new schema) each call;
 * every case opens its own and closes it.
 *
 * What the contract pins beyond the interface's comments, so the adapters agree:
 *   - data is stored verbatim: the store adds nothing to it, not even the id;
 *   - sequence ids are decimal strings of positive integers, increasing, never reused;
 *   - a filter is type-exact (true ≠ 1 ≠ "1"); a null filter matches null and absent alike;
 *   - NULLs (null or absent) sort first ascending, last descending; ties by insertion order;
 *   - an owner expectation not met reads as 'missing'; a version is checked before a state.
 */
import { describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { INDEXED, R, type Case } from './contract/case.ts';
import { credentialCases } from './contract/credentials.ts';
import { bulkCases } from './contract/bulk.ts';
import { concurrencyCases } from './contract/concurrency.ts';
import { eventCases } from './contract/events.ts';
import { idempotencyCases } from './contract/idempotency.ts';
import { listCases } from './contract/list.ts';
import { recordCases } from './contract/records.ts';
import { domainCases } from './contract/domain.ts';

export interface ContractOptions {
  /** Case title → why this adapter cannot meet it. */
  readonly skip?: Readonly<Record<string, string>>;
}

const cases: readonly Case[] = [...recordCases, ...listCases, ...idempotencyCases, ...credentialCases, ...eventCases, ...concurrencyCases, ...bulkCases, ...domainCases];

export function storeContract(name: string, open: () => Promise<Store>, options: ContractOptions = {}): void {
  const skip = options.skip ?? {};
  const titles = new Set(cases.map((c) => c.title));
  for (const title of Object.keys(skip)) if (!titles.has(title)) throw new Error(`storeContract(${name}): skip names no case: '${title}'`);
  describe(`Store contract: ${name}`, () => {
    for (const c of cases) {
      test(c.title, { skip: skip[c.title] ?? false }, async () => {
        const store = await open();
        try {
          // The fields the cases filter and sort by are indexed, as a served spec's are: results must not depend on the plan.
          await store.migrate([{ name: R, indexes: INDEXED }]);
          await c.run(store);
        } finally {
          await store.close();
        }
      });
    }
  });
}
