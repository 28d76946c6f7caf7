/**
 * The rows of the event log and webhook tables as both adapters keep them
 * (src/store/sqlite-events.ts, src/store/postgres-events.ts), and their reading as records.
 * Times and positions are numbers in SQLite and BIGINT text from PostgreSQL's client.
 */
import type { DeliveryRecord, DeliveryStatus, EventRecord, SubscriptionRecord, SubscriptionSecret, SubscriptionStatus } from './events.ts';

export type EventRow = { seq: number | string; name: string; resource: string; record_id: string; owner: string | null; payloads: string; created_at: number | string };
export type SubscriptionRow = {
  id: string; url: string; events: string; description: string | null; status: string; api_version: string | null; principal: string | null;
  scopes: string | null; secrets: string; created_at: number | string; created_seq: number | string; disabled_reason: string | null; credential: string | null;
};
export type DeliveryRow = {
  id: string; subscription_id: string; event_seq: number | string; status: string; attempts: number; next_attempt_at: number | string | null;
  last_status: number | null; last_error: string | null; created_at: number | string; delivered_at: number | string | null; event_name: string;
};

export const EVENT_COLUMNS = 'seq, name, resource, record_id, owner, payloads, created_at';
export const SUBSCRIPTION_COLUMNS = 'id, url, events, description, status, api_version, principal, scopes, secrets, created_at, created_seq, disabled_reason, credential';
/** The event's name comes from the log (never pruned), so a listed delivery says which event it carries. */
export const DELIVERY_COLUMNS = 'id, subscription_id, event_seq, (SELECT name FROM events WHERE events.seq = event_seq) AS event_name, status, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at';

export function toEvent(row: EventRow): EventRecord {
  return {
    seq: Number(row.seq), name: row.name, resource: row.resource, recordId: row.record_id,
    ...(row.owner !== null ? { owner: row.owner } : {}),
    payloads: JSON.parse(row.payloads) as Record<string, unknown>, createdAt: Number(row.created_at),
  };
}

export function toSubscription(row: SubscriptionRow): SubscriptionRecord {
  return {
    id: row.id, url: row.url, events: JSON.parse(row.events) as string[],
    ...(row.description !== null ? { description: row.description } : {}),
    status: row.status as SubscriptionStatus,
    ...(row.api_version !== null ? { apiVersion: row.api_version } : {}),
    ...(row.principal !== null ? { principal: row.principal } : {}),
    ...(row.scopes !== null ? { scopes: JSON.parse(row.scopes) as string[] } : {}),
    secrets: JSON.parse(row.secrets) as SubscriptionSecret[],
    createdAt: Number(row.created_at), createdSeq: Number(row.created_seq),
    ...(row.disabled_reason !== null ? { disabledReason: row.disabled_reason } : {}),
    ...(row.credential !== null ? { credential: row.credential } : {}),
  };
}

export function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id, subscriptionId: row.subscription_id, eventSeq: Number(row.event_seq), eventName: row.event_name, status: row.status as DeliveryStatus, attempts: row.attempts,
    ...(row.next_attempt_at !== null ? { nextAttemptAt: Number(row.next_attempt_at) } : {}),
    ...(row.last_status !== null ? { lastStatus: row.last_status } : {}),
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    createdAt: Number(row.created_at),
    ...(row.delivered_at !== null ? { deliveredAt: Number(row.delivered_at) } : {}),
  };
}
