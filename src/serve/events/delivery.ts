/**
 * Webhook delivery, at least once (docs/events.md "Delivery is at least once"). It runs
 * apart from request handling: request handlers only append to the event log (in their
 * write's transaction) and ring the bus; this worker, woken by the bus, by the due time of
 * the next retry, or by a poll (for changes made by another process, `svcspec webhooks
 * replay` say), does the rest from the store:
 *
 *   fan-out   events after the dispatch cursor become one delivery per subscription that
 *             existed before the event, wants its type, may see it and has its version;
 *             the deliveries and the moved cursor commit together
 *   claim     due deliveries, at most `concurrency` in flight, each leased past its time-out
 *   attempt   POST, signed; 2xx within the time-out is delivered; 410 disables the
 *             subscription; anything else is retried with backoff and jitter (Retry-After
 *             honoured when longer) until the attempts run out, then the delivery is dead
 *
 * A slow receiver holds one of the `concurrency` slots, never a request. Nothing is in
 * memory that a crash could lose: a delivery in flight when the process dies is due again
 * when its lease runs out, and keeps its webhook-id (the event's id).
 *
 * Revocation: a subscription made with a credential (an API key, a client) is disabled as
 * soon as the worker finds that credential revoked — before fanning events out to it, and
 * before each attempt — with the reason listed; its pending deliveries wait, as for a 410.
 * The worker looks at least every `pollMs` (1 s), so a revocation takes effect within a
 * second here too (README: "a revocation takes effect within a second").
 *
 * Stopping (SIGTERM, app.close()) drains: no new claim, and the attempts in flight get up to
 * DRAIN_MS to finish and be settled as usual. Any still running then is aborted and released:
 * pending again, due at once, its attempt not counted, so the next start sends it again under
 * the same webhook-id. A SIGKILL leaves it leased instead, due when the lease runs out.
 */
import { randomBytes } from 'node:crypto';
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { FastifyBaseLogger } from 'fastify';
import { SAFETY } from '../../spec/defaults.ts';
import type { RetryPolicy, Spec } from '../../spec/model.ts';
import type { ClaimedDelivery, EventRecord, SubscriptionRecord } from '../../store/events.ts';
import type { Store } from '../../store/store.ts';
import type { EventBus } from './emit.ts';
import { envelope, eventId } from './envelope.ts';
import { Attempt, post } from './post.ts';
import { signedHeaders } from './signing.ts';
import { visibility, type Viewer } from './visibility.ts';

// Not `import … from 'node:http'`: an ES import builds the module's ES facade, which reads every
// export, and so the lazy WebSocket/EventSource getters that load undici (~60 ms of every start).
// getBuiltinModule hands over the CommonJS module, as require() does.
const { Agent: HttpAgentClass } = process.getBuiltinModule('node:http');
const { Agent: HttpsAgentClass } = process.getBuiltinModule('node:https');

export interface DeliveryOptions {
  readonly spec: Spec;
  readonly store: Store;
  readonly bus: EventBus;
  readonly now?: () => number;
  /** Lift the SSRF guard (serve --allow-private-webhooks). */
  readonly allowPrivate?: boolean;
  /** Attempts in flight at once, per process. */
  readonly concurrency?: number;
  /** How often the store is looked at when nothing rang: other processes' changes. */
  readonly pollMs?: number;
  /** Draws the jitter; tests pass a fixed one. */
  readonly random?: () => number;
  readonly log?: FastifyBaseLogger;
}

export const DELIVERY_CONCURRENCY = 8;
/** A claimed delivery's lease runs this long past its time-out before another claim may take it. */
const LEASE_GRACE_MS = 1_000;
/** Events fanned out per transaction. */
const FAN_OUT_BATCH = 500;
/** How long stopping waits for the attempts in flight before releasing them (see the header). */
export const DRAIN_MS = 5_000;

