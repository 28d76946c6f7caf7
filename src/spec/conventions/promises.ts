/**
 * The protocol promises of part 8 (`limits.conditional`, `limits.idempotency`,
 * `limits.pagination.links`, `limits.rate.headers`): what a service keeps on every endpoint,
 * as the spec states it, or, where the spec is silent, the runtime default of the reference
 * service (src/spec/defaults.ts lists it, and `check` names it as a default).
 *
 * Each function answers the promise in force and whether the spec stated it: serve keeps the
 * promise in force, export and doc describe it, and the tester demands only what is stated
 * (a default of svcspec's reference service is not a promise another implementation made).
 */
import { SAFETY } from '../defaults.ts';
import type { ConditionalRequests, IdempotencyKeys, PageLink, RateHeaders, Spec } from '../model.ts';

export interface Promised<T> {
  /** The promise in force; undefined where there is none (stated `none`, or nothing applies). */
  readonly value?: T;
  /** Stated in the spec (a value or `none`), as opposed to the runtime default. */
  readonly stated: boolean;
}

export type ConditionalSettings = Omit<ConditionalRequests, 'pointer'>;
export type IdempotencySettings = Omit<IdempotencyKeys, 'pointer'>;

/** The reference service's conditional requests where the spec is silent: a strong ETag, If-Match and If-None-Match. */
export const DEFAULT_CONDITIONAL: ConditionalSettings = { validators: ['etag'], writes: true, reads: true };
/** The reference service's idempotency keys where the spec is silent. */
export const DEFAULT_IDEMPOTENCY: IdempotencySettings = { header: 'Idempotency-Key', lifetimeMs: SAFETY.idempotencyKeyTtlMs, scope: 'credential' };
/** The header a replayed answer carries (the reference service's own; not a promise of the format). */
export const REPLAYED_HEADER = 'Idempotency-Replayed';

export function conditionalPromise(spec: Spec): Promised<ConditionalSettings> {
  if (spec.limits.none?.conditional) return { stated: true };
  if (spec.limits.conditional) return { value: spec.limits.conditional, stated: true };
  return { value: DEFAULT_CONDITIONAL, stated: false };
}

export function idempotencyPromise(spec: Spec): Promised<IdempotencySettings> {
  if (spec.limits.none?.idempotency) return { stated: true };
  if (spec.limits.idempotency) return { value: spec.limits.idempotency, stated: true };
  return { value: DEFAULT_IDEMPOTENCY, stated: false };
}

/** The links of every page: stated, else `next` (the default). */
export function pageLinksPromise(spec: Spec): Promised<readonly PageLink[]> {
  const links = spec.limits.pagination?.links;
  return links ? { value: links, stated: true } : { value: ['next'], stated: false };
}

/** The quota fields of a rate-limited answer: stated, else `ratelimit` (the default); none without a rate limit. */
export function rateHeadersPromise(spec: Spec): Promised<RateHeaders> {
  const rate = spec.limits.rate;
  if (!rate) return { stated: spec.limits.none?.rate !== undefined };
  return rate.headers ? { value: rate.headers, stated: true } : { value: 'ratelimit', stated: false };
}

/** Whether an endpoint is one an idempotency key applies to: a POST (the draft's scope; PUT and DELETE are idempotent already). */
export function takesIdempotencyKey(method: string): boolean {
  return method === 'POST';
}
