/**
 * The SQLite adapter's index per set of fields counted together (TableLayout `counts`): a
 * guard's count ("the member's loans in an open state") is a search of that index alone,
 * never a read of each record one field matches; its results are those of the filters.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../../src/load/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { countSeek, countSql } from '../../src/store/sqlite-list.ts';
import type { DomainDecision, DomainStep } from '../../src/store/domain.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { CountQuery } from '../../src/store/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-sqlite-count-index-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `db-${++files}.sqlite`);

const OPEN: CountQuery = { filters: [{ field: 'member', op: 'eq', value: 5 }, { field: 'status', op: 'in', value: ['requested', 'active'] }] };

function plan(path: string, table: string, query: CountQuery, live?: ReadonlySet<string>, seek?: string): string {
  const db = new DatabaseSync(path);
  try {
    const { sql, args } = countSql(table, query, live, seek);
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ');
  } finally {
    db.close();
  }
}

function indexes(path: string, table: string): string[] {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND name LIKE 'cx\\_%' ESCAPE '\\'").all(table) as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

describe('sqlite count indexes', () => {
  test("a count over fields counted together searches their index alone, and counts type-exactly as the filters do", async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    try {
      await store.migrate([{ name: 'loans', indexes: ['member', 'status'], counts: [['member', 'status']] }]);
      for (const data of [
        { member: 5, status: 'requested' },
        { member: 5, status: 'active' },
        { member: 5, status: 'returned' },
        { member: '5', status: 'active' },
        { member: 6, status: 'active' },
        { member: 5, status: ['active'] },
        { member: 5 },
      ]) await store.insert('loans', { data });
      // One search, by the member; the member's JSON type and the states are read off the entries.
      assert.equal(plan(path, 'res_loans', OPEN, undefined, 'member'), 'SEARCH res_loans USING COVERING INDEX cx_loans.member,status (<expr>=?)');
      assert.equal(await store.count('loans', OPEN), 2);
      // A guard's count, read in the write's transaction (searched so): type-exact as the filters.
      const counted: number[] = [];
      const counting = (query: CountQuery): DomainStep => ({
        decide: (_c, data, read): DomainDecision => {
          if (!read.counts.has('n')) return { more: { counts: [{ key: 'n', resource: 'loans', query }] } };
          counted.push(read.counts.get('n') as number);
          return { data };
        },
      });
      await store.insert('loans', { data: { member: 9 } }, { domain: counting(OPEN) });
      await store.insert('loans', { data: { member: 9 } }, { domain: counting({ filters: [{ field: 'member', op: 'eq', value: '5' }, { field: 'status', op: 'eq', value: 'active' }] }) });
      await store.insert('loans', { data: { member: 9 } }, { domain: counting({ filters: [{ field: 'status', op: 'in', value: ['active', 'returned'] }, { field: 'member', op: 'eq', value: 5 }] }) });
      await store.insert('loans', { data: { member: 9 } }, { domain: counting({ filters: [{ field: 'member', op: 'eq', value: true }, { field: 'status', op: 'eq', value: 'active' }] }) });
      assert.deepEqual(counted, [2, 1, 2, 0]);
    } finally {
      await store.close();
    }
  });

  test('a count is searched by the first field of an indexed set it filters by exactly, compared with one value', () => {
    const sets = [['member', 'status']];
    assert.equal(countSeek(sets, OPEN), 'member');
    assert.equal(countSeek(sets, { filters: [...(OPEN.filters ?? [])].reverse() }), 'member');
    assert.equal(countSeek(sets, { filters: [{ field: 'member', op: 'in', value: [5, 6] }, { field: 'status', op: 'eq', value: 'active' }] }), undefined);
    assert.equal(countSeek(sets, { filters: [{ field: 'member', op: 'eq', value: null }, { field: 'status', op: 'eq', value: 'active' }] }), undefined);
    assert.equal(countSeek(sets, { filters: [{ field: 'member', op: 'eq', value: 5 }] }), undefined);
    assert.equal(countSeek(undefined, OPEN), undefined);
  });

  test('an effect field kept apart is indexed as the count reads it (from live, else data); a set no longer counted is dropped', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    try {
      await store.migrate([{ name: 'loans', indexes: ['member'], effectFields: ['status'], counts: [['member', 'status']] }]);
      assert.equal(plan(path, 'res_loans', OPEN, new Set(['status']), 'member'), 'SEARCH res_loans USING COVERING INDEX cx_loans.member,status (<expr>=?)');
      await store.migrate([{ name: 'loans', indexes: ['member'] }]);
      assert.deepEqual(indexes(path, 'res_loans'), []);
    } finally {
      await store.close();
    }
  });

  test("library.yaml's loan guards count a member's loans by state: the service makes their index", async () => {
    const loaded = await loadSpec(fileURLToPath(new URL('../../examples/library.yaml', import.meta.url)));
    assert.ok(loaded.value);
    const path = freshFile();
    const store = await openSqliteStore({ path });
    const app = await createApp({ spec: loaded.value, store });
    try {
      await app.ready();
      assert.deepEqual(indexes(path, 'res_loan'), ['cx_loan.member,status']);
      assert.equal(plan(path, 'res_loan', { filters: [{ field: 'member', op: 'eq', value: 1 }, { field: 'status', op: 'in', value: ['requested', 'active', 'overdue'] }] }, undefined, 'member'), 'SEARCH res_loan USING COVERING INDEX cx_loan.member,status (<expr>=?)');
    } finally {
      await app.close();
      await store.close();
    }
  });
});
