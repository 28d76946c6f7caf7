/**
 * What a client sees of a stored record, and of a page position, made cheaply: the stored
 * JSON text sent as it is when the view shows every stored field (presentJson), and the
 * cursors of src/serve/cursor.ts (the current format, and the first one still read).
 */
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { describe, test } from 'node:test';
import { decodeCursor, encodeCursor } from '../../src/serve/cursor.ts';
import { declareView, jsonString, present, presentJson, presentJsonList } from '../../src/serve/representation.ts';
import type { Resource } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { StoredRecord } from '../../src/store/store.ts';
import { mustLoad } from '../support/spec.ts';

const SPEC = mustLoad(`
svcspec: 1
purpose: {name: Things, summary: Keeps things., users: [{name: keeper, tasks: [keep things]}]}
resources:
  plain:
    plural: plains
    fields:
      id: {type: string, readOnly: true}
      title: {type: string}
      tags: {type: array, items: {type: string}}
  hidden:
    plural: hiddens
    fields:
      id: {type: string, readOnly: true}
      title: {type: string}
      secret: {type: string, writeOnly: true}
  counted:
    plural: counteds
    id: {field: n, assigned: sequence}
    fields:
      n: {type: integer, readOnly: true}
      title: {type: string}
states: {none: none}
endpoints: {plain: [read], hidden: [read], counted: [read]}
authentication: {none: none}
events: {none: none}
errors: {none: none}
limits: {none: none}
versioning: {none: none}
`);
const resource = (name: string) => SPEC.resources.find((r) => r.name === name) as Resource;

async function stored(name: string, data: Record<string, unknown>, id?: string): Promise<StoredRecord> {
  const store = await openSqliteStore({ path: ':memory:' });
  await store.migrate([name]);
  await store.insert(name, { ...(id !== undefined ? { id } : {}), data });
  const [record] = (await store.list(name, { limit: 1 })).records;
  await store.close();
  return record as StoredRecord;
}

describe('presentJson', () => {
  const cases: [string, string, Record<string, unknown>, string?][] = [
    ['the stored text, the id in front', 'plain', { title: 'a "quoted" ünïcode \u2028 title', tags: ['x', 'y'] }, 'id-1'],
    ['no fields at all', 'plain', {}, 'id-2'],
    ['an integer id', 'counted', { title: 't' }],
    ['writeOnly fields left out', 'hidden', { title: 't', secret: 's' }, 'h'],
    ['a member named like the id (an old record) as present() shows it', 'plain', { id: 'stale', title: 't' }, 'id-3'],
    ['a member named like the id deeper down, and one whose name ends like it', 'plain', { title: 'grid', tags: ['"id":'], paid: true, nested: { id: 'x' } }, 'id-4'],
    ['an id with a quote, a backslash and a control character', 'plain', { title: 't' }, 'a "b" \\ c\u0001'],
    ['an id with a character pair outside the BMP', 'plain', { title: 't' }, 'id-\u{1F600}'],
  ];
  for (const [what, name, data, id] of cases) {
    test(`is JSON.stringify(present()) byte for byte: ${what}`, async () => {
      const record = await stored(name, data, id);
      assert.equal(typeof record.json, 'string', 'the SQLite store keeps the text');
      assert.equal(presentJson(resource(name), record), JSON.stringify(present(resource(name), record)));
      // An item of a page is built apart from presentJson (its pieces joined once): the same bytes.
      const one = JSON.stringify(present(resource(name), record));
      assert.equal(presentJsonList(resource(name), [record, record]), `${one},${one}`);
    });
  }

  test('a page of records is each record as presentJson gives it, comma-separated', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    await store.migrate(['plain']);
    for (const [id, data] of [['p1', { title: 'one' }], ['p2', { id: 'stale', title: 'two' }], ['p3', {}]] as const) await store.insert('plain', { id, data });
    const { records } = await store.list('plain', { limit: 10 });
    await store.close();
    assert.equal(records.length, 3);
    assert.equal(presentJsonList(resource('plain'), records), records.map((r) => JSON.stringify(present(resource('plain'), r))).join(','));
    assert.equal(presentJsonList(resource('plain'), []), '');
    // The body's text around its items, joined with them: no separator at either end.
    const items = records.map((r) => JSON.stringify(present(resource('plain'), r))).join(',');
    assert.equal(presentJsonList(resource('plain'), records, '{"items":[', '],"next":null}'), `{"items":[${items}],"next":null}`);
    assert.equal(presentJsonList(resource('plain'), records.slice(0, 1), '[', ']'), `[${JSON.stringify(present(resource('plain'), records[0]!))}]`);
    assert.equal(presentJsonList(resource('plain'), [], '{"items":[', '],"next":null}'), '{"items":[],"next":null}');
    assert.equal(presentJsonList(resource('counted'), [], '[', ']'), '[]');
  });

  test('a page whose ids need escapes among ids that do not is still each record as presentJson gives it', async () => {
    // The page's ids are checked together (one pass over all of them): one that JSON escapes,
    // anywhere in the page, must not be put in quotes as it is.
    const store = await openSqliteStore({ path: ':memory:' });
    await store.migrate(['plain']);
    const ids = ['p1', 'a "b" \\ c\u0001', 'p3', 'lone \ud800', 'pair \u{1F600}', 'p6'];
    for (const id of ids) await store.insert('plain', { id, data: { title: id } });
    await store.insert('plain', { id: 'p7', data: { id: 'stale', title: 'p7' } });
    const { records } = await store.list('plain', { limit: 10 });
    await store.close();
    assert.equal(records.length, 7);
    const expected = records.map((r) => JSON.stringify(present(resource('plain'), r))).join(',');
    assert.equal(presentJsonList(resource('plain'), records), expected);
    // Each id as it was stored (a lone surrogate was stored as U+FFFD); the old record shows its member, as present() does.
    assert.deepEqual((JSON.parse(`[${expected}]`) as { id: string }[]).map((item) => item.id), [...records.slice(0, 6).map((r) => r.id), 'stale']);
    for (let i = 0; i < records.length; i++) assert.equal(presentJsonList(resource('plain'), records.slice(i, i + 1)), presentJson(resource('plain'), records[i]!));
  });

  test('a page of records made by hand: a lone surrogate or a control character in any id, anywhere in the page', () => {
    // Records not from a store (SQLite would have stored a lone surrogate as U+FFFD): the id
    // check of a page must catch each kind of escape in any position.
    const record = (id: string, data: Record<string, unknown>): StoredRecord => ({ id, seq: 1, version: 1, data, json: JSON.stringify(data) });
    for (const odd of ['lone \ud800', 'low \udc00 first', 'pair \u{1F600}', 'nul \u0000', 'quote "', 'back \\ slash']) {
      for (let at = 0; at < 3; at++) {
        const records = ['a', 'b', 'c'].map((id, i) => record(i === at ? odd : id, { title: id }));
        const expected = records.map((r) => JSON.stringify(present(resource('plain'), r))).join(',');
        assert.equal(presentJsonList(resource('plain'), records), expected, `${JSON.stringify(odd)} at ${at}`);
        assert.equal(presentJsonList(resource('plain'), records, '[', ']'), `[${expected}]`);
      }
    }
  });

  test('jsonString is JSON.stringify for every string', () => {
    for (const s of ['', 'plain', 'a"b', 'a\\b', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'x\udc00', '\u{1F600}', 'é']) assert.equal(jsonString(s), JSON.stringify(s), JSON.stringify(s));
  });

  test('a member named __proto__ stays a member, as JSON.parse and a spread make it', () => {
    const data = JSON.parse('{"title":"t","__proto__":{"x":1}}') as Record<string, unknown>;
    const shown = present(resource('plain'), { id: 'p', seq: 1, data });
    assert.equal(Object.getPrototypeOf(shown), Object.prototype);
    assert.equal(JSON.stringify(shown), '{"id":"p","title":"t","__proto__":{"x":1}}');
  });

  test('a record without its text (another store) is serialized', () => {
    const record: StoredRecord = { id: 'p', seq: 1, version: 1, data: { title: 't' } };
    assert.equal(presentJson(resource('plain'), record), '{"id":"p","title":"t"}');
  });

  test("a version's view shows only its fields", async () => {
    const base = resource('plain');
    const view: Resource = { ...base, fields: base.fields.filter((f) => f.name !== 'tags') };
    declareView(view, { base, version: '1', prefix: '' });
    const record = await stored('plain', { title: 't', tags: ['x'] }, 'v');
    assert.equal(presentJson(view, record), '{"id":"v","title":"t"}');
  });
});