export class DeliveryWorker {
  readonly #o: Required<Omit<DeliveryOptions, 'log'>> & { log?: FastifyBaseLogger };
  readonly #policy: Required<Omit<RetryPolicy, 'pointer' | 'maxDelayMs'>> & { maxDelayMs: number };
  readonly #timeoutMs: number;
  readonly #visible: ReturnType<typeof visibility>;
  /** Attempts in flight, each with its cancel and its settling. */
  readonly #inFlight = new Map<Attempt, Promise<void>>();
  /** Set when the drain's time is up: attempts aborted from then on are released. */
  #releasing = false;
  /**
   * Connections to receivers are kept alive between deliveries. The SSRF guard is in the
   * lookup of each new connection, so a kept one goes on to the address that was checked.
   */
  readonly #agents: { readonly http: HttpAgent; readonly https: HttpsAgent };
  #running = false;
  /** The last fan-out found no subscription enabled. */
  #nobody = false;
  /** When the subscriptions' credentials were last looked at (#fanOut). */
  #revocationsAt = Number.NEGATIVE_INFINITY;
  #soon = false;
  #again = false;
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #unlisten: (() => void) | undefined;

  constructor(options: DeliveryOptions) {
    this.#o = { now: Date.now, allowPrivate: false, concurrency: DELIVERY_CONCURRENCY, pollMs: 1_000, random: Math.random, ...options };
    const retry = options.spec.events.retry ?? SAFETY.retry;
    this.#policy = { attempts: Math.max(1, retry.attempts), backoff: retry.backoff, initialDelayMs: retry.initialDelayMs, maxDelayMs: retry.maxDelayMs ?? Number.POSITIVE_INFINITY };
    this.#timeoutMs = options.spec.events.webhooks?.timeoutMs ?? SAFETY.webhookTimeoutMs;
    this.#visible = visibility(options.spec);
    const agent = { keepAlive: true, maxSockets: this.#o.concurrency, maxFreeSockets: this.#o.concurrency };
    this.#agents = { http: new HttpAgentClass(agent), https: new HttpsAgentClass(agent) };
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    // An append with nobody subscribed has nothing to fan out: it is not looked at, and writes
    // with events then cost no read (callgrind: the outbox's wake, its read of the subscriptions
    // and its timer, per turn). A subscription made through this service's API wakes the worker
    // (wake()); one made by another process (`svcspec webhooks add`, another instance) is found
    // by the next poll, and receives every event after it all the same (its createdSeq).
    this.#unlisten = this.#o.bus.listen(() => {
      if (!this.#nobody) this.wake();
    });
    this.wake();
  }

