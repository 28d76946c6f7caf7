/**
 * Standard Webhooks (https://www.standardwebhooks.com/, "Signature scheme"): each delivery is
 * signed with HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the
 * subscription's secret, by the maintained `standardwebhooks` library. Secrets are `whsec_`
 * and 24 random bytes in base64 (the library's and the spec's form). While a secret is being
 * rotated, every live secret signs: `webhook-signature` carries their signatures separated
 * by spaces, and a receiver that knows either accepts the delivery.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { SubscriptionSecret } from '../../store/events.ts';

/** How long a rotated-out secret goes on signing beside the new one (docs/events.md). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The secrets after a rotation: the new one first, the old current one until `now` + the overlap; expired ones dropped. */
export function rotated(secrets: readonly SubscriptionSecret[], now: number): SubscriptionSecret[] {
  const kept = secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now).map((s) => (s.expiresAt === undefined ? { secret: s.secret, expiresAt: now + ROTATION_OVERLAP_MS } : s));
  return [{ secret: newSecret() }, ...kept];
}

/** The three headers of a signed delivery. */
export function signedHeaders(secrets: readonly SubscriptionSecret[], id: string, at: number, body: string): Record<string, string> {
  const timestamp = new Date(Math.floor(at / 1000) * 1000);
  const live = secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > at);
  const signature = live.map((s) => new Webhook(s.secret).sign(id, timestamp, body)).join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp.getTime() / 1000), 'webhook-signature': signature };
}
