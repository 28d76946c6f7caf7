/**
 * The types of Store.list, checked by the compiler (npm test runs tsc first): a lean list's
 * records carry no version or owner, and a query that is lean only maybe fits no overload that
 * promises whole records. The `@ts-expect-error` lines fail the typecheck if they compile.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';

test('a lean list is typed as one, and a query that is lean only maybe is refused', async () => {
  const store: Store = await openSqliteStore({ path: ':memory:' });
  try {
    await store.migrate(['x']);
    await store.insert('x', { data: {} });
    const maybe = { limit: 5, lean: Math.random() < 2 };
    // @ts-expect-error `lean: boolean` fits no overload whose records are whole
    const whole: { records: readonly { version: number }[] } = await store.list('x', maybe);
    assert.equal(whole.records[0]?.version, undefined, 'at run time the records are lean: why the types refuse it');
    const lean = await store.list('x', { limit: 5, lean: true });
    // @ts-expect-error a lean list's records have no version
    assert.equal(lean.records[0]?.version, undefined);
    const full = await store.list('x', { limit: 5 });
    assert.equal(full.records[0]?.version, 1);
  } finally {
    await store.close();
  }
});
