/**
 * Group commit in the SQLite store (src/store/sqlite-commit.ts): the inserts of one turn of
 * the event loop share one transaction, and each is acknowledged only once that
 * transaction is committed: another connection on the same file sees every record whose
 * promise resolved, at the moment it resolves. A failing insert fails alone. The crash
 * test in sqlite.test.ts (SIGKILL under concurrent inserts) and test/serve/durability.test.ts
 * check what survives.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { GroupCommit } from '../../src/store/sqlite-commit.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { DuplicateIdError } from '../../src/store/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `db-${++files}.sqlite`);

describe('group commit', () => {
  for (const durability of ['full', 'normal'] as const) {
    test(`concurrent inserts are each acknowledged only after their commit (durability ${durability})`, async () => {
      const path = freshFile();
      const store = await openSqliteStore({ path, durability });
      await store.migrate(['things']);
      const other = new DatabaseSync(path);
      const count = () => Number(other.prepare('SELECT count(*) AS n FROM res_things').get()?.n);
      const visible = (id: string) => other.prepare('SELECT 1 AS x FROM res_things WHERE id = ?').get(id) !== undefined;
      try {
        const seen: boolean[] = [];
        // Given ids and sequence ids, in one turn: one batch.
        const inserts = Array.from({ length: 40 }, (_, i) =>
          store.insert('things', i % 2 ? { id: `t${i}`, data: { i } } : { data: { i } }).then((r) => {
            seen.push(visible(r.id));
            return r;
          }),
        );
        assert.equal(count(), 0, 'nothing is written before the turn ends');
        const records = await Promise.all(inserts);
        assert.equal(seen.length, 40);
        assert.ok(seen.every(Boolean), 'every acknowledged record is committed: another connection sees it');
        assert.equal(new Set(records.map((r) => r.id)).size, 40);
        const seqs = records.filter((_, i) => i % 2 === 0).map((r) => Number(r.id));
        assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'sequence ids in the order of the calls');
        assert.equal(count(), 40);
      } finally {
        other.close();
        await store.close();
      }
    });
  }

  test('a failing insert fails alone; the others of its batch commit', async () => {
    const store = await openSqliteStore({ path: freshFile() });
    await store.migrate(['things']);
    const results = await Promise.allSettled([
      store.insert('things', { id: 'a', data: { n: 1 } }),
      store.insert('things', { id: 'a', data: { n: 2 } }),
      store.insert('things', { id: 'b', data: { n: 3 } }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok((results[1] as PromiseRejectedResult).reason instanceof DuplicateIdError);
    assert.deepEqual((await store.get('things', 'a'))?.data, { n: 1 });
    assert.deepEqual((await store.get('things', 'b'))?.data, { n: 3 });
    await store.close();
  });

  test('closing the store commits what is queued', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    await store.migrate(['things']);
    const pending = store.insert('things', { id: 'late', data: {} });
    await store.close();
    assert.equal((await pending).id, 'late');
    const again = await openSqliteStore({ path });
    assert.ok(await again.get('things', 'late'));
    await again.close();
  });

  test('an error that ends the transaction fails what it held, and the rest run in a new one', async () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (x INTEGER)');
    const group = new GroupCommit(db);
    const insert = (x: number) => () => db.prepare('INSERT INTO t (x) VALUES (?)').run(x);
    const results = await Promise.allSettled([
      group.run(insert(1)),
      group.run(() => {
        db.exec('ROLLBACK'); // as SQLite does itself on an I/O error or a full disk
        throw new Error('disk I/O error');
      }),
      group.run(insert(3)),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'fulfilled']);
    assert.deepEqual(db.prepare('SELECT x FROM t').all().map((r) => r.x), [3]);
    db.close();
  });

  test('a failed COMMIT fails the whole batch', async () => {
    const db = new DatabaseSync(':memory:');
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('CREATE TABLE p (id INTEGER PRIMARY KEY)');
    db.exec('CREATE TABLE c (p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)');
    const group = new GroupCommit(db);
    const results = await Promise.allSettled([
      group.run(() => db.prepare('INSERT INTO p (id) VALUES (1)').run()),
      // A deferred foreign key is checked at COMMIT: the commit fails, and so does everything in it.
      group.run(() => db.prepare('INSERT INTO c (p) VALUES (2)').run()),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal(db.isTransaction, false);
    assert.deepEqual(db.prepare('SELECT count(*) AS n FROM p').get()?.n, 0);
    db.close();
  });
});
