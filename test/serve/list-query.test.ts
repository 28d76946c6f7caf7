/** The query reader of list endpoints: its fast split reads a query exactly as URLSearchParams does. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { queryPairs } from '../../src/serve/list-query.ts';

test('queryPairs reads any query string as URLSearchParams does (generated strings)', () => {
  const char = fc.constantFrom('a', 'b', 'Z', '0', '=', '&', '%', '2', 'C', '+', ' ', '-', '_', '~', '/', '?', 'é', '☃', '\uD800');
  fc.assert(
    fc.property(fc.array(char, { maxLength: 24 }).map((cs) => cs.join('')), (raw) => {
      assert.deepEqual(queryPairs(raw), [...new URLSearchParams(raw)]);
    }),
    { numRuns: 2000, seed: 20261123 },
  );
});

test('queryPairs: a page link, an empty query, empty pieces, a name without a value', () => {
  assert.deepEqual(queryPairs('limit=20&cursor=2ac5d0de4WyJpdGVtIiwiIixbXSw0MF0'), [['limit', '20'], ['cursor', '2ac5d0de4WyJpdGVtIiwiIixbXSw0MF0']]);
  assert.deepEqual(queryPairs(''), []);
  assert.deepEqual(queryPairs('&&a=1&&'), [['a', '1']]);
  assert.deepEqual(queryPairs('a&b=&=c&d=1=2'), [['a', ''], ['b', ''], ['', 'c'], ['d', '1=2']]);
  assert.deepEqual(queryPairs('title=a+b%2Cc'), [['title', 'a b,c']]);
});
