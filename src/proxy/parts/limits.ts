/**
 * Part 8 on the wire: a rate-limited endpoint announces the declared quota in
 * RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers §3, src/spec/conventions/rate.ts
 * spells it), a 429 says when to come back (Retry-After, RFC 6585 §4), and the quota's
 * answers agree with the counts the proxy saw: within one announced window the remaining
 * quota never grows, never exceeds the declared limit, and a 429 never comes while the last
 * answer said quota remained for more requests than were made since. A record answer
 * carries the validators the spec promises (RFC 9110 §8.8): an ETag. A request body stays
 * within the declared size (sizeProblem).
 */
import { BoundedMap } from '../../spec/bounded-map.ts';
import { ratePolicyFields, type RatePolicyFields } from '../../spec/conventions/rate.ts';
import { conditionalPromise, rateHeadersPromise } from '../../spec/conventions/promises.ts';
import type { Endpoint, Spec } from '../../spec/model.ts';
import { formatSize } from '../../spec/units.ts';
import type { RequestProblem } from '../finding.ts';
import { readRateLimit } from '../../conformance/quota.ts';
import { EXPAND_PARAM } from '../../spec/conventions/expand.ts';
import type { Found, Seen } from '../seen.ts';

interface Said {
  readonly remaining: number;
  /** Epoch ms the window closes at, as the answer put it. */
  readonly resetAt: number;
  /** When the answer completed. */
  readonly endedAt: number;
  /** Requests of this quota started after the answer completed. */
  since: number;
}

export class LimitJudge {
  readonly #spec: Spec;
  readonly #policies: Map<string, RatePolicyFields>;
  readonly #headers: boolean;
  readonly #etag: boolean;
  readonly #said = new BoundedMap<string, Said>(10_000);

  constructor(spec: Spec) {
    this.#spec = spec;
    this.#policies = ratePolicyFields(spec);
    const h = rateHeadersPromise(spec);
    this.#headers = h.stated && h.value === 'ratelimit';
    const c = conditionalPromise(spec);
    this.#etag = c.stated && (c.value?.validators.includes('etag') ?? false);
  }

  /** Counted as the request starts: a request in flight counts against what the last answer said remains. */
  started(x: { endpoint?: { id: string }; principal?: string }): void {
    const policy = x.endpoint ? this.#policies.get(x.endpoint.id) : undefined;
    if (!policy) return;
    const said = this.#said.get(this.#key(policy, x.principal));
    if (said) said.since++;
  }

  findings(x: Seen): Found[] {
    const endpoint = x.endpoint;
    const policy = endpoint ? this.#policies.get(endpoint.id) : undefined;
    const rate = this.#spec.limits.rate;
    const out: Found[] = [];
    const ex = x.exchange;
    const headers = ex.response.headers;
    if (this.#etag && x.ok && endpoint && ['read', 'create', 'update', 'replace', 'transition'].includes(endpoint.operation) && ex.response.status !== 204 && !headers.etag && !x.route.query.has(EXPAND_PARAM)) {
      const pointer = this.#spec.limits.conditional?.pointer ?? endpoint.pointer;
      out.push({ part: 'limits', id: 'etag-missing', endpoint: endpoint.id, message: `${endpoint.id} answered a record without an ETag`, pointer, text: 'limits.conditional: validators [etag]' });
    }
    if (!policy || !rate || !endpoint) return out;
    const base = { part: 'limits' as const, endpoint: endpoint.id, pointer: rate.overrides.find((o) => o.endpoint === endpoint.id)?.pointer ?? rate.pointer };
    const text = `limits.rate: ${policy.limit} per ${policy.windowMs / 1000} s per ${policy.scope}`;
    if (ex.response.status === 429 && !/^\s*\d+\s*$/.test(headers['retry-after'] ?? '') && !headers['retry-after']) out.push({ ...base, id: 'rate-retry-after', message: `${endpoint.id} answered 429 without Retry-After`, text });
    if (!this.#headers) return out;
    const ok = ex.response.status >= 200 && ex.response.status < 300;
    if (ok && headers['ratelimit-policy'] !== undefined && !headers['ratelimit-policy'].split(',').map((s) => s.trim()).includes(policy.field)) {
      out.push({ ...base, id: 'rate-policy', message: `${endpoint.id} announces RateLimit-Policy: ${headers['ratelimit-policy']}; the spec declares ${policy.field}`, text });
    } else if (ok && headers['ratelimit-policy'] === undefined) {
      out.push({ ...base, id: 'rate-policy', message: `${endpoint.id} announces no RateLimit-Policy; the spec declares ${policy.field}`, text });
    }
    const key = this.#key(policy, x.principal);
    const before = this.#said.get(key);
    const now = readRateLimit(headers.ratelimit, policy.item);
    const started = ex.at ?? Date.now();
    const ended = started + ex.ms;
    // Only an answer that completed before this request started says anything about it.
    const prior = before && before.endedAt <= started ? before : undefined;
    if (now) {
      const resetAt = ended + now.resetSeconds * 1000;
      if (now.remaining > policy.limit) out.push({ ...base, id: 'rate-remaining', message: `${endpoint.id} says ${now.remaining} requests remain of a quota of ${policy.limit}`, text });
      // The same window: the two answers name one closing moment (a second's rounding apart).
      else if (prior && Math.abs(prior.resetAt - resetAt) < 1500 && ended < prior.resetAt && now.remaining > prior.remaining) out.push({ ...base, id: 'rate-remaining', message: `${endpoint.id} says ${now.remaining} requests remain, more than the ${prior.remaining} it said before in the same window`, text });
      this.#said.set(key, { remaining: now.remaining, resetAt, endedAt: ended, since: 0 });
    }
    if (ex.response.status === 429 && prior && started < prior.resetAt - 1000 && prior.remaining >= prior.since) {
      out.push({ ...base, id: 'rate-early-429', message: `${endpoint.id} answered 429 though it had said ${prior.remaining} requests remained, and ${prior.since - 1} were made since`, text });
    }
    return out;
  }

  #key(policy: RatePolicyFields, principal: string | undefined): string {
    return `${policy.name}\u0000${policy.scope === 'credential' ? (principal ?? '') : 'address'}`;
  }
}

/**
 * A request body over the declared size limit (`limits.body.maxSize`; RFC 9110 §15.5.14):
 * the service answers it 413. `unheld`: the proxy did not hold the body, being larger than
 * what it holds (the declared limit, where there is one: so it is over it). Where the spec
 * is silent, no size breaks it (the runtime's safety default is no rule of the spec's).
 */
export function sizeProblem(spec: Spec, endpoint: Endpoint, body: string | undefined, unheld: boolean, bytes?: number): RequestProblem | undefined {
  const limit = spec.limits.body;
  if (!limit || endpoint.request.kind === 'none') return undefined;
  const max = limit.maxBytes;
  // The bytes as they came, where the proxy read them: a body that is not UTF-8 reads as U+FFFD
  // (3 bytes) per bad byte, so its text can be longer than it was. A recorded exchange keeps
  // only the text; its UTF-8 length is the size then (between its length and three times it).
  const over = unheld || (bytes !== undefined ? bytes > max : body !== undefined && (body.length > max || (body.length * 3 > max && Buffer.byteLength(body) > max)));
  if (!over) return undefined;
  return { part: 'limits', id: 'payload-too-large', situation: 'payload-too-large', message: `the body is larger than the declared limit of ${formatSize(max)} (${max} bytes)`, pointer: limit.pointer, text: `limits.body.maxSize: ${formatSize(max)}` };
}
