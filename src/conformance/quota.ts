/**
 * The tester's ledger of the implementation's rate limits (part 8), so a run fits the
 * spec's quotas instead of running into them. Each request is matched to the endpoint it
 * calls and so to its policy (src/spec/conventions/rate.ts, the one definition serve and
 * export read); per policy and partition (the principal for `scope: credential`, the
 * tester's address for `scope: address`, and for an anonymous request) the ledger counts
 * what the run spent in the current window. Where the run sends from several client addresses
 * (sources.ts: loopback, where the machine has them), an address partition is one per source:
 * the request goes from the source with the most left, and a window is waited for only when
 * every source's is spent. Where the implementation sends the RateLimit field
 * (draft-ietf-httpapi-ratelimit-headers §4: `"name";r=REMAINING;t=SECONDS`) for the policy,
 * what it says wins over the count: its window may have opened before the run.
 *
 * The data factory asks it which principal has the most left (creates of records anyone
 * may read are spread across principals), and whether a policy can afford a record made
 * only to be pointed at; the client asks it to wait for the next window before a request
 * the window cannot admit, rather than being refused (the time is reported as waited).
 * Where a create's window is scarce (DataFactory.scarce), the checks spend it on what only
 * that create shows: refusals share creates (parts/create-refusals.ts) and records are
 * reused (parking.ts) rather than made.
 */
import { templatePattern } from '../spec/conventions/paths.ts';
import { ratePolicyFields, type RatePolicyFields } from '../spec/conventions/rate.ts';
import type { Endpoint, Spec } from '../spec/model.ts';

interface Window {
  /** Epoch ms on the implementation's clock at which the window closes (estimated). */
  closesAt: number;
  /** Requests left in it. */
  left: number;
}

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  /** Literal segments: the more, the more specific (`/books/bulk` before `/books/{id}`). */
  readonly literals: number;
  readonly endpoint: Endpoint;
}

export class QuotaLedger {
  readonly #policies: Map<string, RatePolicyFields>;
  readonly #routes: Route[];
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;
  /** Whether the implementation has sent a RateLimit field: then an answer without one (a 401 before any limit) was not counted. */
  #speaks = false;

  /** How many client addresses the run sends from (the first is the default one). */
  readonly #sources: number;

  constructor(spec: Spec, now: () => number, sources = 1) {
    this.#policies = ratePolicyFields(spec);
    this.#now = now;
    this.#sources = Math.max(1, sources);
    this.#routes = spec.endpoints
      .map((endpoint) => {
        const segments = endpoint.path.split('/').filter(Boolean);
        // One reading of a template with the proxy's (`/items/{id}:archive` included).
        // Fixed text counts: a whole segment twice, beside a parameter (`{id}:archive`) once.
        const literals = segments.reduce((n, s) => n + (!s.includes('{') ? 2 : /^\{\w+\}$/.test(s) ? 0 : 1), 0);
        return { method: endpoint.method, pattern: templatePattern(endpoint.path).re, literals, endpoint };
      })
      .sort((a, b) => b.literals - a.literals);
  }

  /** The endpoint a request (path relative to the base URL, before any version prefix) calls. */
  endpointOf(method: string, path: string): Endpoint | undefined {
    const bare = path.split('?')[0];
    return this.#routes.find((r) => r.method === method && r.pattern.test(bare))?.endpoint;
  }

  policyOf(endpoint: Endpoint): RatePolicyFields | undefined {
    return this.#policies.get(endpoint.id);
  }

