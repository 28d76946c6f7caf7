/**
 * The body of a webhook delivery without CloudEvents (docs/events.md, the Standard Webhooks
 * payload structure): the event's type, when its change was committed (RFC 3339, UTC,
 * milliseconds) and its payload. serve writes it, the AsyncAPI export describes it, the
 * tester and the proxy hold deliveries to it: stated once, here.
 */
export const WEBHOOK_BODY_MEMBERS = ['type', 'timestamp', 'data'] as const;

export interface WebhookBody {
  readonly type: string;
  readonly timestamp: string;
  readonly data: unknown;
}

export function webhookBody(type: string, timestamp: string, data: unknown): WebhookBody {
  return { type, timestamp, data };
}

/**
 * The subscription API of `webhooks.subscriptions: api` under its `path` (docs/events.md
 * "Subscriptions"): serve routes these, guarded like endpoints (src/serve/events), and export
 * describes them. `answer`: the success status and what it carries.
 */
export interface SubscriptionRoute {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** After the webhooks path. */
  readonly suffix: string;
  readonly summary: string;
  readonly request?: 'subscription';
  readonly answer: { readonly status: number; readonly body: 'subscription' | 'subscription-with-secret' | 'subscriptions' | 'deliveries' | 'delivery' | 'none' };
}

export const SUBSCRIPTION_ROUTES: readonly SubscriptionRoute[] = [
  { id: 'webhooks.create', method: 'POST', suffix: '', summary: 'Subscribe a receiver URL to events; the answer shows its signing secret, once.', request: 'subscription', answer: { status: 201, body: 'subscription-with-secret' } },
  { id: 'webhooks.list', method: 'GET', suffix: '', summary: "The caller's subscriptions, oldest first.", answer: { status: 200, body: 'subscriptions' } },
  { id: 'webhooks.read', method: 'GET', suffix: '/{id}', summary: 'One of the caller\'s subscriptions.', answer: { status: 200, body: 'subscription' } },
  { id: 'webhooks.delete', method: 'DELETE', suffix: '/{id}', summary: 'Unsubscribe; pending deliveries are dropped.', answer: { status: 204, body: 'none' } },
  { id: 'webhooks.rotate', method: 'POST', suffix: '/{id}/rotate-secret', summary: 'A new signing secret; the old one signs beside it for 24 hours.', answer: { status: 200, body: 'subscription-with-secret' } },
  { id: 'webhooks.deliveries', method: 'GET', suffix: '/{id}/deliveries', summary: 'Its deliveries, newest first, at most 100; `?status=pending|delivered|dead`.', answer: { status: 200, body: 'deliveries' } },
  { id: 'webhooks.replay', method: 'POST', suffix: '/{id}/deliveries/{delivery}/replay', summary: 'Deliver again (a dead delivery, or one the receiver lost), under the same webhook-id.', answer: { status: 202, body: 'delivery' } },
];
