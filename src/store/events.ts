/**
 * Events (part 6) in the store: the event log (the outbox), webhook subscriptions and their
 * deliveries. docs/events.md is the behaviour this serves.
 *
 * The log is written by the record writes themselves (Store.insert/update/remove with
 * `WriteOptions.events`), in the transaction of the change: a change is never committed
 * without its events, nor an event without its change. Everything here reads that log or
 * keeps the state of delivering it; none of it is on a request's write path.
 *
 * Delivery state lives in the store, not in memory, so a restart (or a SIGKILL) loses no
 * pending delivery: a delivery is claimed with a lease (its next attempt moved past the
 * delivery time-out), and a process that dies mid-attempt leaves it due again once the
 * lease runs out. Claims and settlements are single statements or transactions, so two
 * processes on one database never attempt one delivery at once.
 */
import type { DomainStep } from './domain.ts';
import type { StoredRecord } from './store.ts';

/** An event to append to the log, made inside the write's transaction from the record written. */
export interface NewEvent {
  /** The event's name in the catalog. */
  readonly name: string;
  readonly resource: string;
  readonly recordId: string;
  /** The record's owner: who may see the event (object-level authorization). */
  readonly owner?: string;
  /** The payload per API version ('' when the spec has no versions); a version the event is not in has none. */
  readonly payloads: Readonly<Record<string, unknown>>;
  /**
   * `payloads` as JSON text, when the maker has it so: the store writes it as it is rather
   * than serialize `payloads` (which the maker then need not build: serve's payloads are
   * made from the record's stored text, src/serve/events/emit.ts).
   */
  readonly payloadsJson?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

export interface EventRecord extends NewEvent {
  /** Position in the log: increasing, never reused. The event id is `evt_<seq>`. */
  readonly seq: number;
}

/** Makes the events of a write from the record as written (a delete: as it was). */
export type EventMaker = (record: StoredRecord) => readonly NewEvent[];

export interface WriteOptions {
  /** Events to append in the write's transaction; none when absent. */
  readonly events?: EventMaker;
  /** Domain rules (guards, effects, managed values) run inside the write's transaction: ./domain.ts. */
  readonly domain?: DomainStep;
  /** insertMany and changeMany: a step per item (undefined: none for that item). */
  readonly domains?: readonly (DomainStep | undefined)[];
}

export interface SubscriptionSecret {
  /** `whsec_` and the base64 key. */
  readonly secret: string;
  /** When a rotated-out secret stops signing (epoch ms); absent for the current one. */
  readonly expiresAt?: number;
}

export type SubscriptionStatus = 'enabled' | 'disabled';

export interface SubscriptionRecord {
  readonly id: string;
  readonly url: string;
  /** Event names; empty means every event. */
  readonly events: readonly string[];
  readonly description?: string;
  readonly status: SubscriptionStatus;
  /** The API version its payloads are in; absent when the spec has none. */
  readonly apiVersion?: string;
  /** The owner key of the principal that subscribed; absent for one the operator configured (it sees every event). */
  readonly principal?: string;
  /** The principal's scopes when it subscribed; absent for the operator's. */
  readonly scopes?: readonly string[];
  /**
   * The credential it was made with (Principal.credential: an API key's id, a client id);
   * absent for the operator's and for one made before svcspec recorded it. When that
   * credential is revoked the subscription is disabled (src/serve/events/delivery.ts).
   */
  readonly credential?: string;
  /** The current secret first. */
  readonly secrets: readonly SubscriptionSecret[];
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** The last event of the log when it was created: it receives the later ones. Set by the store. */
  readonly createdSeq: number;
  /** Why it was disabled, when it was. */
  readonly disabledReason?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface DeliveryRecord {
  readonly id: string;
  readonly subscriptionId: string;
  readonly eventSeq: number;
  /** The name of the event it carries (`loan.approved`). */
  readonly eventName: string;
  readonly status: DeliveryStatus;
  /** Attempts made so far. */
  readonly attempts: number;
  /** When it is due (pending), epoch ms. */
  readonly nextAttemptAt?: number;
  readonly lastStatus?: number;
  readonly lastError?: string;
  readonly createdAt: number;
  readonly deliveredAt?: number;
}

/** A delivery claimed for an attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  readonly delivery: DeliveryRecord;
  readonly event: EventRecord;
  readonly subscription: SubscriptionRecord;
}

export interface DeliveryChange {
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt?: number;
  readonly lastStatus?: number;
  readonly lastError?: string;
  readonly deliveredAt?: number;
}

export interface EventStore {
  /** Events after `seq`, oldest first, at most `limit`. */
  after(seq: number, limit: number): Promise<readonly EventRecord[]>;
  /** The seq of the last event (0 when there is none). */
  latest(): Promise<number>;

  /** Stores a subscription (createdSeq is set to the log's last event). Fails on a taken id. */
  addSubscription(subscription: Omit<SubscriptionRecord, 'createdSeq'>): Promise<SubscriptionRecord>;
  getSubscription(id: string): Promise<SubscriptionRecord | undefined>;
  /** Oldest first; only the principal's when one is given. */
  listSubscriptions(principal?: string): Promise<readonly SubscriptionRecord[]>;
  /** Changes status or secrets; false when there is no such subscription. */
  changeSubscription(id: string, change: { readonly status?: SubscriptionStatus; readonly secrets?: readonly SubscriptionSecret[]; readonly disabledReason?: string }): Promise<boolean>;
  /** Removes it and its deliveries; false when there is none. */
  removeSubscription(id: string): Promise<boolean>;

  /** The last event already fanned out into deliveries. */
  dispatched(): Promise<number>;
  /**
   * Adds deliveries for the events after `from` up to `to`, and moves the dispatch cursor to
   * `to`, in one transaction, only if the cursor is still at `from` (another process may
   * have dispatched them): false then, and nothing is written. A delivery of an event to a
   * subscription that exists already is skipped.
   */
  fanOut(from: number, to: number, deliveries: readonly { readonly id: string; readonly subscriptionId: string; readonly eventSeq: number; readonly createdAt: number }[]): Promise<boolean>;
  /**
   * Up to `limit` pending deliveries of enabled subscriptions due at `now`, oldest due first;
   * each is leased: its next attempt moves to `leaseUntil`, so no other claim takes it meanwhile.
   */
  claimDue(now: number, limit: number, leaseUntil: number): Promise<readonly ClaimedDelivery[]>;
  /** When the next pending delivery of an enabled subscription is due; undefined when none is. */
  nextDue(): Promise<number | undefined>;
  settle(id: string, change: DeliveryChange): Promise<void>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  /** A subscription's deliveries, newest first. */
  listDeliveries(subscriptionId: string, options: { readonly status?: DeliveryStatus; readonly limit: number }): Promise<readonly DeliveryRecord[]>;
  /** Makes a delivery pending again from now, its attempts counted anew; undefined when there is none. */
  replay(id: string, now: number): Promise<DeliveryRecord | undefined>;
}
