/**
 * Idempotency keys on POST (draft-ietf-httpapi-idempotency-key-header-06), as the spec
 * states them (limits.idempotency: the header, the lifetime, the scope; where it is silent the
 * runtime default of src/spec/conventions/promises.ts; with `none`, no key is honoured): the first
 * successful response to a key is stored with a fingerprint of the request and replayed,
 * marked `Idempotency-Replayed: true`, for a repeat of the same request; the same key with
 * a different request is 422 `idempotency-key-reused` (§2.7). Keys live the
 * stated lifetime: expired lazily on look-up, and by a periodic sweep.
 *
 * Choices where the draft leaves room:
 *   - The key is a Structured Field string (§2.1, `"abc"`); a bare token (`abc`) is accepted
 *     too, as most clients send one. 1 to 255 visible ASCII characters, else validation-failed.
 *   - Keys are scoped per principal, method and path (the store's scope); the fingerprint is
 *     a SHA-256 of method, path, the canonical body (keys sorted), principal and API version
 *     (part 9): the same key sent again in another version is a different request, refused
 *     rather than answered with the other version's representation.
 *   - Only 2xx responses are stored: a refused request did nothing, so its retry runs again.
 *   - A repeat that arrives while the first is still running (§2.6 suggests 409) waits for it
 *     in this process and is then replayed: no new situation, and the client gets its answer.
 *     Across processes (PostgreSQL) the store has no reservation, so two may both run.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { idempotencyPromise } from '../spec/conventions/promises.ts';
import type { Store } from '../store/store.ts';
import type { ServeContext } from './context.ts';
import { HttpError } from './errors.ts';
import { answered } from './limits/timeout.ts';
import { JSON_TYPE, JsonText, jsonOf, type Outcome } from './representation.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotency-replayed';

export interface IdempotencyOptions {
  /** Who is asking (default: the authenticated principal). Part of the scope and the fingerprint. */
  readonly principalOf?: (request: FastifyRequest) => string | undefined;
  /** Keys older than this are forgotten; the spec's lifetime by default. */
  readonly ttlMs?: number;
}

/** Sends an outcome: a JSON body, or none; nothing when the time-out has answered already. */
export function sendOutcome(reply: FastifyReply, outcome: Outcome): FastifyReply {
  if (answered(reply)) return reply;
  void reply.code(outcome.status).headers(outcome.headers);
  const body = outcome.body;
  if (body === undefined) return reply.send();
  // Fastify sends a string as it is once the type is set; an object it serializes itself.
  return body instanceof JsonText ? reply.type(JSON_TYPE).send(body.text) : reply.send(body);
}

