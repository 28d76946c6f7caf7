/**
 * The format's rate-limit convention (part 8): which policy limits each endpoint, and the
 * RateLimit-Policy field that names it (draft-ietf-httpapi-ratelimit-headers-11 §3). The
 * main limit is one policy named "default" shared by every endpoint it covers; an override
 * is a policy of its own named after its endpoint id. Serve counts by it, export describes
 * it, the tester reads it back: one definition.
 */
import type { RateLimit, Spec } from '../model.ts';

/** The name of the policy of the main limit; an override's is its endpoint id. */
export const DEFAULT_POLICY = 'default';

export interface RatePolicyFields {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly scope: RateLimit['scope'];
  /** The RateLimit-Policy field value, `"default";q=100;w=60`. */
  readonly field: string;
  /** The policy as a structured-field string, `"default"`: the start of each RateLimit value. */
  readonly item: string;
}

/**
 * The policy of every limited endpoint, by endpoint id; empty when the spec declares no rate
 * limit. Endpoints under the main limit share one object, as they share one counter.
 */
export function ratePolicyFields(spec: Spec): Map<string, RatePolicyFields> {
  const byEndpoint = new Map<string, RatePolicyFields>();
  const rate = spec.limits.rate;
  if (!rate) return byEndpoint;
  const main = policyFields(DEFAULT_POLICY, rate);
  const overrides = new Map(rate.overrides.map((o) => [o.endpoint, o]));
  for (const endpoint of spec.endpoints) {
    const override = overrides.get(endpoint.id);
    byEndpoint.set(endpoint.id, override ? policyFields(endpoint.id, override) : main);
  }
  return byEndpoint;
}

function policyFields(name: string, limit: RateLimit): RatePolicyFields {
  const item = sfString(name);
  // draft §3.1.3: w is whole seconds, not zero; rounded up, the window is never understated.
  const w = Math.max(1, Math.ceil(limit.windowMs / 1000));
  return { name, limit: limit.limit, windowMs: limit.windowMs, scope: limit.scope, field: `${item};q=${limit.limit};w=${w}`, item };
}

/** RFC 8941 §4.1.6: a String, with `"` and `\` escaped (endpoint ids are ASCII by the format). */
function sfString(s: string): string {
  return `"${s.replace(/[\\"]/g, '\\$&')}"`;
}
