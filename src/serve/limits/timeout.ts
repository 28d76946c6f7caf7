/**
 * Part 8 at run time: the request time-out. A request still unanswered after
 * `limits.timeouts.request` (else the safety default SAFETY.requestTimeoutMs, listed by
 * `check`; none at all where the spec states `timeouts: { none: … }`) is answered with the `timeout` situation in the declared error shape: the status
 * `limits.timeouts.status` declares (503 or 504), else 503 (src/serve/errors.ts; RFC 9110
 * §15.6.4, §15.6.5). Its work is abandoned: no store write of it starts afterwards, and
 * it never answers a second time.
 *
 * The clock is one shared ticker, not a timer per request (the guards must cost little: the
 * bench allows them 15% of the unguarded service). Every request in flight is a node of one
 * list in arrival order; every request has the same time-out, so the oldest is at the head.
 * While requests are in flight a ticker runs TICKS times per time-out and counts its ticks;
 * a request that arrived at tick g is due once `need` more full ticks have passed, so it is
 * answered after at least the time-out and at most a tick (a tenth of it, or 1 ms) later,
 * never earlier. A loaded event loop delays the ticker, as it delays every timer. Per
 * request this costs one small object, a counter read and two links: no clock read, no
 * closure, no timer. Fastify 5's own `handlerTimeout` allocates an AbortController, a timer
 * and two closures per request and answers with its own error, so it is not used.
 *
 * A request leaves the list when its answer starts (the first onSend hook), whatever the
 * answer is, or when it expires; from then on the time-out no longer applies to it.
 *
 * Abandoning, and why no half-written record is left:
 *   - Handlers of the methods that may write (all but the safe ones, RFC 9110 §9.2.1) run
 *     inside an AsyncLocalStorage context holding the request's node, entered by a wrapper
 *     every route gets in onRoute. Safe methods write nothing and skip it (it costs a
 *     context frame per request, on the reads and lists that are most of the traffic).
 *   - The store the part modules use (ctx.store) is wrapped once, in createApp
 *     (`abandonableStore`): a write (insert, update, remove, putIdempotent,
 *     expireIdempotent) of an abandoned request is refused with AbandonedError before it
 *     starts. Reads pass: a late read changes nothing.
 *   - Each SQLite write is one transaction: updates and deletes run synchronously inside
 *     their call; an insert is queued when called and committed with the others of its
 *     event-loop turn in that turn's check phase (group commit, src/store/sqlite-commit.ts),
 *     and the ticker runs in the timers phase, which no turn has between its I/O callbacks
 *     (where handlers run) and its check phase. So a write that started finishes before the
 *     ticker can run, none starts after, and a timed-out request leaves each record either
 *     untouched or wholly written, never half. (An insert queued from a check-phase callback
 *     commits in the next turn, after a tick, like a write of an asynchronous store,
 *     PostgreSQL, which may commit a write whose request timed out meanwhile: the client got
 *     the time-out and the record exists, the usual ambiguity of a time-out.)
 *   - A handler that resumes after its request was abandoned either meets AbandonedError
 *     at its next write, or reaches its send, where `answered(reply)` says the answer is
 *     out and nothing is sent. The route wrapper swallows any failure of an abandoned
 *     request, so nothing is sent twice and nothing is logged as a fault.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Spec } from '../../spec/model.ts';
import { SAFETY } from '../../spec/defaults.ts';
import { formatDuration } from '../../spec/units.ts';
import type { LeanListQuery, ListedRecord, ListQuery, ListResult, Store } from '../../store/store.ts';
import type { ServeContext } from '../context.ts';
import { HttpError } from '../errors.ts';

/** Ticks per time-out: the answer comes at most a tenth of the time-out late. */
const TICKS = 10;

/** How long a request may run: as declared, else the safety default. */
export function requestTimeoutMs(spec: Spec): number {
  return spec.limits.timeouts?.requestMs ?? SAFETY.requestTimeoutMs;
}

/** A request in flight: a node of the in-flight list, and the mark of its abandonment. */
export class Work {
  readonly reply: FastifyReply;
  /** The tick it arrived at. */
  readonly tick: number;
  abandoned = false;
  linked = true;
  prev: Work | undefined = undefined;
  next: Work | undefined = undefined;
  constructor(reply: FastifyReply, tick: number) {
    this.reply = reply;
    this.tick = tick;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the time-out (part 8) in onRequest: the request's work, abandoned when it times out. */
    work?: Work;
  }
}

