/**
 * The SQLite store's mark of a table (src/store/sqlite-plain.ts): a lean page is vouched for
 * (ListResult `plain`) exactly while every record of its table has an id JSON holds as it is
 * and data without the layout's id member, whichever write put it there; and never otherwise,
 * since a presenter then puts ids and stored texts together without looking at either.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite.ts';
import type { DomainDecision, DomainStep } from '../../src/store/domain.ts';
import type { Store, TableLayout } from '../../src/store/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-sqlite-plain-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `db-${++files}.sqlite`);

const R = 'item';
const LAYOUT: TableLayout = { name: R, idField: 'id', indexes: ['n'] };

async function opened(path: string, layout: TableLayout = LAYOUT): Promise<SqliteStore> {
  const store = await openSqliteStore({ path });
  await store.migrate([layout]);
  return store;
}

/** What a lean page of every record says; a full list never vouches. */
async function vouched(store: Store, query: { filter?: Record<string, string | number> } = {}): Promise<boolean | undefined> {
  const full = await store.list(R, { limit: 100, ...query });
  assert.equal(full.plain, undefined, 'a full list does not vouch');
  return (await store.list(R, { limit: 100, ...query, lean: true })).plain;
}

/** A raw connection on the file: a writer that is not the store. */
function raw(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA busy_timeout = 5000');
  return db;
}

/** A file with one plain record, closed, edited by hand with `sql`, opened again with the same layout: what its pages say. */
async function vouchedAfterHandEdit(...sql: string[]): Promise<boolean | undefined> {
  const path = freshFile();
  let store = await opened(path);
  await store.insert(R, { data: { n: 1 } });
  await store.close();
  const db = raw(path);
  for (const statement of sql) db.exec(statement);
  db.close();
  store = await opened(path);
  try {
    return await vouched(store);
  } finally {
    await store.close();
  }
}

