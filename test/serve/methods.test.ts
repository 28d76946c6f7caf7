/**
 * The order in which a method a path does not take finds its path (src/serve/methods.ts): of
 * two route URLs that match one concrete path, the fixed one first, whatever else the list
 * holds and whatever order the routes were registered in.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bySpecificity } from '../../src/serve/methods.ts';

// traccar's /commands paths among unrelated ones (the case a partial order got wrong).
const URLS = ['/commands', '/commands/:id', '/commands/send', '/commands/types', '/users', '/users/:id', '/devices/:id/accumulators', '/devices/:id', '/books/bulk', '/books/:id', '/books/bulk-delete', '/members/:memberId/loans', '/members/:memberId/loans/:id', '/members/:id/verify'];
const concrete = (url: string) => url.replace(/:[^/]+/g, 'x');
const pattern = (url: string) => new RegExp(`^${url.replace(/:[^/]+/g, '[^/]+')}$`);

test('methods: of two route URLs matching one path, the fixed one comes first, in any registration order', () => {
  fc.assert(
    fc.property(fc.shuffledSubarray(URLS, { minLength: URLS.length }), (urls) => {
      const sorted = [...urls].sort(bySpecificity);
      for (const path of [...URLS.map(concrete), '/commands/types', '/commands/send', '/books/bulk']) {
        const first = sorted.find((u) => pattern(u).test(path));
        const fixed = URLS.find((u) => u === path);
        if (fixed) assert.equal(first, fixed, `${path} in ${sorted.join(' ')}`);
      }
    }),
  );
  assert.ok(bySpecificity('/commands/types', '/commands/:id') < 0);
  assert.ok(bySpecificity('/commands/:id', '/users') !== 0, 'unrelated paths still have a place');
});