/** Thrown by the store of a request whose work was abandoned; never answered (see the header). */
export class AbandonedError extends Error {
  constructor() {
    super('The request timed out; its work was abandoned.');
    this.name = 'AbandonedError';
  }
}

/** The work of the request whose handler is running now. */
const current = new AsyncLocalStorage<Work>();

/** Methods that write nothing (RFC 9110 §9.2.1): their handlers need no abandonment guard on writes. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export function registerTimeouts(app: FastifyInstance, ctx: ServeContext): void {
  // The spec states the service has no time-out (`timeouts: { none: … }`): none is applied.
  if (ctx.spec.limits.none?.timeouts) return;
  const ms = requestTimeoutMs(ctx.spec);
  const detail = `The request ran longer than the time-out of ${formatDuration(ms)}; its work was abandoned.`;
  const inFlight = new InFlight(ms, (work) => expire(work, detail));
  app.decorateRequest('work', undefined);
  // First of the onRequest hooks (see app.ts), so the time-out covers everything after it.
  app.addHook('onRequest', (request, reply, done) => {
    request.work = inFlight.add(reply);
    done();
  });
  // First of the onSend hooks: it runs as soon as the answer is sent, before any hook that
  // might wait, so the time-out never answers a request whose answer is on its way.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.work !== undefined) inFlight.remove(request.work);
    done(null, payload);
  });
  app.addHook('onRoute', function (route) {
    const writes = [route.method].flat().some((m) => !SAFE_METHODS.has(m));
    route.handler = guard(route.handler.bind(this), writes);
  });
  app.addHook('onClose', async () => inFlight.stop());
}

/**
 * Whether a request's answer is out: sent, or the time-out answered it (its answer may be
 * on its way through asynchronous hooks, not yet written). Where a handler sends, it sends
 * only if not: a handler resuming after its time-out must not answer a second time.
 */
export function answered(reply: FastifyReply): boolean {
  return reply.sent || reply.request.work?.abandoned === true;
}

/** Abandons the work of a request that ran out of time, and answers it if it can. */
function expire(work: Work, detail: string): void {
  work.abandoned = true;
  const reply = work.reply;
  // Hijacked, or the client is gone: nothing to answer, but the work is abandoned all the same.
  if (reply.sent || reply.raw.headersSent || reply.raw.destroyed) return;
  try {
    // Through the error handler, so it comes out in the declared shape (src/serve/app.ts).
    reply.send(new HttpError('timeout', { detail }));
  } catch (err) {
    reply.log.error({ err }, 'the time-out answer could not be sent');
  }
}

/**
 * Runs a route handler (inside its request's work when it may write), and settles a
 * handler that comes back after its request was abandoned: the time-out answered it, so
 * its failure is not sent again (nor logged by Fastify as an error of a request answered).
 */
export function guard(handler: (request: FastifyRequest, reply: FastifyReply) => unknown, writes: boolean): RouteHandlerMethod {
  return function guarded(request: FastifyRequest, reply: FastifyReply) {
    const work = request.work;
    if (work === undefined) return handler(request, reply);
    // Timed out on its way here (a slow body, a slow hook): answered already.
    if (work.abandoned) return reply;
    const result: unknown = writes ? current.run(work, handler, request, reply) : handler(request, reply);
    return isThenable(result) ? settle(result, work, reply) : result;
  } as RouteHandlerMethod;
}