/** The key of a request, or undefined; a malformed key is a validation error on the header. */
export function parseIdempotencyKey(raw: string | string[] | undefined, header = IDEMPOTENCY_HEADER): string | undefined {
  if (raw === undefined) return undefined;
  const name = header.toLowerCase();
  const bad = (message: string) => new HttpError('validation-failed', { detail: `The ${header} header is not valid.`, errors: [{ pointer: `/headers/${name}`, message }] });
  if (Array.isArray(raw)) throw bad('must be sent once');
  const quoted = /^"(.*)"$/.exec(raw);
  const key = quoted ? quoted[1] : raw;
  // An sf-string escapes only `"` and `\`; neither belongs in a key, so none is unescaped here.
  if (key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key) || (quoted && /["\\]/.test(key))) {
    throw bad('must be 1 to 255 visible ASCII characters (a UUID, say), optionally in double quotes');
  }
  return key;
}

/**
 * JSON with object keys sorted, so two equal bodies written in another order fingerprint
 * alike. Written with a stack of its own, not by recursion: the fingerprint is taken before
 * the body is validated, and a body nested thousands of levels deep (within the body limit)
 * must cost memory, not the call stack (it was a 500: RangeError).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // A string on the stack is written as it is; a Value is a JSON value still to write.
  const stack: (string | Value)[] = [new Value(value)];
  while (stack.length > 0) {
    const item = stack.pop() as string | Value;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const v = item.v;
    if (Array.isArray(v)) {
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(new Value(v[i]));
        if (i > 0) stack.push(',');
      }
      out.push('[');
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, m]) => m !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      stack.push('}');
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push(new Value(entries[i][1]), `${JSON.stringify(entries[i][0])}:`);
        if (i > 0) stack.push(',');
      }
      out.push('{');
    } else if (v !== undefined) {
      out.push(JSON.stringify(v));
    }
  }
  return out.join('');
}

class Value {
  readonly v: unknown;
  constructor(v: unknown) {
    this.v = v;
  }
}

export function fingerprintOf(method: string, path: string, body: unknown, principal: string | undefined, version?: string): string {
  const parts = [method, path, canonicalJson(body), principal ?? ''];
  // Only when versioned, so the fingerprints of an unversioned service stay as they were.
  if (version !== undefined) parts.push(version);
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url');
}

/** Requests running now, per store and scoped key: a repeat waits for the first. */
const running = new WeakMap<Store, Map<string, Promise<void>>>();

function runningIn(store: Store): Map<string, Promise<void>> {
  let m = running.get(store);
  if (!m) running.set(store, (m = new Map()));
  return m;
}

/**
 * Wraps a POST handler that returns its response as data. Without the header the handler
 * simply runs; with it, the first 2xx outcome is stored and repeats are replayed.
 */
export function idempotent(ctx: ServeContext, run: (request: FastifyRequest) => Promise<Outcome>, options: IdempotencyOptions = {}): RouteHandlerMethod {
  const promise = idempotencyPromise(ctx.spec).value;
  // `idempotency: { none: … }`: the header means nothing here; every request runs.
  if (!promise) return async (request, reply) => sendOutcome(reply, await run(request));
  const ttl = options.ttlMs ?? promise.lifetimeMs;
  const header = promise.header.toLowerCase();
  return async (request, reply) => {
    const key = request.method === 'POST' ? parseIdempotencyKey(request.headers[header], promise.header) : undefined;
    if (key === undefined) return sendOutcome(reply, await run(request));
    // Scope `address`: keys are the client address's, whoever the caller is.
    const principal = options.principalOf ? options.principalOf(request) : promise.scope === 'address' ? `address ${request.ip}` : request.principal?.id;
    const scope = `${principal ?? ''} ${request.method} ${request.url}`;
    const fingerprint = fingerprintOf(request.method, request.url, request.body, principal, request.apiVersion);
    return sendOutcome(reply, await once(ctx, { scope, key, fingerprint, ttl }, () => run(request)));
  };
}

interface KeyUse {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly ttl: number;
}

async function once(ctx: ServeContext, use: KeyUse, run: () => Promise<Outcome>): Promise<Outcome> {
  const inFlight = runningIn(ctx.store);
  const slot = `${use.scope}\n${use.key}`;
  for (let first = inFlight.get(slot); first; first = inFlight.get(slot)) await first;
  // No await between the loop and here: this request now holds the slot.
  let release = (): void => {};
  inFlight.set(slot, new Promise<void>((resolve) => (release = resolve)));
  try {
    const stored = await lookup(ctx, use);
    if (stored) return stored;
    const outcome = await run();
    if (outcome.status >= 200 && outcome.status < 300) {
      await ctx.store.putIdempotent(use.scope, use.key, {
        fingerprint: use.fingerprint,
        status: outcome.status,
        headers: { ...outcome.headers },
        body: outcome.body === undefined ? '' : jsonOf(outcome.body),
        createdAt: ctx.now(),
      });
    }
    return outcome;
  } finally {
    inFlight.delete(slot);
    release();
  }
}

/** The stored response for a key as a replay, or undefined; a different request is refused. */
async function lookup(ctx: ServeContext, use: KeyUse): Promise<Outcome | undefined> {
  let stored = await ctx.store.getIdempotent(use.scope, use.key);
  if (stored && stored.createdAt <= ctx.now() - use.ttl) {
    // Expired: forget it (and any other expired key) so the key can be stored afresh.
    await ctx.store.expireIdempotent(ctx.now() - use.ttl + 1);
    stored = undefined;
  }
  if (!stored) return undefined;
  if (stored.fingerprint !== use.fingerprint) {
    throw new HttpError('idempotency-key-reused', {
      detail: 'This Idempotency-Key was used for a different request; use a new key for a new request.',
    });
  }
  return { status: stored.status, headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' }, body: stored.body === '' ? undefined : new JsonText(stored.body) };
}

/**
 * Forgets expired keys periodically, besides the lazy expiry on look-up. The timer is
 * unref'd (it never keeps the process alive) and stopped when the app closes.
 */
export function startIdempotencySweep(app: FastifyInstance, ctx: ServeContext, options: { ttlMs?: number; everyMs?: number } = {}): void {
  const promise = idempotencyPromise(ctx.spec).value;
  if (!promise) return;
  const ttl = options.ttlMs ?? promise.lifetimeMs;
  const every = options.everyMs ?? Math.min(ttl, 3_600_000);
  const timer = setInterval(() => {
    ctx.store.expireIdempotent(ctx.now() - ttl).catch((err: unknown) => app.log.warn({ err }, 'idempotency sweep failed'));
  }, every);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