describe('a table whose layout names its id field', () => {
  test('is vouched for while every record is plain: ids with nothing to escape, data without the id member at its top', async () => {
    const store = await opened(freshFile());
    try {
      assert.equal(await vouched(store), true, 'an empty table');
      await store.insert(R, { data: { n: 1 } });
      await store.insert(R, { id: 'slug-1.2_x~', data: { n: 2, nested: { id: 'deeper' }, list: [{ id: 1 }], text: '"id": in a string', identity: 'id' } });
      await store.insertMany(R, [{ data: { n: 3 } }, { id: 'é-🙂', data: { n: 4 } }]);
      const [first] = (await store.list(R, { limit: 1 })).records;
      await store.update(R, first!.id, { n: 5, other: { id: 2 } });
      assert.equal(await vouched(store), true);
      assert.equal(await vouched(store, { filter: { n: 5 } }), true, 'a filtered page');
    } finally {
      await store.close();
    }
  });

  const writes: [string, (store: SqliteStore) => Promise<unknown>][] = [
    ['an id with a quote', (s) => s.insert(R, { id: 'a"b', data: {} })],
    ['an id with a backslash', (s) => s.insert(R, { id: 'a\\b', data: {} })],
    ['an id with a control character', (s) => s.insert(R, { id: 'a\u0001b', data: {} })],
    ['an id with a newline, in a batch', (s) => s.insertMany(R, [{ data: {} }, { id: 'a\nb', data: {} }])],
    ['a create whose data holds the id member', (s) => s.insert(R, { data: { id: 'stale' } })],
    ['a create whose data holds the id member as null', (s) => s.insert(R, { data: { id: null } })],
    ['an update that writes the id member', async (s) => s.update(R, (await s.insert(R, { data: {} })).id, { id: 1 })],
    ['a batch change that writes it', async (s) => s.changeMany(R, [{ kind: 'update', id: (await s.insert(R, { data: {} })).id, data: { id: 'x' } }])],
  ];
  for (const [what, write] of writes) {
    test(`is not vouched for once a write adds a record that is not plain: ${what}; the mark is kept across a restart`, async () => {
      const path = freshFile();
      let store = await opened(path);
      await store.insert(R, { data: { n: 1 } });
      assert.equal(await vouched(store), true);
      await write(store);
      assert.equal(await vouched(store), false);
      await store.close();
      store = await opened(path);
      try {
        assert.equal(await vouched(store), false, 'after a restart with the same layout');
      } finally {
        await store.close();
      }
    });
  }

  // A step that writes the id's member into another record (a related write), the write's own data kept.
  const writesIdInto = (relatedId: string): DomainStep => ({
    decide: (_current, data, read): DomainDecision => {
      if (!read.records.has('r')) return { more: { records: [{ key: 'r', resource: R, id: relatedId }] } };
      const r = read.records.get('r')!;
      return { ...(data !== undefined ? { data } : {}), related: [{ kind: 'update', resource: R, id: r.id, version: r.version, data: { ...r.data, id: 'stale' } }] };
    },
  });
  const stepWrites: [string, (store: SqliteStore, written: string, step: DomainStep) => Promise<{ ok: boolean }>][] = [
    ['an update', (store, written, step) => store.update(R, written, { n: 3 }, {}, { domain: step })],
    ['a removal (not group-committed)', (store, written, step) => store.remove(R, written, {}, { domain: step })],
  ];
  for (const [what, write] of stepWrites) {
    test(`a related write of a domain step keeps the mark as any write does: ${what}`, async () => {
      const store = await opened(freshFile());
      try {
        const related = await store.insert(R, { data: { n: 1 } });
        const written = await store.insert(R, { data: { n: 2 } });
        assert.equal(await vouched(store), true);
        assert.equal((await write(store, written.id, writesIdInto(related.id))).ok, true);
        assert.equal(await vouched(store), false);
      } finally {
        await store.close();
      }
    });
  }

  test('a refused write of a plain record leaves the mark; of one that is not plain, it may clear it, never the reverse', async () => {
    const store = await opened(freshFile());
    try {
      await store.insert(R, { id: 'taken', data: {} });
      await assert.rejects(store.insert(R, { id: 'taken', data: { n: 1 } }));
      assert.equal(await vouched(store), true);
      // A batch is undone whole (a savepoint), the mark's clearing with it.
      await assert.rejects(store.insertMany(R, [{ id: 'a"b', data: {} }, { id: 'taken', data: {} }]));
      assert.equal((await store.list(R, { limit: 10 })).records.length, 1, 'the batch wrote nothing');
      assert.equal(await vouched(store), true);
      // Cleared before the write, in its transaction: the write refused alone, the mark stays cleared (only slower pages).
      await assert.rejects(store.insert(R, { id: 'taken', data: { id: 'x' } }));
      assert.equal(await vouched(store), false);
    } finally {
      await store.close();
    }
  });

  test("a domain step's data is judged as decided: on a create, a batch create and a change", async () => {
    const adding = (extra: Record<string, unknown>): DomainStep => ({ decide: (_current, data): DomainDecision => ({ data: { ...data, ...extra } }) });
    const writes: [string, (store: SqliteStore) => Promise<unknown>][] = [
      ['create', (s) => s.insert(R, { data: {} }, { domain: adding({ id: 'x' }) })],
      ['batch create', (s) => s.insertMany(R, [{ data: {} }, { data: {} }], { domains: [undefined, adding({ id: 1 })] })],
      ['change', async (s) => s.update(R, (await s.insert(R, { data: {} })).id, {}, {}, { domain: adding({ id: null }) })],
      ['batch change', async (s) => s.changeMany(R, [{ kind: 'update', id: (await s.insert(R, { data: {} })).id, data: {} }], { domains: [adding({ id: [] })] })],
    ];
    for (const [what, write] of writes) {
      const store = await opened(freshFile());
      try {
        // A step that decides plain data keeps the mark.
        await store.insert(R, { data: { id: 'given' } }, { domain: { decide: (): DomainDecision => ({ data: { n: 1 } }) } });
        assert.equal(await vouched(store), true, `${what}: a step that drops the member`);
        await write(store);
        assert.equal(await vouched(store), false, what);
      } finally {
        await store.close();
      }
    }
  });

  test('a file edited by hand is scanned again once its rows of plain_tables are deleted (README)', async () => {
    assert.equal(await vouchedAfterHandEdit(`INSERT INTO res_item (id, version, data) VALUES ('by-hand', 1, '{"id":"x"}')`, 'DELETE FROM plain_tables'), false);
  });

  test('a page read on the reader thread is vouched for as one on the main thread is', async () => {
    const path = freshFile();
    const store = await opened(path);
    try {
      for (let i = 0; i < 30; i++) await store.insert(R, { data: { n: i, u: i % 3 } });
      // `u` has no index: a filter on it may read the whole table, so the page is read off the main thread.
      const page = await store.list(R, { limit: 5, filter: { u: 1 }, lean: true });
      assert.equal(page.records.length, 5);
      assert.equal(page.plain, true);
      await store.insert(R, { id: 'q"', data: { u: 2 } });
      assert.equal((await store.list(R, { limit: 5, filter: { u: 1 }, lean: true })).plain, false);
    } finally {
      await store.close();
    }
  });

  test('a record that is not plain, written while a page is on the reader thread, is never on a page vouched for', async () => {
    const store = await opened(freshFile());
    try {
      await store.insertMany(R, Array.from({ length: 3000 }, (_, i) => ({ data: { n: i, u: 0 } })));
      for (let i = 0; i < 30; i++) await store.insert(R, { data: { n: i, u: 1 } });
      let held = 0;
      for (let round = 0; round < 20; round++) {
        assert.equal(await vouched(store), true, `round ${round} starts plain`);
        // The reader thread is kept busy by a count of every record first, so that the page,
        // asked for before the write, is read after the write has committed (most rounds).
        const busy = store.count(R, { filter: { u: 0 } });
        const page = store.list(R, { limit: 100, filter: { u: 1 }, lean: true });
        const odd = await store.insert(R, { id: `odd"${round}`, data: { u: 1 } });
        const [{ records, plain }] = await Promise.all([page, busy]);
        if (records.some((r) => r.id === odd.id)) {
          held++;
          assert.equal(plain, false, `round ${round}: the page holds the record, and is vouched for`);
        }
        // Back to plain: the record removed, the table scanned again (another id field, then this one).
        assert.equal((await store.remove(R, odd.id)).ok, true);
        await store.migrate([{ ...LAYOUT, idField: 'other' }]);
        await store.migrate([LAYOUT]);
      }
      assert.ok(held > 0, 'no page was read after its write: the check above never ran');
    } finally {
      await store.close();
    }
  });
});

