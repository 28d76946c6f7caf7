/**
 * Part 8 at run time: rate limits, as `limits.rate` declares them.
 *
 * Policies. Each endpoint is limited by its override (`limits.rate.overrides.<endpoint-id>`)
 * or else by the main limit. The main limit is one policy named "default", with one counter
 * per client shared by every endpoint it covers; an override is a policy of its own, named
 * after the endpoint id, with its own counter, and the endpoint it covers does not count
 * against "default". Routes that serve no endpoint (404, 405, OPTIONS, /docs, a token
 * endpoint) are not limited.
 *
 * Who is counted (the partition). Scope `credential`: the credential the request was
 * authenticated with, by scheme (`request.principal`, set by authentication, which runs
 * before); an anonymous request (a public endpoint called without credentials) is counted
 * by its client address instead. Scope `address`: the client address (`request.ip`, the
 * peer of the connection: behind a proxy every client shares the proxy's address). An
 * override without its own scope takes the main limit's.
 *
 * The window: a fixed window per client and policy, opened by the client's first request
 * and closed `window` later; at most `limit` requests are admitted in it. The count is
 * checked and taken in one synchronous step of the onRequest phase, so a concurrent burst
 * can never pass more than `limit`. Windows start per client rather than on the clock's
 * minute, so clients do not all come back at the same moment (draft §8.5). A refused
 * request takes nothing from the count. A fixed window can admit up to twice the limit
 * across the boundary of two windows; it is the simplest scheme that keeps the promise
 * "no more than `limit` in a window", and it needs one small record per client.
 *
 * The fields (draft-ietf-httpapi-ratelimit-headers-11, §3 and §4), on every answer of a
 * limited endpoint, successes and errors alike (set in onRequest, so error answers keep them):
 *   RateLimit-Policy: "default";q=100;w=60       q the limit, w the window in seconds (rounded up)
 *   RateLimit: "default";r=42;t=17               r what is left, t seconds until the window closes
 * and on the 429 (the `rate-limited` situation, in the declared error shape), Retry-After
 * (RFC 9110 §10.2.3, delta-seconds) with the same seconds as `t`, as the draft's §6 asks.
 * No partition key (`pk`) is sent: it would echo the credential or the address.
 * Requests that versioning or authentication refuse (400, 410, 401, 403) are answered
 * before the rate limit, so they carry no fields and are not counted (a refused request
 * has no credential to count against; the service's own secrets are 256 random bits, so
 * slowing down guesses is not what this limit is for).
 *
 * Why not @fastify/rate-limit (v10): it sends `x-ratelimit-*` fields or, with
 * `enableDraftSpec`, the draft-06 `RateLimit-Limit`/`-Remaining`/`-Reset` fields, not the
 * structured `RateLimit` and `RateLimit-Policy` of the current draft with policy names;
 * its 429 comes from its own error builder rather than our error catalog; it reads
 * `Date.now` instead of the app's clock (tests pass a fake one); and it is not a dependency.
 * What is needed is a map lookup and a counter, written here.
 *
 * Where the counts live (a RateCounter): by default in the memory of the process, where
 * the check and the take are one synchronous step, and closed windows are swept
 * periodically so memory holds only the clients seen lately. Several instances behind a
 * balancer would each count on their own there, so `serve` gives them a shared counter
 * instead (./shared.ts: Redis, or the PostgreSQL store's own table), in which the check and
 * the take are one atomic operation of the shared server: a burst spread across instances
 * is admitted up to the limit, never beyond.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { RateLimit, Spec } from '../../spec/model.ts';
import { ratePolicyFields, type RatePolicyFields } from '../../spec/conventions/rate.ts';
import { rateHeadersPromise } from '../../spec/conventions/promises.ts';
import { formatDuration } from '../../spec/units.ts';
import type { ServeContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import type { Principal } from '../principal.ts';

/** The longest time between two sweeps of closed windows. */
const SWEEP_MAX_MS = 60_000;

export interface RatePolicy extends RatePolicyFields {
  /** Open windows by client key (the memory counter's). */
  readonly windows: Map<string, RateWindow>;
}

/** A request taken against a window: whether it was admitted, the window's count after it, and when it closes. */
export interface RateTake {
  readonly admitted: boolean;
  /** Requests admitted in the window, this one included when admitted. */
  readonly used: number;
  /** Epoch ms. */
  readonly closesAt: number;
}

/**
 * Where windows are counted. `take` checks and takes in one atomic step: admitted only while
 * fewer than `limit` were admitted in the window; a refused request takes nothing. The
 * memory counter answers synchronously; a shared one (./shared.ts) with a promise.
 */
export interface RateCounter {
  /** What the start-up banner names ('memory', 'Redis redis://…', 'PostgreSQL'). */
  readonly where: string;
  take(policy: RatePolicy, key: string, now: number): RateTake | Promise<RateTake>;
  close?(): Promise<void>;
}

