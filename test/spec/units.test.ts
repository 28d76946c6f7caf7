/** Words of messages: a noun read with its indefinite article (src/spec/units.ts aNoun). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aNoun } from '../../src/spec/units.ts';

test('aNoun: "an article", "a book", "a user", "an update" (a message said "a article")', () => {
  assert.deepEqual(['article', 'book', 'user', 'update', 'unit', 'order', 'item', 'usage', 'readingList', 'oneOff', 'euro', 'url', 'umbrella'].map(aNoun), ['an article', 'a book', 'a user', 'an update', 'a unit', 'an order', 'an item', 'a usage', 'a readingList', 'a oneOff', 'a euro', 'a url', 'an umbrella']);
});
