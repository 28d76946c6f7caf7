/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, "Verifying webhook
 * authenticity"), verified here with node:crypto alone: the reference service signs with the
 * `standardwebhooks` package, and a tester that verified with the same package would share
 * its mistakes. The signed content is `<webhook-id>.<webhook-timestamp>.<body>`, the body's
 * bytes exactly as sent; the key is the base64 part of the secret after `whsec_`; the
 * `webhook-signature` header holds space-separated `v1,<base64 HMAC-SHA256>` entries, one per
 * live secret, and any one matching is enough.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far webhook-timestamp may be from the receiver's clock (the specification's tolerance). */
export const TIMESTAMP_TOLERANCE_S = 5 * 60;

export const SECRET_PREFIX = 'whsec_';

/** Why a delivery's signature does not hold, or undefined when it does. */
export function signatureProblem(secret: string, headers: Readonly<Record<string, string>>, raw: Buffer, nowMs: number): string | undefined {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  const missing = [!id && 'webhook-id', !timestamp && 'webhook-timestamp', !signatures && 'webhook-signature'].filter(Boolean);
  if (missing.length) return `the delivery is not signed: it has no ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}`;
  if (!/^\d+$/.test(timestamp)) return `webhook-timestamp '${timestamp}' is not whole seconds since the epoch`;
  const skew = Math.abs(nowMs / 1000 - Number(timestamp));
  if (skew > TIMESTAMP_TOLERANCE_S) return `webhook-timestamp ${timestamp} is ${Math.round(skew)} s from the receiver's clock; at most ${TIMESTAMP_TOLERANCE_S} s are allowed`;
  const key = keyOf(secret);
  if (!key) return `the secret does not have the form whsec_<base64>`;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(raw).digest();
  const entries = signatures.split(' ').filter(Boolean);
  for (const entry of entries) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  }
  if (!entries.some((e) => e.startsWith('v1,'))) return `webhook-signature '${signatures}' holds no v1 signature`;
  return `no v1 signature in webhook-signature matches the HMAC-SHA256 of "${id}.${timestamp}.<body>" under the subscription's secret`;
}

/** The HMAC key of a `whsec_` secret: its base64 part, decoded; undefined when it is not of that form. */
export function keyOf(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
  const key = Buffer.from(b64, 'base64');
  return key.length ? key : undefined;
}
