/**
 * Node's `process.nextTick` settled on its fast form before the service takes requests.
 *
 * Every request queues a dozen or so ticks (Node's streams and Fastify). Each is an object
 * literal with computed symbol keys (node:internal/process/task_queues). In about half of
 * all processes, V8's optimized `nextTick` builds that literal through the runtime
 * (`Runtime_DefineKeyedOwnPropertyInLiteral`, map transitions and migrations each time);
 * which half depends on when it was optimized against what it had seen. That costs ~4.5% of
 * a request's CPU (perf over a serving process: 11 of 23 processes had it). Six thousand
 * ticks queued here, one and two arguments each, before anything serves: 0 of 32 had it. The
 * cost is well under a millisecond, once a process (issue #20, README "Performance").
 */
let settled = false;

export function settleNextTick(): void {
  if (settled) return;
  settled = true;
  const noop = (_?: unknown): void => {};
  for (let i = 0; i < 3000; i++) {
    process.nextTick(noop);
    process.nextTick(noop, i);
  }
}
