/**
 * Safety defaults: what the runtime applies where the spec is silent and something must
 * still hold (a body size cap, a time-out, a page bound). They are documented here, in
 * one place, and `check` lists the ones that apply to a spec as defaults, never as the
 * spec's own values. Domain values are never defaulted.
 */
import type { Spec } from './model.ts';
import type { PartName } from './parts.ts';
import { formatDuration, formatSize } from './units.ts';

export const SAFETY = {
  bodyMaxBytes: 1_048_576,
  requestTimeoutMs: 30_000,
  requestTimeoutStatus: 503,
  pageSize: 100,
  idempotencyKeyTtlMs: 86_400_000,
  tokenTtlMs: 3_600_000,
  retry: { attempts: 8, backoff: 'exponential' as const, initialDelayMs: 5_000, maxDelayMs: 3_600_000 },
  webhookTimeoutMs: 10_000,
  streamHeartbeatMs: 15_000,
} as const;

export interface SafetyDefault {
  readonly part: PartName;
  readonly key: string;
  readonly value: string;
  readonly why: string;
  applies(spec: Spec): boolean;
}

const hasList = (spec: Spec) => spec.endpoints.some((e) => e.operation === 'list');
const hasBodies = (spec: Spec) => spec.endpoints.some((e) => e.request.kind !== 'none');
const hasWebhooks = (spec: Spec) => spec.events.webhooks !== undefined;

export const SAFETY_DEFAULTS: readonly SafetyDefault[] = [
  {
    part: 'resources', key: 'resources.<resource>.id', value: "a field named `id`, numbered by the service (1, 2, …) where the resource declares `id` an integer, else a UUID the service assigns",
    why: 'Records must be addressed in paths and refs; a resource declares no id (src/spec/conventions/ids.ts).',
    applies: (spec) => spec.resources.some((r) => r.id === undefined),
  },
  {
    part: 'errors', key: 'errors.shape', value: 'RFC 9457 application/problem+json with a code member',
    why: 'Every failure needs a body; the spec does not state the error shape.',
    applies: (spec) => spec.errors.shape === undefined && spec.endpoints.length > 0,
  },
  {
    part: 'limits', key: 'limits.body.maxSize', value: formatSize(SAFETY.bodyMaxBytes),
    why: 'An unbounded request body would let one client exhaust the service; the spec gives no size limit. serve refuses a larger body with 413; svcspec proxy judges a body up to it and relays a larger one as it comes, unjudged and not refused (src/spec/conventions/body.ts).',
    applies: (spec) => spec.limits.body === undefined && hasBodies(spec),
  },
  {
    part: 'limits', key: 'limits.timeouts.request', value: `${formatDuration(SAFETY.requestTimeoutMs)}, answered with ${SAFETY.requestTimeoutStatus}`,
    why: 'A request must not run forever; the spec gives no time-out.',
    applies: (spec) => spec.limits.timeouts === undefined && !spec.limits.none?.timeouts && spec.endpoints.length > 0,
  },
  {
    part: 'limits', key: 'limits.pagination', value: `cursor pages of at most ${SAFETY.pageSize} records (default and maximum), larger sizes clamped, each linking the next (Link: rel="next")`,
    why: 'A list must not return an unbounded number of records; the spec gives no pagination.',
    applies: (spec) => spec.limits.pagination === undefined && hasList(spec),
  },
  {
    part: 'limits', key: 'limits.rate', value: 'no rate limit is enforced',
    why: 'The spec declares no rate limit, and inventing one would refuse requests the spec allows.',
    applies: (spec) => spec.limits.rate === undefined && !spec.limits.none?.rate && spec.endpoints.length > 0,
  },
  {
    part: 'authentication', key: 'authentication.schemes.<oauth2>.tokenTtl', value: formatDuration(SAFETY.tokenTtlMs),
    why: 'Access tokens issued at the token endpoint must expire; the spec gives no lifetime for them.',
    applies: (spec) => spec.authentication.schemes.some((s) => s.type === 'oauth2' && s.tokenTtlMs === undefined),
  },
  {
    part: 'limits', key: 'limits.idempotency', value: `Idempotency-Key on POST, remembered for ${formatDuration(SAFETY.idempotencyKeyTtlMs)} per credential`,
    why: 'A retried POST must not make a second record; the spec states no idempotency keys (and no `idempotency: { none: … }`).',
    applies: (spec) => spec.limits.idempotency === undefined && !spec.limits.none?.idempotency && spec.endpoints.some((e) => e.method === 'POST'),
  },
  {
    part: 'limits', key: 'limits.conditional', value: 'a strong ETag on every record answer; If-Match honoured on writes (412), If-None-Match on reads (304)',
    why: 'Concurrent writers must not overwrite each other unseen; the spec states no conditional requests (and no `conditional: { none: … }`).',
    applies: (spec) => spec.limits.conditional === undefined && !spec.limits.none?.conditional && spec.endpoints.some((e) => e.operation !== 'list' && !e.operation.startsWith('bulk-') && e.operation !== 'create'),
  },
  {
    part: 'limits', key: 'limits.pagination sizes', value: `what the spec leaves unsaid of ${SAFETY.pageSize} records a page by default, at most ${SAFETY.pageSize} (or the stated default, where larger), larger sizes clamped`,
    why: 'A list must not return an unbounded number of records; the spec names its pagination but not all of its sizes. The tester holds no implementation to them.',
    applies: (spec) => { const p = spec.limits.pagination; return p !== undefined && (p.defaultSize === undefined || p.maxSize === undefined || (p.overMax === undefined && p.maxSize !== Number.POSITIVE_INFINITY)) && hasList(spec); },
  },
  {
    part: 'limits', key: 'limits.pagination.links', value: '[next]: `Link: <…>; rel="next"` on every page but the last',
    why: 'A client must find the following page; the spec does not say which links a page carries.',
    applies: (spec) => spec.limits.pagination !== undefined && spec.limits.pagination.links === undefined && hasList(spec),
  },
  {
    part: 'limits', key: 'limits.rate.headers', value: 'ratelimit: RateLimit-Policy and RateLimit on every answer of a limited endpoint',
    why: 'A client should see its quota before it is refused; the spec does not say which fields tell it.',
    applies: (spec) => spec.limits.rate !== undefined && spec.limits.rate.headers === undefined,
  },
  {
    part: 'events', key: 'events.retry',
    value: `${SAFETY.retry.attempts} attempts, exponential from ${formatDuration(SAFETY.retry.initialDelayMs)} to ${formatDuration(SAFETY.retry.maxDelayMs)}, with jitter`,
    why: 'Webhook delivery is at least once; the spec gives no retry policy.',
    applies: (spec) => hasWebhooks(spec) && spec.events.retry === undefined,
  },
  {
    part: 'events', key: 'events.webhooks.timeout', value: formatDuration(SAFETY.webhookTimeoutMs),
    why: 'A receiver that never answers must not hold a delivery forever; the spec gives no delivery time-out.',
    applies: (spec) => hasWebhooks(spec) && spec.events.webhooks?.timeoutMs === undefined,
  },
  {
    part: 'events', key: 'events.stream.heartbeat', value: formatDuration(SAFETY.streamHeartbeatMs),
    why: 'Idle event streams are kept open through proxies by heartbeats; the spec gives no interval.',
    applies: (spec) => spec.events.stream !== undefined && spec.events.stream.heartbeatMs === undefined,
  },
];
