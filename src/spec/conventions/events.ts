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
