/**
 * The SQLite adapter: the Store contract on an in-memory database and on files, then what
 * only SQLite has — the file across restarts, the WAL and synchronous settings, commits
 * visible to another connection, separate connections racing for one transition.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { listSql } from '../../src/store/sqlite-sql.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { StoredRecord } from '../../src/store/store.ts';
import { storeContract } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `db-${++files}.sqlite`);

storeContract('sqlite :memory:', () => openSqliteStore({ path: ':memory:' }));
storeContract('sqlite file, durability full', () => openSqliteStore({ path: freshFile() }));
storeContract('sqlite file, durability normal', () => openSqliteStore({ path: freshFile(), durability: 'normal' }));

describe('sqlite store', () => {
  test('a file store keeps records, sequence and idempotency keys across close and reopen', async () => {
    const path = freshFile();
    const first = await openSqliteStore({ path });
    await first.migrate(['things']);
    const a = await first.insert('things', { owner: 'ann', data: { t: 'a' } });
    const b = await first.insert('things', { data: { t: 'b' } });
    await first.remove('things', b.id);
    await first.putIdempotent('s', 'k', { fingerprint: 'f', status: 201, headers: {}, body: '{}', createdAt: 5 });
    await first.close();

    const second = await openSqliteStore({ path });
    // No migrate: the tables of an earlier start are found as they are.
    assert.deepEqual(await second.get('things', a.id), a);
    const c = await second.insert('things', { data: { t: 'c' } });
    assert.ok(Number(c.id) > Number(b.id), 'the sequence continues past the deleted record');
    assert.equal((await second.getIdempotent('s', 'k'))?.fingerprint, 'f');
    await second.migrate(['things']);
    assert.deepEqual(ids(await second.list('things', { limit: 10 })), [a.id, c.id]);
    await second.close();
  });

  test('a file is in WAL mode with synchronous FULL by default, NORMAL on request', async () => {
    const full = await openSqliteStore({ path: freshFile() });
    assert.equal(full.pragma('journal_mode'), 'wal');
    assert.equal(full.pragma('synchronous'), 2); // FULL
    assert.equal(full.pragma('busy_timeout'), 5000);
    await full.close();
    const normal = await openSqliteStore({ path: freshFile(), durability: 'normal', busyTimeoutMs: 250 });
    assert.equal(normal.pragma('journal_mode'), 'wal');
    assert.equal(normal.pragma('synchronous'), 1); // NORMAL
    assert.equal(normal.pragma('busy_timeout'), 250);
    await normal.close();
  });

  test('an in-memory store has no WAL (SQLite keeps its journal in memory) but the synchronous level asked', async () => {
    const memory = await openSqliteStore({ path: ':memory:', durability: 'normal' });
    assert.equal(memory.pragma('journal_mode'), 'memory');
    assert.equal(memory.pragma('synchronous'), 1);
    await memory.close();
  });

  test('a write is committed when its promise resolves: another connection sees it', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    await store.migrate(['things']);
    const other = new DatabaseSync(path, { readOnly: true });
    try {
      const row = (id: string) => other.prepare('SELECT id, version, owner, data FROM res_things WHERE id = ?').get(id);
      const r = await store.insert('things', { owner: 'ann', data: { t: 1 } });
      assert.deepEqual({ ...row(r.id) }, { id: r.id, version: 1, owner: 'ann', data: '{"t":1}' });
      await store.update('things', r.id, { t: 2 });
      assert.equal(row(r.id)?.version, 2);
      await store.putIdempotent('s', 'k', { fingerprint: 'f', status: 200, headers: {}, body: '', createdAt: 1 });
      assert.equal(other.prepare('SELECT count(*) AS n FROM idempotency').get()?.n, 1);
      await store.remove('things', r.id);
      assert.equal(row(r.id), undefined);
    } finally {
      other.close();
      await store.close();
    }
  });

  for (const durability of ['full', 'normal'] as const) {
    test(`every acknowledged insert survives a SIGKILL of the writing process (durability ${durability})`, async () => {
      // A process crash, not a power loss: both levels keep every commit (the WAL is written
      // before COMMIT returns; NORMAL only defers the fsync).
      const path = freshFile();
      const child = spawn(process.execPath, [fileURLToPath(new URL('./sqlite-crash-writer.ts', import.meta.url)), path, durability], { stdio: ['ignore', 'pipe', 'inherit'] });
      let running = true;
      const exited = new Promise((resolve) => child.once('exit', resolve)).then(() => (running = false));
      const acknowledged: string[] = [];
      let buffered = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        acknowledged.push(...lines);
      });
      while (acknowledged.length < 200) {
        assert.ok(running, 'the writer exited before the kill');
        await new Promise((r) => setTimeout(r, 5));
      }
      child.kill('SIGKILL');
      await exited;
      const store = await openSqliteStore({ path });
      const stored = new Set((await store.list('things', { limit: 1_000_000 })).records.map((r) => r.id));
      await store.close();
      const lost = acknowledged.filter((id) => !stored.has(id));
      assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged inserts lost`);
    });
  }

  test('separate connections racing for one transition: exactly one succeeds', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    await store.migrate(['things']);
    await store.insert('things', { id: 'door', data: { status: 'open' } });
    const signal = new SharedArrayBuffer(8);
    const flags = new Int32Array(signal);
    const workers = 6;
    const outcomes = Array.from({ length: workers }, (_, n) => {
      const worker = new Worker(new URL('./sqlite-worker.ts', import.meta.url), { workerData: { path, signal, n } });
      return new Promise<string>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    });
    while (Atomics.load(flags, 1) < workers) await new Promise((r) => setTimeout(r, 5));
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    const results = await Promise.all(outcomes);
    assert.deepEqual(results.filter((x) => x === 'ok').length, 1, results.join(' '));
    assert.deepEqual(results.filter((x) => x === 'state').length, workers - 1, results.join(' '));
    const door = await store.get('things', 'door');
    assert.equal(door?.version, 2);
    assert.equal(door?.data.status, 'closed');
    await store.close();
  });

  test('any resource name is a table: reserved words, dashes, the sqlite_ prefix', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    const names = ['select', 'line-items', 'sqlite_stuff', 'idempotency', 'order_by', 'X'];
    await store.migrate(names);
    for (const name of names) {
      const r = await store.insert(name, { data: { name } });
      // Its members, not its class: a page's records are of a lighter class than a read's.
      const members = (x: StoredRecord) => ({ id: x.id, seq: x.seq, version: x.version, owner: x.owner, data: x.data });
      assert.deepEqual((await store.list(name, { limit: 5 })).records.map(members), [members(r)]);
    }
    await store.close();
  });

  test('resources that differ only in case are refused, in one migrate or across two', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    await assert.rejects(store.migrate(['Books', 'books']), /'books' and 'Books' differ only in case/);
    await store.migrate(['Books']);
    await assert.rejects(store.migrate(['books']), /differ only in case/);
    await store.migrate(['Books']);
    await store.close();
  });

  test('bugs are errors: a bad resource name, an unmigrated resource, a closed store, a state expectation on remove', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    await assert.rejects(store.migrate(['x"; DROP TABLE idempotency; --']), /not a resource name/);
    await assert.rejects(store.get('ghosts', '1'), /'ghosts' is not migrated/);
    await store.migrate(['things']);
    await assert.rejects(store.remove('things', '1', { state: { field: 's', from: ['a'] } }), /no state expectation/);
    await assert.rejects(store.list('things', { limit: -1 }), /limit/);
    await assert.rejects(store.list('things', { limit: 1, sort: [{ field: 'a', direction: 'asc' }], after: { values: [], seq: 1 } }), /keyset position/);
    await store.close();
    await store.close();
    await assert.rejects(store.get('things', '1'), /closed/);
  });

  test('a database written by a newer schema is refused', async () => {
    const path = freshFile();
    const db = new DatabaseSync(path);
    db.exec('PRAGMA user_version = 99');
    db.close();
    await assert.rejects(openSqliteStore({ path }), /newer svcspec/);
  });

  test('a failed write leaves no transaction open behind it', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    await store.migrate(['things']);
    await store.insert('things', { id: 'a', data: {} });
    await assert.rejects(store.insert('things', { id: 'a', data: {} }));
    await assert.rejects(store.insert('things', { data: { big: 10n } as unknown as Record<string, unknown> }));
    // A dangling BEGIN would make this one fail with "cannot start a transaction within a transaction".
    assert.equal((await store.insert('things', { id: 'b', data: {} })).id, 'b');
    await store.close();
  });
});

describe('sqlite list SQL', () => {
  test('values are bound, never in the text', () => {
    const { sql, args } = listSql('res_things', {
      filter: { "o'neil": "x'); DROP TABLE t; --" },
      owner: "ann' OR '1'='1",
      sort: [{ field: 'a', direction: 'asc' }],
      after: { values: ["'"], seq: 3 },
      limit: 2,
    });
    assert.doesNotMatch(sql, /DROP|ann|o'neil/);
    assert.ok(args.includes("x'); DROP TABLE t; --"));
    assert.ok(args.includes('$."o\'neil"'));
  });

  test('a descending key positioned on a NULL has nothing after it but its ties', () => {
    const { sql } = listSql('res_things', { sort: [{ field: 'a', direction: 'desc' }], after: { values: [null], seq: 3 }, limit: 2 });
    assert.match(sql, /WHERE \(\(json_extract\(data, \?\) IS \? AND seq > \?\)\)/);
  });
  test('a page in insertion order is a range of the sequence, with OFFSET only for offset pages', () => {
    const keyset = listSql('res_things', { after: { values: [], seq: 40 }, limit: 20 });
    assert.equal(keyset.sql, 'SELECT seq, id, version, owner, data FROM "res_things" WHERE seq > ? ORDER BY seq ASC LIMIT ?');
    assert.deepEqual(keyset.args, [40, 21]);
    const first = listSql('res_things', { limit: 20, offset: 0 });
    assert.doesNotMatch(first.sql, /OFFSET/);
    const later = listSql('res_things', { limit: 20, offset: 40 });
    assert.match(later.sql, /LIMIT \? OFFSET \?$/);
    assert.deepEqual(later.args, [21, 40]);
    assert.throws(() => listSql('res_things', { after: { values: ['x'], seq: 1 }, limit: 2 }), /bug: a keyset position of 1 values for no sort keys/);
  });
});

function ids(result: { records: readonly { id: string }[] }): string[] {
  return result.records.map((r) => r.id);
}

describe('the contract runner', () => {
  test('a skip naming no case is refused, so a renamed case leaves no stale skip', () => {
    assert.throws(() => storeContract('stale', () => openSqliteStore({ path: ':memory:' }), { skip: { 'no such case': 'a reason' } }), /skip names no case: 'no such case'/);
  });
});
