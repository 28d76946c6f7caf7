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
import { listSql, prefixEnd } from '../../src/store/sqlite-list.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { ListQuery, StoredRecord } from '../../src/store/store.ts';
import { storeContract } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `db-${++files}.sqlite`);

storeContract('sqlite :memory:', () => openSqliteStore({ path: ':memory:' }));
storeContract('sqlite file, durability full', () => openSqliteStore({ path: freshFile() }));
storeContract('sqlite file, durability normal', () => openSqliteStore({ path: freshFile(), durability: 'normal' }));

describe('sqlite store', () => {
  test('a list on a closed store, or of a resource never migrated, is a rejected promise, never a throw', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    await store.migrate(['r']);
    let promise: Promise<unknown> | undefined;
    assert.doesNotThrow(() => (promise = store.list('unknown', { limit: 1 })));
    await assert.rejects(promise!, /not migrated/);
    await store.close();
    assert.doesNotThrow(() => (promise = store.list('r', { limit: 1 })));
    await assert.rejects(promise!, /closed/);
  });

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
    // A savepoint's undo journal stays in memory: no temporary file per write with events or rules.
    assert.equal(full.pragma('temp_store'), 2); // MEMORY
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

  test('migrate indexes the fields lists use, and the list SQL uses those indexes: no scan, no sort of the table', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    await store.migrate([{ name: 'things', indexes: ['price', 'status', 'a.b'] }, { name: 'mine', owned: true, indexes: ['price'] }]);
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const indexes = (table: string) => (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND name LIKE 'fx\\_%' ESCAPE '\\' ORDER BY name").all(table) as { name: string }[]).map((r) => r.name);
      // 'a.b' is queried by a bound path, which no index could serve: none is made for it.
      assert.deepEqual(indexes('res_things'), ['fx_things.price', 'fx_things.status']);
      assert.deepEqual(indexes('res_mine'), ['fx_mine.price.owned']);
      const plan = (table: string, query: Parameters<typeof listSql>[1]) => {
        const { sql, args } = listSql(table, query);
        return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ');
      };
      const price = (direction: 'asc' | 'desc') => [{ field: 'price', direction }] as const;
      for (const [what, query] of [
        ['an exact filter', { filter: { status: 'open' }, limit: 20 }],
        ['a sort', { sort: price('asc'), limit: 20 }],
        ['a deep sorted page', { sort: price('asc'), after: { values: [500], seq: 77 }, limit: 20 }],
        ['a range filter in the sort order', { filters: [{ field: 'price', op: 'gt', value: 5 }], sort: price('asc'), limit: 20 }],
        ['a prefix filter in the sort order', { filters: [{ field: 'status', op: 'prefix', value: 'op' }], sort: [{ field: 'status', direction: 'asc' }], limit: 20 }],
      ] as const) {
        const p = plan('res_things', query);
        assert.match(p, /USING INDEX fx_things/, `${what}: ${p}`);
        assert.doesNotMatch(p, /TEMP B-TREE/, `${what}: ${p}`);
      }
      // Descending: the index read backwards; only ties on the key are sorted (by seq).
      assert.match(plan('res_things', { sort: price('desc'), after: { values: [500], seq: 77 }, limit: 20 }), /SEARCH res_things USING INDEX fx_things\.price/);
      // Every keyset position, both of its ranges: an index range in order, never a sort of all matches.
      for (const direction of ['asc', 'desc'] as const) {
        for (const value of [500, null]) {
          const { sql, args, rest } = listSql('res_things', { sort: price(direction), after: { values: [value], seq: 77 }, limit: 20 });
          for (const statement of [{ sql, args }, ...(rest ? [rest] : [])]) {
            const p = (db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.args) as { detail: string }[]).map((r) => r.detail).join('; ');
            // (Ascending after a NULL, the values follow the NULLs: the index read past them, in order.)
            assert.match(p, /^(SEARCH|SCAN) res_things USING INDEX fx_things\.price/, `${direction} after ${value}: ${p}`);
            assert.doesNotMatch(p, /TEMP B-TREE FOR ORDER BY/, `${direction} after ${value}: ${p}`);
          }
        }
      }
      const owned = plan('res_mine', { owner: 'ann', sort: price('asc'), after: { values: [5], seq: 7 }, limit: 20 });
      assert.match(owned, /SEARCH res_mine USING INDEX fx_mine\.price\.owned \(owner=\? AND/);
      assert.doesNotMatch(owned, /TEMP B-TREE/);
    } finally {
      db.close();
    }
    // A field no longer listed loses its index; the records stay.
    await store.insert('things', { data: { price: 1 } });
    await store.migrate([{ name: 'things', indexes: ['price'] }]);
    const after = new DatabaseSync(path, { readOnly: true });
    assert.deepEqual((after.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'fx\\_%' ESCAPE '\\' AND tbl_name = 'res_things'").all() as { name: string }[]).map((r) => r.name), ['fx_things.price']);
    after.close();
    assert.equal((await store.list('things', { limit: 5, filters: [{ field: 'price', op: 'lte', value: 1 }] })).records.length, 1);
    await store.close();
  });

  // Each reads every row to find none: a substring no record holds (no index serves
  // `contains`), a search for it, and two filters whose index ranges each hold half the table
  // but share no row (an index narrows by one field; the other refuses its range row by row).
  const slowPages: readonly [string, ListQuery][] = [
    ['a contains filter', { filters: [{ field: 's', op: 'contains', value: 'no such text' }], limit: 20 }],
    ['a full-text search', { search: { fields: ['s'], text: 'no such text' }, limit: 20 }],
    ['filters on two indexed fields', { filter: { a: 0, b: 1 }, limit: 20 }],
  ];
  for (const [name, query] of slowPages) test(`a page that reads much of the table runs off the main thread (${name}): reads by id go on while it runs`, async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path, durability: 'normal' });
    await store.migrate([{ name: 'things', indexes: ['n', 's', 'a', 'b'] }]);
    const db = new DatabaseSync(path);
    // Many records fast: one statement, in SQLite.
    db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000)
      INSERT INTO res_things (seq, id, version, data) SELECT i, 'r' || i, 1, json_object('n', i % 1000, 's', 'word ' || i, 'a', i % 2, 'b', i % 2) FROM c`);
    db.close();
    try {
      // Were the page read on the main thread, the loop below would not get a turn before it ended.
      let done = false;
      const slow = store.list('things', query).finally(() => (done = true));
      let reads = 0;
      while (!done) {
        assert.equal((await store.get('things', `r${1 + (reads % 1000)}`))?.id, `r${1 + (reads % 1000)}`);
        reads++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.deepEqual((await slow).records, []);
      assert.ok(reads >= 10, `only ${reads} reads while the slow page ran`);
      // The same store pages the cheap way too, and the thread reads what the main connection wrote.
      await store.insert('things', { id: 'last', data: { n: 5, s: 'find me here' } });
      assert.deepEqual((await store.list('things', { filters: [{ field: 's', op: 'contains', value: 'find me' }], limit: 20 })).records.map((r) => r.id), ['last']);
      assert.equal((await store.list('things', { filter: { n: 5 }, limit: 3 })).records.length, 3);
    } finally {
      await store.close();
    }
  });

  test('expired Idempotency-Key responses and tokens are forgotten a batch at a time: reads by id go on while a sweep runs', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path, durability: 'normal' });
    await store.migrate(['things']);
    await store.insert('things', { id: 'kept', data: {} });
    await store.putIdempotent('s', 'fresh', { fingerprint: 'f', status: 201, headers: {}, body: '{}', createdAt: 2_000 });
    await store.credentials.put({ id: 'live', scheme: 'oauth', kind: 'token', secretHash: 'h', scopes: [], principal: 'p', createdAt: 0, expiresAt: 2_000 });
    const db = new DatabaseSync(path);
    db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000)
      INSERT INTO idempotency (scope, key, fingerprint, status, headers, body, created_at) SELECT 's', 'k' || i, 'f', 201, '{}', '{}', i % 1000 FROM c`);
    db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 30000)
      INSERT INTO credentials (id, scheme, kind, secret_hash, scopes, principal, created_at, expires_at) SELECT 't' || i, 'oauth', 'token', 'h', '[]', 'p', 0, i % 1000 FROM c`);
    db.close();
    try {
      for (const [sweep, expected] of [[() => store.expireIdempotent(1_000), 100_000], [() => store.credentials.expire(1_000), 30_000]] as const) {
        // One DELETE of every expired row would hold the main thread until it ended: the loop below would get no turn.
        let done = false;
        const swept = sweep().finally(() => (done = true));
        let reads = 0;
        while (!done) {
          assert.equal((await store.get('things', 'kept'))?.id, 'kept');
          reads++;
          await new Promise((resolve) => setImmediate(resolve));
        }
        assert.equal(await swept, expected);
        assert.ok(reads >= 10, `only ${reads} reads while the sweep ran`);
      }
      assert.equal((await store.getIdempotent('s', 'fresh'))?.status, 201, 'a response not expired is kept');
      assert.equal((await store.getIdempotent('s', 'k1')), undefined);
      assert.equal((await store.credentials.get('live'))?.id, 'live', 'a token not expired is kept');
    } finally {
      await store.close();
    }
  });

  test('a related write of effect fields only writes `live`, not `data`: no index on data is written again, and lists on an effect field stay index-served', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    await store.migrate([{ name: 'loans' }, { name: 'books', indexes: ['title', 'pages', 'available'], effectFields: ['available', 'updatedAt'] }]);
    const book = await store.insert('books', { data: { title: 'T', pages: 10, available: 2 } });
    const loan = await store.insert('loans', { data: { status: 'requested' } });
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const row = () => db.prepare('SELECT version, data, live FROM res_books WHERE id = ?').get(book.id) as { version: number; data: string; live: string | null };
      const before = row();
      const approve = { decide: (_c: StoredRecord | undefined, data: Record<string, unknown> | undefined, read: { records: ReadonlyMap<string, StoredRecord | undefined> }) => {
        if (!read.records.has('book')) return { more: { records: [{ key: 'book', resource: 'books', id: book.id }] } };
        const b = read.records.get('book') as StoredRecord;
        return { data, related: [{ kind: 'update' as const, resource: 'books', id: b.id, version: b.version, data: { ...b.data, available: (b.data.available as number) - 1, updatedAt: 'now' }, changes: ['available', 'updatedAt'] }] };
      } };
      await store.update('loans', loan.id, { status: 'active' }, {}, { domain: approve });
      const afterEffect = row();
      assert.equal(afterEffect.data, before.data, 'data (and every expression index on it) is not written');
      assert.equal(afterEffect.live, '{"available":1,"updatedAt":"now"}');
      assert.equal(afterEffect.version, 2);
      // The record's text is the one a whole write would have stored: members in place, a new one last.
      assert.equal((await store.get('books', book.id))?.json, '{"title":"T","pages":10,"available":1,"updatedAt":"now"}');
      assert.equal((await store.list('books', { limit: 5 })).records[0].json, '{"title":"T","pages":10,"available":1,"updatedAt":"now"}');
      // The index of the effect field reads `live`, and the list SQL spells the same expression.
      const live = new Set(['available', 'updatedAt']);
      const plan = (query: Parameters<typeof listSql>[1]) => {
        const { sql, args } = listSql('res_books', query, live);
        return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ');
      };
      assert.match(plan({ filter: { available: 1 }, limit: 20 }), /USING INDEX fx_books\.available/);
      assert.match(plan({ sort: [{ field: 'available', direction: 'desc' }], limit: 20 }), /SCAN res_books USING INDEX fx_books\.available/);
      assert.doesNotMatch(plan({ sort: [{ field: 'available', direction: 'asc' }], limit: 20 }), /TEMP B-TREE/);
      assert.deepEqual((await store.list('books', { filter: { available: 1 }, limit: 5 })).records.map((r) => r.id), [book.id]);
      // A whole write puts them back in data.
      await store.update('books', book.id, { title: 'T', pages: 11, available: 5 });
      assert.deepEqual({ ...row(), version: 0 }, { version: 0, data: '{"title":"T","pages":11,"available":5}', live: null });
    } finally {
      db.close();
      await store.close();
    }
  });

  test('a second start with the same layouts changes no index (an effect field\'s index included): none is dropped and made again', async () => {
    const path = freshFile();
    const layouts = [{ name: 'books', indexes: ['title', 'available'], effectFields: ['available'] }, { name: 'mine', owned: true, indexes: ['price'] }];
    const version = () => {
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        return (db.prepare('PRAGMA schema_version').get() as { schema_version: number }).schema_version;
      } finally {
        db.close();
      }
    };
    for (let start = 0; start < 2; start++) {
      const store = await openSqliteStore({ path });
      await store.migrate(layouts);
      await store.close();
    }
    const before = version();
    const store = await openSqliteStore({ path });
    await store.migrate(layouts);
    await store.close();
    assert.equal(version(), before);
  });

  test('a database of schema 4 gains the live column, and its records read as before', async () => {
    const path = freshFile();
    const old = new DatabaseSync(path);
    old.exec('CREATE TABLE res_books (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, version INTEGER NOT NULL, owner TEXT, data TEXT NOT NULL)');
    old.exec(`INSERT INTO res_books (id, version, data) VALUES ('b1', 3, '{"available":4}')`);
    old.exec('PRAGMA user_version = 4');
    old.close();
    const store = await openSqliteStore({ path });
    try {
      await store.migrate([{ name: 'books', indexes: ['available'], effectFields: ['available'] }]);
      assert.deepEqual((await store.get('books', 'b1'))?.data, { available: 4 });
      assert.deepEqual((await store.list('books', { filter: { available: 4 }, limit: 5 })).records.map((r) => r.id), ['b1']);
      assert.equal(store.pragma('journal_mode'), 'wal');
    } finally {
      await store.close();
    }
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
    const { sql, args, rest } = listSql('res_things', { sort: [{ field: 'a', direction: 'desc' }], after: { values: [null], seq: 3 }, limit: 2 });
    assert.match(sql, /WHERE json_extract\(data, '\$\."a"'\) IS NULL AND seq > \? ORDER BY/);
    assert.deepEqual(args, [3]);
    assert.match(sql, / LIMIT 3$/);
    assert.equal(rest, undefined);
  });

  test("a field name of the format's shape is written into the SQL as its JSON path, so its index serves it; any other is bound", () => {
    const plain = listSql('res_things', { filters: [{ field: 'price-eur', op: 'gte', value: 5 }], sort: [{ field: 'price-eur', direction: 'asc' }], limit: 2 });
    assert.match(plain.sql, /json_extract\(data, '\$\."price-eur"'\) >= \?/);
    assert.match(plain.sql, /ORDER BY json_extract\(data, '\$\."price-eur"'\) ASC NULLS FIRST, seq ASC/);
    assert.deepEqual(plain.args, [5]);
    const odd = listSql('res_things', { filters: [{ field: 'a.b', op: 'eq', value: 'x' }], limit: 2 });
    assert.match(odd.sql, /json_extract\(data, \?\) = \?/);
    assert.deepEqual(odd.args, ['$."a.b"', 'x', '$."a.b"']);
  });

  test('a keyset page on a sort key starts at its position: bounded on the first key, with a second range for the NULLs beyond the bound', () => {
    const asc = listSql('res_things', { sort: [{ field: 'n', direction: 'asc' }], after: { values: [5], seq: 9 }, limit: 2 });
    assert.match(asc.sql, /WHERE json_extract\(data, '\$\."n"'\) >= \? AND/);
    assert.equal(asc.rest, undefined);
    const desc = listSql('res_things', { sort: [{ field: 'n', direction: 'desc' }], after: { values: [5], seq: 9 }, limit: 2 });
    assert.match(desc.sql, /WHERE json_extract\(data, '\$\."n"'\) <= \? AND/);
    assert.match(desc.rest!.sql, /WHERE json_extract\(data, '\$\."n"'\) IS NULL ORDER BY/);
    // The second range has the page's LIMIT too, written, not bound: its reader keeps what the first left.
    assert.match(desc.sql, / LIMIT 3$/);
    assert.match(desc.rest!.sql, / LIMIT 3$/);
    assert.deepEqual(desc.rest!.args, []);
    const inNulls = listSql('res_things', { sort: [{ field: 'n', direction: 'asc' }], after: { values: [null], seq: 9 }, limit: 2 });
    assert.match(inNulls.sql, /WHERE json_extract\(data, '\$\."n"'\) IS NULL AND seq > \?/);
    assert.match(inNulls.rest!.sql, /WHERE json_extract\(data, '\$\."n"'\) IS NOT NULL ORDER BY/);
  });

  test('the end of a prefix range is the prefix with its last code point incremented, past the surrogates and the last code point', () => {
    assert.equal(prefixEnd('ab'), 'ac');
    assert.equal(prefixEnd('a\uD7FF'), 'a\uE000');
    assert.equal(prefixEnd('a\u{10FFFF}'), 'b');
    assert.equal(prefixEnd('\u{10FFFF}'), undefined);
  });
  test('a page in insertion order is a range of the sequence, with OFFSET only for offset pages; its LIMIT is written, not bound', () => {
    const keyset = listSql('res_things', { after: { values: [], seq: 40 }, limit: 20 });
    // A table that keeps no field apart reads no `live` (always NULL there); one that does reads it.
    // A bound LIMIT would re-prepare the statement whenever its value changes (see listSql).
    assert.equal(keyset.sql, 'SELECT seq, id, version, owner, data FROM "res_things" WHERE seq > ? ORDER BY seq ASC LIMIT 21');
    assert.deepEqual(keyset.args, [40]);
    assert.match(listSql('res_things', { limit: 20 }, new Set(['available'])).sql, /^SELECT seq, id, version, owner, data, live FROM/);
    const first = listSql('res_things', { limit: 20, offset: 0 });
    assert.doesNotMatch(first.sql, /OFFSET/);
    const later = listSql('res_things', { limit: 20, offset: 40 });
    assert.match(later.sql, /LIMIT 21 OFFSET \?$/);
    assert.deepEqual(later.args, [40]);
    assert.throws(() => listSql('res_things', { after: { values: ['x'], seq: 1 }, limit: 2 }), /bug: a keyset position of 1 values for no sort keys/);
  });
});

describe('sqlite webhook deliveries', () => {
  test('a delivery whose event row is gone (the log trimmed by hand) is never claimed, nor due: the worker does not wake for it forever', async () => {
    const path = freshFile();
    const store = await openSqliteStore({ path });
    await store.migrate(['things']);
    await store.insert('things', { data: { n: 1 } }, { events: (r) => [{ name: 'thing.created', resource: 'things', recordId: r.id, payloads: { '': { id: r.id } }, createdAt: 1 }] });
    await store.events.addSubscription({ id: 's1', url: 'https://example.test/s1', events: [], status: 'enabled', secrets: [{ secret: 'whsec_AAAA' }], createdAt: 1 });
    assert.equal(await store.events.fanOut(0, 1, [{ id: 'd1', subscriptionId: 's1', eventSeq: 1, createdAt: 2 }]), true);
    assert.equal(await store.events.nextDue(), 2);
    const other = new DatabaseSync(path);
    other.exec('DELETE FROM events');
    other.close();
    assert.deepEqual(await store.events.claimDue(5, 10, 60), []);
    assert.equal(await store.events.nextDue(), undefined, 'nothing is due that no claim takes');
    await store.close();
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
