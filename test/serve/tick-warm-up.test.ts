/**
 * createApp settles Node's `process.nextTick` once a process (src/serve/tick-warm-up.ts): the
 * first app queues the 6,000 ticks, one and two arguments, before it serves; later apps queue
 * none. Whether V8 then keeps the fast form is a matter for the bench
 * (bench/support/ticks-probe.ts), not a test; that the settling happens, and once, is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import { exampleSpec, freshStore } from './support/open-app.ts';

test('the first app of a process settles process.nextTick with 6,000 ticks before it serves; a second app queues none', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const original = process.nextTick;
  const calls = new Map<unknown, { bare: number; withArgument: number }>();
  process.nextTick = function (this: unknown, callback: (...args: unknown[]) => void, ...args: unknown[]) {
    const c = calls.get(callback) ?? { bare: 0, withArgument: 0 };
    if (args.length === 0) c.bare++;
    else c.withArgument++;
    calls.set(callback, c);
    return original.call(process, callback, ...args);
  } as typeof process.nextTick;
  t.after(() => {
    process.nextTick = original;
  });
  const settling = () => [...calls.values()].filter((c) => c.bare + c.withArgument >= 1000);

  const first = await createApp({ spec, store: await freshStore() });
  t.after(() => first.close());
  assert.deepEqual(settling(), [{ bare: 3000, withArgument: 3000 }], 'one callback queued 3,000 times bare and 3,000 times with an argument');
  const answer = await first.inject({ method: 'GET', url: '/healthz' });
  assert.equal(answer.statusCode, 200, 'the app serves after settling');

  calls.clear();
  const second = await createApp({ spec, store: await freshStore() });
  t.after(() => second.close());
  assert.deepEqual(settling(), [], 'a second app of the same process settles nothing again');
});
