/**
 * The counts of domain steps in the SQLite adapter (src/store/sqlite-list.ts countShape):
 * counts of one shape share one SQL text, and the arguments made apart from it are exactly
 * those the full builder binds, so a cached text never meets arguments in another order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countArgs, countShape, countSql } from '../../src/store/sqlite-list.ts';
import type { CountQuery } from '../../src/store/store.ts';

const queries: CountQuery[] = [
  { filters: [{ field: 'member', op: 'eq', value: 7 }, { field: 'status', op: 'in', value: ['requested', 'active', 'overdue'] }] },
  { filters: [{ field: 'member', op: 'eq', value: 'm-1' }] },
  { filters: [{ field: 'member', op: 'eq', value: null }] },
  { filters: [{ field: 'flag', op: 'eq', value: true }, { field: 'other', op: 'eq', value: false }] },
  { filters: [{ field: 'mixed', op: 'in', value: [false, 'a', null, 2, true, 1.5] }] },
  { filters: [{ field: 'none', op: 'in', value: [] }] },
  { filters: [] },
];

test('a count of a shape is bound in the order the full builder binds it', () => {
  for (const query of queries) {
    assert.notEqual(countShape(query), undefined, JSON.stringify(query));
    assert.deepEqual(countArgs(query), countSql('res_t', query).args, JSON.stringify(query));
  }
});

test('counts of one shape share one SQL text; another type of value is another shape', () => {
  const of = (member: number | string, statuses: string[]): CountQuery => ({ filters: [{ field: 'member', op: 'eq', value: member }, { field: 'status', op: 'in', value: statuses }] });
  assert.equal(countShape(of(1, ['a', 'b'])), countShape(of(2, ['c', 'd'])));
  assert.equal(countSql('res_t', of(1, ['a', 'b'])).sql, countSql('res_t', of(2, ['c', 'd'])).sql);
  assert.notEqual(countShape(of(1, ['a', 'b'])), countShape(of('1', ['a', 'b'])));
  assert.notEqual(countShape(of(1, ['a', 'b'])), countShape(of(1, ['a'])));
});

test('any other count has no shape and is written whole', () => {
  assert.equal(countShape({ filter: { member: 1 } }), undefined);
  assert.equal(countShape({ filters: [{ field: 'member', op: 'eq', value: 1 }], owner: 'ann' }), undefined);
  assert.equal(countShape({ filters: [{ field: 'n', op: 'gt', value: 1 }] }), undefined);
  assert.equal(countShape({ filters: [{ field: 'a.b', op: 'eq', value: 1 }] }), undefined);
  assert.equal(countShape({ filters: [{ field: 'o', op: 'eq', value: {} as never }] }), undefined);
});