/** The counter of one process: its policies' window maps. */
export const memoryCounter: RateCounter = {
  where: 'memory (this process only)',
  take(policy, key, now) {
    let window = policy.windows.get(key);
    if (window === undefined) policy.windows.set(key, (window = { closesAt: now + policy.windowMs, used: 0 }));
    else if (window.closesAt <= now) {
      window.closesAt = now + policy.windowMs;
      window.used = 0;
    }
    if (window.used >= policy.limit) return { admitted: false, used: window.used, closesAt: window.closesAt };
    window.used++;
    return { admitted: true, used: window.used, closesAt: window.closesAt };
  },
};

interface RateWindow {
  /** Epoch ms at which the window closes. */
  closesAt: number;
  /** Requests admitted in it. */
  used: number;
}

/** The policy of every limited endpoint, by endpoint id, each with its counters; empty when the spec declares no rate limit. */
export function ratePolicies(spec: Spec): Map<string, RatePolicy> {
  const counted = new Map<RatePolicyFields, RatePolicy>();
  const byEndpoint = new Map<string, RatePolicy>();
  for (const [endpoint, fields] of ratePolicyFields(spec)) {
    let policy = counted.get(fields);
    if (policy === undefined) counted.set(fields, (policy = { ...fields, windows: new Map() }));
    byEndpoint.set(endpoint, policy);
  }
  return byEndpoint;
}

/**
 * The keys of principals: authentication hands out one Principal object per credential for
 * as long as it is cached, so the key is built (and hashed by the Map) once, not per request.
 */
const principalKeys = new WeakMap<Principal, string>();

/** Whom a request counts against: its credential (by scheme), else its client address. */
export function rateKey(scope: RateLimit['scope'], request: Pick<FastifyRequest, 'principal' | 'ip'>): string {
  const principal = request.principal;
  if (scope !== 'credential' || principal === undefined) return request.ip;
  let key = principalKeys.get(principal);
  // A space never occurs in an address, so a credential key never equals an address key.
  if (key === undefined) principalKeys.set(principal, (key = `${principal.scheme} ${principal.credential}`));
  return key;
}

export function registerRateLimits(app: FastifyInstance, ctx: ServeContext, counter: RateCounter = memoryCounter): void {
  const policies = ratePolicies(ctx.spec);
  if (policies.size === 0) return;
  // limits.rate.headers (src/spec/conventions/promises.ts): `none` sends only the 429 and its Retry-After.
  const fields = rateHeadersPromise(ctx.spec).value === 'ratelimit';
  const now = ctx.now;
  // A route-level onRequest hook for each limited endpoint, bound to its policy once: it runs
  // after every app-level onRequest hook (authentication included), and unlimited routes
  // pay nothing.
  app.addHook('onRoute', (route) => {
    const endpoint = route.config?.endpoint;
    const limited = endpoint && policies.get(endpoint.id);
    if (!limited) return;
    const hook: onRequestHookHandler = (request, reply, done) => {
      const at = now();
      const taken = counter.take(limited, rateKey(limited.scope, request), at);
      if (!(taken instanceof Promise)) return answer(limited, taken, at, reply, done, fields);
      // A shared counter that cannot be reached fails the request (500, logged): admitting it
      // would break the limit's promise, refusing it with 429 would blame the client.
      taken.then((t) => answer(limited, t, at, reply, done, fields), (error: unknown) => done(error as Error));
    };
    route.onRequest = [...(route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]), hook];
  });
  const distinct = [...new Set(policies.values())];
  const every = Math.min(SWEEP_MAX_MS, Math.max(1000, Math.min(...distinct.map((p) => p.windowMs))));
  const sweeper = setInterval(() => sweepClosed(distinct, now()), every);
  sweeper.unref();
  app.addHook('onClose', async () => clearInterval(sweeper));
}

/** Answers a request as its take decided: admitted, or refused with 429; sets the fields either way. */
function answer(policy: RatePolicy, window: RateTake, now: number, reply: FastifyReply, done: HookHandlerDoneFunction, fields = true): void {
  // draft §4.1.2: t in whole seconds; rounded up, so a client waiting t finds the window closed.
  const t = Math.max(0, Math.ceil((window.closesAt - now) / 1000));
  // Where the spec states `headers: none`, no fields are sent (src/spec/conventions/promises.ts).
  if (fields) void reply.header('ratelimit-policy', policy.field);
  if (!window.admitted) {
    if (fields) void reply.header('ratelimit', `${policy.item};r=0;t=${t}`);
    done(
      new HttpError('rate-limited', {
        detail: `The rate limit of ${policy.limit} requests in ${formatDuration(policy.windowMs)} is used up; retry in ${t} s.`,
        headers: { 'retry-after': String(t) },
      }),
    );
    return;
  }
  if (fields) void reply.header('ratelimit', `${policy.item};r=${Math.max(0, policy.limit - window.used)};t=${t}`);
  done();
}

/** Forgets closed windows: a client that comes back opens a fresh one anyway. */
export function sweepClosed(policies: readonly RatePolicy[], now: number): void {
  for (const p of policies) for (const [key, window] of p.windows) if (window.closesAt <= now) p.windows.delete(key);
}