describe('the mark made or found again at migrate', () => {
  test('a file of schema 5 (no marks) is scanned once: vouched for where every record is plain, not where one is not', async () => {
    for (const [what, sql, expected] of [
      ['every record plain', `INSERT INTO res_item (id, version, data) VALUES ('p', 1, '{"n":1,"x":{"id":1}}')`, true],
      ['data with the id member', `INSERT INTO res_item (id, version, data) VALUES ('p', 1, '{"id":1}')`, false],
      ['an id to escape', `INSERT INTO res_item (id, version, data) VALUES ('p\u0002', 1, '{}')`, false],
      ['a live value with the id member', `INSERT INTO res_item (id, version, data, live) VALUES ('p', 1, '{}', '{"id":2}')`, false],
      ['a text that is not JSON', `INSERT INTO res_item (id, version, data) VALUES ('p', 1, 'not json')`, false],
    ] as const) {
      const path = freshFile();
      // What svcspec of schema 5 left: the table, no marks.
      const db = raw(path);
      db.exec('CREATE TABLE res_item (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, version INTEGER NOT NULL, owner TEXT, data TEXT NOT NULL, live TEXT)');
      db.exec(sql);
      db.exec('PRAGMA user_version = 5');
      db.close();
      // No field index: an index on json_extract(data, …) would refuse the text that is not JSON.
      const store = await opened(path, { name: R, idField: 'id' });
      try {
        assert.equal(await vouched(store), expected, what);
      } finally {
        await store.close();
      }
      const after = raw(path);
      assert.equal(after.prepare('PRAGMA user_version').get()?.user_version, 6, 'the file is of schema 6 now: an older svcspec refuses it');
      after.close();
    }
  });

  test('a layout that names another id field scans again; one that names none leaves the table without a mark', async () => {
    const path = freshFile();
    let store = await opened(path);
    await store.insert(R, { data: { code: 'c1', n: 1 } });
    assert.equal(await vouched(store), true, "records hold `code`, not the id's `id`");
    await store.close();
    store = await opened(path, { ...LAYOUT, idField: 'code' });
    assert.equal(await vouched(store), false, 'the id is shown as `code` now, which a record holds');
    await store.close();
    store = await opened(path, { name: R, indexes: ['n'] });
    assert.equal(await vouched(store), false, 'no id field named: nothing vouched for');
    await store.insert(R, { data: { id: 'anything' } });
    await store.close();
    store = await opened(path);
    try {
      assert.equal(await vouched(store), false, 'named again: the record written meanwhile is found');
    } finally {
      await store.close();
    }
  });

  test('a migrate to another id field in the same store forgets the mark it knew, and judges again a write called before it', async () => {
    let store = await opened(freshFile());
    try {
      await store.insert(R, { data: { code: 'c1' } });
      assert.equal(await vouched(store), true, 'known: plain for `id`');
      await store.migrate([{ ...LAYOUT, idField: 'code' }]);
      assert.equal(await vouched(store), false, 'for `code`, the record is not plain: the known mark is forgotten');
      await store.migrate([LAYOUT]);
      assert.equal(await vouched(store), true, 'scanned again for `id`');
    } finally {
      await store.close();
    }
    store = await opened(freshFile());
    try {
      await store.insert(R, { data: { n: 1 } });
      // A create judged plain at its call (for `id`), written after a migrate to `code` (whose scan finds nothing) in the same turn.
      const written = store.insert(R, { data: { code: 'c2' } });
      await store.migrate([{ ...LAYOUT, idField: 'code' }]);
      await written;
      assert.equal(await vouched(store), false);
    } finally {
      await store.close();
    }
  });

  test('a second start with the same layout does not scan the table again: the mark is as the writes left it', async () => {
    // A mark set by hand to what no scan would find: a start that scanned would put it back.
    assert.equal(await vouchedAfterHandEdit('UPDATE plain_tables SET plain = 0'), false);
  });
});