  /** Whether requests to a policy are counted by the client address they come from. */
  #byAddress(policy: RatePolicyFields, principal: string | undefined): boolean {
    // An anonymous request is counted by address, as a credential-scoped policy counts it.
    return policy.scope === 'address' || principal === undefined;
  }

  #key(policy: RatePolicyFields, principal: string | undefined, source: number): string {
    return this.#byAddress(policy, principal) ? `${policy.name}\u0000\u0000${source}` : `${policy.name}\u0000${principal}`;
  }

  #window(policy: RatePolicyFields, principal: string | undefined, source = 0): Window {
    const key = this.#key(policy, principal, source);
    let w = this.#windows.get(key);
    if (!w || w.closesAt <= this.#now()) {
      w = { closesAt: this.#now() + policy.windowMs, left: policy.limit };
      this.#windows.set(key, w);
    }
    return w;
  }

  /** The windows a request may be counted in: one per source where the policy counts by address. */
  #windowsOf(policy: RatePolicyFields, principal: string | undefined): Window[] {
    const n = this.#byAddress(policy, principal) ? this.#sources : 1;
    return Array.from({ length: n }, (_, source) => this.#window(policy, principal, source));
  }

  /**
   * The client address (its index) a request to the endpoint goes from: of a policy counted
   * by address, the source with the most left (the first of equals); else the first.
   */
  source(endpoint: Endpoint, principal: string | undefined): number {
    const policy = this.policyOf(endpoint);
    if (!policy || !this.#byAddress(policy, principal)) return 0;
    const windows = this.#windowsOf(policy, principal);
    return windows.reduce((best, w, i) => (w.left > windows[best].left ? i : best), 0);
  }

  /** Requests left for an endpoint in the current window, as a principal (Infinity: not limited). */
  left(endpoint: Endpoint, principal: string | undefined): number {
    const policy = this.policyOf(endpoint);
    return policy ? this.#windowsOf(policy, principal).reduce((n, w) => n + w.left, 0) : Infinity;
  }

  /** Milliseconds until a request to the endpoint fits (0: now). */
  waitFor(endpoint: Endpoint, principal: string | undefined): number {
    const policy = this.policyOf(endpoint);
    if (!policy) return 0;
    const windows = this.#windowsOf(policy, principal);
    return windows.some((w) => w.left > 0) ? 0 : Math.max(0, Math.min(...windows.map((w) => w.closesAt)) - this.#now());
  }

  /**
   * Counts a request answered. Of an implementation that sends RateLimit fields, an answer
   * without one (authentication or versioning refused it before any limit) is not counted;
   * of one that never does, every answer is, the strict reading.
   */
  spent(endpoint: Endpoint, principal: string | undefined, status: number, headers: Readonly<Record<string, string>>, source = 0): void {
    const policy = this.policyOf(endpoint);
    if (!policy) return;
    const w = this.#window(policy, principal, source);
    const said = readRateLimit(headers.ratelimit, policy.item);
    if (said) this.#speaks = true;
    if (!said && this.#speaks && status !== 429) return;
    if (said) {
      w.left = said.remaining;
      w.closesAt = this.#now() + said.resetSeconds * 1000;
    } else if (status === 429) {
      w.left = 0;
      const after = Number(headers['retry-after']);
      if (Number.isFinite(after)) w.closesAt = this.#now() + after * 1000;
    } else {
      w.left = Math.max(0, w.left - 1);
    }
  }
}

/** The remaining quota and seconds to reset of one policy in a RateLimit field (draft §4), or undefined. */
export function readRateLimit(field: string | undefined, item: string): { remaining: number; resetSeconds: number } | undefined {
  if (!field) return undefined;
  for (const member of field.split(',')) {
    const [name, ...params] = member.trim().split(';').map((s) => s.trim());
    if (name !== item) continue;
    const get = (k: string) => Number(params.find((p) => p.startsWith(`${k}=`))?.slice(k.length + 1));
    const remaining = get('r');
    const reset = get('t');
    if (Number.isInteger(remaining) && remaining >= 0) return { remaining, resetSeconds: Number.isFinite(reset) && reset >= 0 ? reset : 0 };
  }
  return undefined;
}

/** The limit and window (seconds) of one policy in a RateLimit-Policy field (draft §3), or undefined. */
export function readRatePolicy(field: string | undefined, item: string): { quota: number; windowSeconds: number } | undefined {
  if (!field) return undefined;
  for (const member of field.split(',')) {
    const [name, ...params] = member.trim().split(';').map((s) => s.trim());
    if (name !== item) continue;
    const get = (k: string) => Number(params.find((p) => p.startsWith(`${k}=`))?.slice(k.length + 1));
    return { quota: get('q'), windowSeconds: get('w') };
  }
  return undefined;
}
