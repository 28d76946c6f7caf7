/**
 * The owner of a serving process settles Node's `process.nextTick` first
 * (src/serve/tick-warm-up.ts): `startServer`, which the CLI's serve calls, queues the settling
 * ticks, the callback alone and with one argument, once a process; `createApp`, a library call
 * in a program that owns its event loop, queues none. Whether V8 then keeps the fast form is a
 * matter for the bench (bench/support/ticks-probe.ts), not a test; that the settling happens,
 * where and once, is. This file must be the first of its process to start a server (node:test
 * runs each file in a process of its own).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import { startServer } from '../../src/serve/server.ts';
import { SETTLING_TICKS } from '../../src/serve/tick-warm-up.ts';
import { EXAMPLES, exampleSpec, freshStore } from './support/open-app.ts';

test('startServer settles process.nextTick once a process before it serves; createApp queues nothing of the kind', async (t) => {
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
  const settling = () => [...calls.values()].filter((c) => c.bare + c.withArgument >= SETTLING_TICKS);

  const app = await createApp({ spec: await exampleSpec('library.yaml'), store: await freshStore() });
  t.after(() => app.close());
  assert.deepEqual(settling(), [], 'an app made by a program settles nothing: its process is the program\'s');

  const first = await startServer({ file: `${EXAMPLES}library.yaml`, db: ':memory:', port: 0, host: '127.0.0.1', quiet: true });
  assert.ok(first.ok, 'the server starts');
  t.after(() => first.close());
  assert.deepEqual(settling(), [{ bare: SETTLING_TICKS, withArgument: SETTLING_TICKS }], 'one callback queued alone and with an argument, SETTLING_TICKS times each');
  const answer = await fetch(`${first.url}/healthz`);
  assert.equal(answer.status, 200, 'the server serves after settling');

  calls.clear();
  const second = await startServer({ file: `${EXAMPLES}library.yaml`, db: ':memory:', port: 0, host: '127.0.0.1', quiet: true });
  assert.ok(second.ok, 'a second server starts');
  t.after(() => second.close());
  assert.deepEqual(settling(), [], 'a second server of the same process settles nothing again');
});