describe('cursors', () => {
  const sort = [{ field: 'title', direction: 'desc' as const }];

  test('round trip, with sort values of every scalar type', () => {
    for (const values of [['t'], [1.5], [true], [null]] as const) {
      const cursor = encodeCursor('things', sort, { values, seq: 42 });
      assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      assert.deepEqual(decodeCursor(cursor, 'things', sort), { ok: true, position: { values, seq: 42 } });
    }
  });

  test('a plain position (no sort) is written as JSON.stringify writes it, for any resource name, and read back', () => {
    for (const resource of ['things', 'a"b', 'x\\y', 'é', '']) {
      for (const seq of [0, 1, 2000, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
        const cursor = encodeCursor(resource, [], { values: [], seq });
        assert.equal(Buffer.from(cursor.slice(9), 'base64url').toString('utf8'), JSON.stringify([resource, '', [], seq]));
        assert.deepEqual(decodeCursor(cursor, resource, []), { ok: true, position: { values: [], seq } });
      }
    }
    // The same position under a sort is another cursor, and is refused without it.
    const sorted = encodeCursor('things', sort, { values: [null], seq: 5 });
    assert.equal(decodeCursor(sorted, 'things', []).ok, false);
    assert.equal(decodeCursor(encodeCursor('things', [], { values: [], seq: 5 }), 'things', sort).ok, false);
  });

  test('a cursor of the first format (version 1) is still read', () => {
    const json = Buffer.from(JSON.stringify({ r: 'things', o: '-title', v: ['t'], s: 7 }));
    const v1 = Buffer.concat([Buffer.from([1]), hash('sha256', json, 'buffer').subarray(0, 4), json]).toString('base64url');
    assert.deepEqual(decodeCursor(v1, 'things', sort), { ok: true, position: { values: ['t'], seq: 7 } });
    const altered = v1.slice(0, 10) + (v1[10] === 'A' ? 'B' : 'A') + v1.slice(11);
    assert.equal(decodeCursor(altered, 'things', sort).ok, false);
  });

  test('every single-character change is refused', () => {
    const cursor = encodeCursor('things', sort, { values: ['t'], seq: 42 });
    for (let i = 0; i < cursor.length; i++) {
      const changed = cursor.slice(0, i) + (cursor[i] === 'B' ? 'C' : 'B') + cursor.slice(i + 1);
      assert.equal(decodeCursor(changed, 'things', sort).ok, false, `position ${i}`);
    }
  });
});
