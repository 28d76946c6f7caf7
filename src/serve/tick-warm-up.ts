/**
 * Node's `process.nextTick` settled on its fast form before a service takes requests.
 *
 * Every request queues a dozen or so ticks (Node's streams and Fastify). Each is an object
 * literal with computed symbol keys (node:internal/process/task_queues). In about half of
 * all processes, V8's optimized `nextTick` builds that literal through the runtime
 * (`Runtime_DefineKeyedOwnPropertyInLiteral`, map transitions and migrations each time) for
 * the process's whole life; which half depends on when it was optimized against what it had
 * seen. That costs ~4.5% of a request's CPU (perf over serving processes: 11 of 23 had it).
 * Ticks queued here first, the callback alone and with one argument, settle it: see
 * SETTLING_TICKS for the count, what it costs, and how sure it is.
 *
 * Called by the owners of a serving process, first thing: `startServer` (the CLI's serve) and
 * the bench's servers. Not by `createApp`: a program that builds an app owns its process and its
 * event loop (a test with faked timers would count these ticks as its own), so it calls this
 * itself if it wants it (exported from `svcspec/serve`). It helps only before `nextTick` has
 * been busy; later it changes nothing. Once per loaded copy of this module: a worker thread,
 * an isolate of its own, settles its own.
 */

/**
 * Pairs of ticks queued, the second with the loop's index as its argument. 3,000 pairs left 0 of
 * 40 svcspec processes with the slow form (pages, reads, guarded reads) and 0 of 18 of the
 * bench's hand-written server; they take 10–15 ms once, on this project's 2-core machines. The
 * settling is a matter of V8's heuristics, not of a promise: 1,000 pairs with an object argument
 * left 0 of 16 svcspec processes slow but 3 of 6 hand-written ones.
 */
export const SETTLING_TICKS = 3000;

let settled = false;

export function settleNextTick(): void {
  if (settled) return;
  settled = true;
  const noop = (_?: unknown): void => {};
  for (let i = 0; i < SETTLING_TICKS; i++) {
    process.nextTick(noop);
    process.nextTick(noop, i);
  }
}
