/**
 * Which referenced records an expression reads (src/spec/domain/cel.ts refsReadBy): serve
 * reads only those in a write's transaction, so a miss would make a guard hold that should
 * refuse. Spaces and line breaks around the dot, names that share a prefix, and any other
 * use of `refs` (which reads them all).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refsReadBy } from '../../src/spec/domain/cel.ts';

test('refsReadBy: each refs.<field>, with spaces or a line break around the dot', () => {
  assert.deepEqual([...refsReadBy('refs.book.available > 0')], ['book']);
  assert.deepEqual([...refsReadBy('refs . book . x && refs\n.member.y')], ['book', 'member']);
  assert.deepEqual([...refsReadBy('has(refs.bookmark) && refs.book_id == 1')], ['bookmark', 'book_id'], 'a prefix is not the field');
});

test('refsReadBy: refs used any other way reads them all; another variable named like it reads none', () => {
  assert.deepEqual([...refsReadBy('refs["a-b"].x')], ['*']);
  assert.deepEqual([...refsReadBy('size(refs) > 0')], ['*']);
  assert.deepEqual([...refsReadBy('self.refs.x == 1')], []);
  assert.deepEqual([...refsReadBy('itemRefs.product.onSale')], []);
  assert.deepEqual([...refsReadBy('itemRefs.product.onSale', 'itemRefs')], ['product']);
});
