/**
 * The PostgreSQL list SQL as text (no server needed): a page in insertion order writes its
 * LIMIT into the text, so its prepared statement keeps a generic plan, but only up to 100
 * rows: beyond, each size would be one more prepared statement on every connection, and a
 * spec with `maxSize: none` lets a client ask for any size.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listSql } from '../../src/store/postgres-list.ts';

test('postgres list SQL: LIMIT written into the text for plain pages up to 100, bound beyond and for filtered or sorted pages', () => {
  assert.match(listSql('res_things', { limit: 20 }).sql, / LIMIT 21$/);
  assert.match(listSql('res_things', { limit: 100 }).sql, / LIMIT 101$/);
  const large = listSql('res_things', { limit: 500 });
  assert.match(large.sql, / LIMIT \$\d+::bigint$/);
  assert.ok(large.params.includes(501));
  assert.match(listSql('res_things', { limit: 20, sort: [{ field: 'price', direction: 'asc' }] }).sql, / LIMIT \$\d+::bigint$/);
});