  /** Stops claiming and drains the attempts in flight (see the header); resolves when every one is settled or released. */
  async stop(drainMs = DRAIN_MS): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
      await Promise.race([Promise.allSettled(this.#inFlight.values()), late]);
      clearTimeout(timer);
      this.#releasing = true;
      if (this.#inFlight.size > 0) this.#o.log?.warn({ deliveries: this.#inFlight.size, drainMs }, 'webhook delivery: attempts still running at shutdown are released, to be sent again at the next start');
      for (const a of this.#inFlight.keys()) a.cancel();
      await Promise.allSettled(this.#inFlight.values());
    }
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  wake(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.#run();
  }

  /** One wake for every attempt that ends in this turn: their free slots are claimed together. */
  #wakeSoon(): void {
    if (this.#soon) return;
    this.#soon = true;
    setImmediate(() => {
      this.#soon = false;
      this.wake();
    });
  }

  async #run(): Promise<void> {
    try {
      do {
        this.#again = false;
        if (await this.#fanOut()) this.#again = true;
        // No subscription enabled: there is nothing a claim could take (it takes only enabled
        // ones' deliveries). Writes with events and nobody subscribed then cost one read a wake.
        if (!this.#nobody) await this.#claim();
      } while (this.#again && !this.#stopped);
    } catch (err) {
      // The store failed (a locked or closed database): logged, and tried again at the next poll.
      if (!this.#stopped) this.#o.log?.error({ err }, 'webhook delivery: the store failed');
    } finally {
      this.#running = false;
      if (!this.#stopped) await this.#schedule().catch(() => undefined);
    }
  }

  /** Fans out one batch; true when there may be more. */
  async #fanOut(): Promise<boolean> {
    const { store } = this.#o;
    const subscriptions = (await store.events.listSubscriptions()).filter((s) => s.status === 'enabled');
    this.#nobody = subscriptions.length === 0;
    // Nobody to deliver to: nothing is written. A subscription made later receives only the
    // events after it (createdSeq), so the cursor can start there instead of catching up.
    if (subscriptions.length === 0) return false;
    // A revoked credential's subscriptions are disabled within a poll (a second) even while no
    // event comes to fan out, so what `webhooks list` shows is true (README, docs/events.md).
    const checkedAt = this.#o.now();
    let kept: SubscriptionRecord[] | undefined;
    if (checkedAt - this.#revocationsAt >= this.#o.pollMs) {
      this.#revocationsAt = checkedAt;
      kept = [];
      for (const s of subscriptions) if (!(await this.#revoked(s))) kept.push(s);
    }
    const at = await store.events.dispatched();
    const from = Math.max(at, Math.min(...subscriptions.map((s) => s.createdSeq)));
    const batch = await store.events.after(from, FAN_OUT_BATCH);
    if (batch.length === 0) return false;
    const now = this.#o.now();
    const deliveries = [];
    // Each subscription's credential is looked at once a fan-out (already, where the poll's check ran above).
    let live = kept;
    if (live === undefined) {
      live = [];
      for (const s of subscriptions) if (!(await this.#revoked(s))) live.push(s);
    }
    for (const event of batch) {
      for (const s of live) {
        if (wants(s, event) && this.#visible(event, viewerOf(s))) deliveries.push({ id: '', subscriptionId: s.id, eventSeq: event.seq, createdAt: now });
      }
    }
    const ids = deliveryIds(deliveries.length, now);
    for (let i = 0; i < deliveries.length; i++) deliveries[i].id = ids[i];
    const moved = await store.events.fanOut(at, (batch.at(-1) as EventRecord).seq, deliveries);
    // Another process moved the cursor first: look again from where it is now. Moved by us: more
    // only if the batch was full; an event appended since rings the bus, which runs #run again
    // (#again), so a short batch needs no second look, which cost three reads per wake under load.
    return !moved || batch.length === FAN_OUT_BATCH;
  }

  async #claim(): Promise<void> {
    const free = this.#o.concurrency - this.#inFlight.size;
    if (free <= 0 || this.#stopped) return;
    const now = this.#o.now();
    const claimed = await this.#o.store.events.claimDue(now, free, now + this.#timeoutMs + LEASE_GRACE_MS);
    // Stopped while claiming: what was just leased goes back at once rather than wait out its lease.
    for (const c of claimed) {
      if (this.#stopped) void this.#release(c).catch(() => undefined);
      else this.#attempt(c);
    }
  }

  async #schedule(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    // Nobody enabled: nothing is due either (nextDue counts enabled subscriptions' deliveries); the poll looks again.
    const due = this.#nobody ? undefined : await this.#o.store.events.nextDue();
    const wait = due === undefined ? this.#o.pollMs : Math.min(this.#o.pollMs, Math.max(0, due - this.#o.now()));
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.wake(), wait);
    // The listening server keeps the process alive, not this timer.
    this.#timer.unref();
  }

  #attempt(c: ClaimedDelivery): void {
    const attempt = new Attempt();
    const settled = this.#deliver(c, attempt)
      .catch((err) => this.#o.log?.error({ err }, 'webhook delivery: settling an attempt failed'))
      .finally(() => {
        this.#inFlight.delete(attempt);
        this.#wakeSoon();
      });
    this.#inFlight.set(attempt, settled);
  }

  /**
   * Whether the credential the subscription was made with is revoked; if so the subscription
   * is disabled now, with the reason (see the header).
   */
  async #revoked(s: SubscriptionRecord): Promise<boolean> {
    if (s.credential === undefined) return false;
    const credential = await this.#o.store.credentials.get(s.credential);
    if (credential?.revokedAt === undefined) return false;
    await this.#o.store.events.changeSubscription(s.id, { status: 'disabled', disabledReason: `the credential it was made with (${s.credential}) was revoked` });
    this.#o.log?.info({ subscription: s.id, credential: s.credential }, 'webhook subscription disabled: its credential was revoked');
    return true;
  }

  async #deliver(c: ClaimedDelivery, attempt: Attempt): Promise<void> {
    const { spec, store } = this.#o;
    const { delivery, event, subscription } = c;
    // Revoked since the fan-out: not sent; pending again, waiting with its disabled subscription.
    if (await this.#revoked(subscription)) return this.#release(c);
    const at = this.#o.now();
    const body = envelope(spec, event, subscription.apiVersion);
    const id = eventId(event.seq);
    const headers: Record<string, string> = {
      'content-type': body.contentType,
      'user-agent': 'svcspec-webhooks',
      ...(spec.events.webhooks?.signing === 'standard-webhooks' ? signedHeaders(subscription.secrets, id, at, body.text) : { 'webhook-id': id }),
    };
    const answer = await post(subscription.url, headers, body.text, this.#timeoutMs, attempt, this.#o.allowPrivate, this.#agents);
    // Aborted by stopping (the drain's time was up): released, not counted as an attempt.
    if (attempt.cancelled && this.#releasing) return this.#release(c);
    const attempts = delivery.attempts + 1;
    const done = this.#o.now();
    if (answer.status !== undefined && answer.status >= 200 && answer.status < 300) {
      await store.events.settle(delivery.id, { status: 'delivered', attempts, lastStatus: answer.status, deliveredAt: done });
      return;
    }
    const lastError = answer.error ?? `the receiver answered ${answer.status}`;
    if (answer.status === 410) {
      // RFC 9110 §15.5.11: gone for good. The subscription stops; its deliveries wait, listed.
      await store.events.changeSubscription(subscription.id, { status: 'disabled', disabledReason: `${subscription.url} answered 410 Gone` });
      await store.events.settle(delivery.id, { status: 'dead', attempts, lastStatus: 410, lastError });
      return;
    }
    const status = answer.status !== undefined ? { lastStatus: answer.status } : {};
    if (attempts >= this.#policy.attempts) {
      await store.events.settle(delivery.id, { status: 'dead', attempts, ...status, lastError });
      return;
    }
    const wait = Math.max(this.#backoff(attempts), answer.retryAfterMs ?? 0);
    await store.events.settle(delivery.id, { status: 'pending', attempts, nextAttemptAt: done + wait, ...status, lastError });
  }

  /** Makes a claimed delivery pending again, due now, its attempts as they were. */
  async #release(c: ClaimedDelivery): Promise<void> {
    const d = c.delivery;
    await this.#o.store.events.settle(d.id, {
      status: 'pending', attempts: d.attempts, nextAttemptAt: this.#o.now(),
      ...(d.lastStatus !== undefined ? { lastStatus: d.lastStatus } : {}),
      ...(d.lastError !== undefined ? { lastError: d.lastError } : {}),
    });
  }

  /** The wait after the n-th failed attempt: the policy's, capped, from the upper half ("equal jitter"). */
  #backoff(n: number): number {
    const p = this.#policy;
    const full = Math.min(p.maxDelayMs, p.backoff === 'fixed' ? p.initialDelayMs : p.initialDelayMs * 2 ** (n - 1));
    return Math.round(full / 2 + (this.#o.random() * full) / 2);
  }
}

/**
 * Ids of new deliveries: `dlv_`, the time in hex (12 digits, ordered as text), and 12 random
 * bytes. Ordered by time, a fan-out's ids go at the end of the deliveries' primary key index,
 * on the pages the last fan-outs wrote, rather than on a random page each (a page written to
 * the WAL per delivery, as the table grows); the random part keeps two processes' ids apart.
 * The random bytes of a fan-out are drawn at once.
 */
function deliveryIds(n: number, now: number): string[] {
  if (n === 0) return [];
  const random = randomBytes(12 * n);
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0');
  const ids: string[] = new Array(n);
  for (let i = 0; i < n; i++) ids[i] = `dlv_${time}${random.toString('base64url', 12 * i, 12 * i + 12)}`;
  return ids;
}

function wants(s: SubscriptionRecord, event: EventRecord): boolean {
  if (event.seq <= s.createdSeq) return false;
  if (s.events.length > 0 && !s.events.includes(event.name)) return false;
  return Object.hasOwn(event.payloads, s.apiVersion ?? '');
}

function viewerOf(s: SubscriptionRecord): Viewer {
  return s.principal === undefined ? 'operator' : { principal: s.principal, scopes: s.scopes ?? [] };
}
