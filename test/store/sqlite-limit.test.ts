/**
 * byLimit (src/store/sqlite-sql.ts): SQLite compiles a statement with a bound LIMIT again at
 * every run; a limit written into the text is compiled once. The authorizer is called at each
 * compile, so it counts them.
 */
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { byLimit } from '../../src/store/sqlite-sql.ts';

function counted(): { db: DatabaseSync; compiles: () => number } {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (seq INTEGER PRIMARY KEY, v TEXT)');
  for (let i = 1; i <= 20; i++) db.prepare('INSERT INTO t (v) VALUES (?)').run(`v${i}`);
  let reads = 0;
  db.setAuthorizer((action) => {
    if (action === 20) reads++; // SQLITE_READ: once per column a compile reads
    return 0;
  });
  return { db, compiles: () => reads };
}

test('a bound LIMIT is compiled again at every run (why byLimit exists)', () => {
  const { db, compiles } = counted();
  const bound = db.prepare('SELECT v FROM t WHERE seq > ? ORDER BY seq LIMIT ?');
  const before = compiles();
  for (let i = 0; i < 5; i++) bound.all(i, 3);
  assert.ok(compiles() - before >= 5, 'if SQLite stops recompiling, byLimit can go');
});

test('byLimit prepares one statement per limit, compiled once, and answers as the bound LIMIT would', () => {
  const { db, compiles } = counted();
  const after = byLimit(db, (n) => `SELECT v FROM t WHERE seq > ? ORDER BY seq LIMIT ${n}`);
  assert.deepEqual(after(3).all(5).map((r) => r.v), ['v6', 'v7', 'v8']);
  const before = compiles();
  for (let i = 0; i < 5; i++) after(3).all(i);
  assert.equal(compiles(), before, 'no compile after the first');
  assert.equal(after(3), after(3));
  assert.deepEqual(after(0).all(0), []);
  assert.throws(() => after(-1), RangeError);
  assert.throws(() => after(1.5), RangeError);
});