async function settle(result: PromiseLike<unknown>, work: Work, reply: FastifyReply): Promise<unknown> {
  try {
    return await result;
  } catch (error) {
    // The reply, a thenable, settles when the time-out's answer has been written.
    if (work.abandoned) return reply;
    throw error;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}

/**
 * The requests in flight, oldest first, and the ticker that expires them (see the header).
 * The ticker runs only while the list is not empty, and never keeps the process alive.
 */
export class InFlight {
  #head: Work | undefined;
  #tail: Work | undefined;
  #tick = 0;
  #ticker: ReturnType<typeof setInterval> | undefined;
  readonly #every: number;
  /** Full ticks after its arrival tick at which a request is due. */
  readonly #need: number;
  readonly #expire: (work: Work) => void;

  constructor(timeoutMs: number, expire: (work: Work) => void) {
    this.#every = Math.max(1, Math.floor(timeoutMs / TICKS));
    this.#need = Math.ceil(timeoutMs / this.#every);
    this.#expire = expire;
  }

  add(reply: FastifyReply): Work {
    const work = new Work(reply, this.#tick);
    if (this.#tail === undefined) {
      this.#head = work;
      if (this.#ticker === undefined) this.#start();
    } else {
      this.#tail.next = work;
      work.prev = this.#tail;
    }
    this.#tail = work;
    return work;
  }

  remove(work: Work): void {
    if (!work.linked) return;
    work.linked = false;
    if (work.prev === undefined) this.#head = work.next;
    else work.prev.next = work.next;
    if (work.next === undefined) this.#tail = work.prev;
    else work.next.prev = work.prev;
    work.prev = work.next = undefined;
  }

  stop(): void {
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #start(): void {
    this.#ticker = setInterval(() => this.#onTick(), this.#every);
    this.#ticker.unref();
  }

  #onTick(): void {
    this.#tick++;
    // Arrived at tick g (somewhere between ticks g and g + 1): `need` full ticks have
    // passed since once the count reaches g + need + 1.
    const due = this.#tick - this.#need - 1;
    for (let work = this.#head; work !== undefined && work.tick <= due; work = this.#head) {
      this.remove(work);
      this.#expire(work);
    }
    if (this.#head === undefined) this.stop();
  }
}

/**
 * The store as the part modules see it (ctx.store): a write of a request whose work was
 * abandoned is refused before it starts. Reads pass untouched: a late read changes nothing,
 * and the handler that made it finds its answer sent (`answered`). Calls outside a request
 * (sweeps, start-up) have no work and pass untouched.
 */
export function abandonableStore(inner: Store): Store {
  return new AbandonableStore(inner);
}

function refused(): Promise<never> {
  return Promise.reject(new AbandonedError());
}

class AbandonableStore implements Store {
  readonly #inner: Store;
  readonly kind: Store['kind'];

  constructor(inner: Store) {
    this.#inner = inner;
    this.kind = inner.kind;
  }

  get credentials(): Store['credentials'] {
    return this.#inner.credentials;
  }

  get events(): Store['events'] {
    return this.#inner.events;
  }

  migrate(resources: Parameters<Store['migrate']>[0]): Promise<void> {
    return this.#inner.migrate(resources);
  }

  insert(...args: Parameters<Store['insert']>): ReturnType<Store['insert']> {
    return current.getStore()?.abandoned === true ? refused() : this.#inner.insert(...args);
  }

  insertMany(...args: Parameters<Store['insertMany']>): ReturnType<Store['insertMany']> {
    return current.getStore()?.abandoned === true ? refused() : this.#inner.insertMany(...args);
  }

  changeMany(...args: Parameters<Store['changeMany']>): ReturnType<Store['changeMany']> {
    return current.getStore()?.abandoned === true ? refused() : this.#inner.changeMany(...args);
  }

  update(...args: Parameters<Store['update']>): ReturnType<Store['update']> {
    return current.getStore()?.abandoned === true ? refused() : this.#inner.update(...args);
  }

  remove(...args: Parameters<Store['remove']>): ReturnType<Store['remove']> {
    return current.getStore()?.abandoned === true ? refused() : this.#inner.remove(...args);
  }

  putIdempotent(...args: Parameters<Store['putIdempotent']>): ReturnType<Store['putIdempotent']> {
    return current.getStore()?.abandoned === true ? refused() : this.#inner.putIdempotent(...args);
  }

  expireIdempotent(before: number): ReturnType<Store['expireIdempotent']> {
    return current.getStore()?.abandoned === true ? refused() : this.#inner.expireIdempotent(before);
  }

  count(...args: Parameters<Store['count']>): ReturnType<Store['count']> {
    return this.#inner.count(...args);
  }

  get(resource: string, id: string): ReturnType<Store['get']> {
    return this.#inner.get(resource, id);
  }

  list(resource: string, query: LeanListQuery): Promise<ListResult<ListedRecord>>;
  list(resource: string, query: ListQuery): Promise<ListResult>;
  list(resource: string, query: ListQuery | LeanListQuery): Promise<ListResult<ListedRecord>>;
  list(resource: string, query: ListQuery | LeanListQuery): Promise<ListResult<ListedRecord>> {
    return this.#inner.list(resource, query);
  }

  getIdempotent(scope: string, key: string): ReturnType<Store['getIdempotent']> {
    return this.#inner.getIdempotent(scope, key);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
