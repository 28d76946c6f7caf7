/**
 * Which errors an endpoint can answer with: the situations of the HTTP error catalog
 * (src/spec/http-errors.ts) its kind of request meets in the reference service (each line
 * names the service module that raises it), and the codes its domain rules refuse with. One
 * reading, for export (the OpenAPI error responses) and doc (the endpoints' Errors column).
 */
import type { Endpoint, Resource, Spec } from '../model.ts';
import { HTTP_ERRORS, resolveSituations, type Situation } from '../http-errors.ts';
import { performedByReference } from './endpoints.ts';
import { conditionalPromise, idempotencyPromise } from './promises.ts';
import { ratePolicyFields } from './rate.ts';
import { domainRefusals } from '../domain/refusals.ts';

export interface ErrorCase {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly when?: string;
  /** The runtime situation it answers, if any. */
  readonly situation?: Situation;
}

export interface EndpointFacts {
  /** The service checks credentials (authentication given, with schemes). */
  readonly hasSchemes: boolean;
  readonly hasRateLimit: boolean;
  /** The spec states the service has no time-out. */
  readonly noTimeout?: boolean;
  /** The version is chosen by a header or query parameter a client may get wrong. */
  readonly versionParam: boolean;
  readonly someRetired: boolean;
  /** Writes honour preconditions (limits.conditional, src/spec/conventions/promises.ts); true when not said. */
  readonly preconditions?: boolean;
  /** POSTs honour an idempotency key (limits.idempotency); true when not said. */
  readonly idempotency?: boolean;
}

/** The situations of the HTTP error catalog that can answer this endpoint (see the service modules named). */
export function situationsOf(endpoint: Endpoint, facts: EndpointFacts, resource?: Resource): Situation[] {
  const out: Situation[] = [];
  const op = endpoint.operation;
  const body = endpoint.method === 'POST' || endpoint.method === 'PUT' || endpoint.method === 'PATCH';
  if (facts.versionParam) out.push('unknown-version'); // versioning/index.ts, before authentication
  if (facts.versionParam && facts.someRetired) out.push('version-retired');
  if ((endpoint.auth && facts.hasSchemes) || endpoint.select === 'caller') out.push('unauthenticated'); // nesting.ts: a singleton needs to know whose // auth/index.ts: public endpoints check credentials sent anyway
  if (endpoint.auth && !endpoint.auth.public && endpoint.auth.scopes.length > 0) out.push('forbidden');
  if (facts.hasRateLimit) out.push('rate-limited'); // limits/rate.ts
  if (body) out.push('malformed-body', 'payload-too-large', 'unsupported-media-type'); // app.ts parsing
  if (endpoint.params.length || endpoint.select === 'caller') out.push('not-found'); // concurrency.ts, resources.ts, nesting.ts (a parent, a singleton not made yet)
  if (resource?.perOwner === 'one' && op === 'create') out.push('already-exists'); // resources.ts: one record per owner
  if (facts.preconditions !== false && (op === 'update' || op === 'replace' || op === 'delete' || op === 'transition')) out.push('precondition-failed');
  if (op === 'transition') out.push('invalid-transition'); // states.ts
  if (body || op === 'list' || endpoint.expand) out.push('validation-failed'); // validation.ts, list-query.ts, expand.ts
  if (facts.idempotency !== false && endpoint.method === 'POST' && (op === 'create' || op === 'transition' || op === 'bulk-create' || op === 'bulk-delete')) out.push('idempotency-key-reused'); // idempotency.ts
  if (op === 'action' && !performedByReference(endpoint)) out.push('not-implemented'); // actions.ts: a prose action without a handler
  out.push('internal', 'unavailable'); // app.ts; http-layer.ts (shutting down), the store (its file lost), auth (keys unreachable): every request
  if (!facts.noTimeout) out.push('timeout'); // limits/timeout.ts: every request, unless the spec states none
  return out;
}

/** Every error the endpoint can answer with, by status: declared codes and the runtime's. */
export function errorCases(spec: Spec, endpoint: Endpoint, facts: EndpointFacts): Map<number, ErrorCase[]> {
  const resolve = resolveSituations(spec);
  const byCode = new Map<string, ErrorCase>();
  for (const situation of situationsOf(endpoint, facts, spec.resources.find((r) => r.name === endpoint.resource))) {
    const r = resolve(situation);
    const entry = spec.errors.catalog.find((e) => e.code === r.code);
    byCode.set(r.code, { code: r.code, status: r.status, title: r.title, situation, ...(entry?.when !== undefined ? { when: entry.when } : { when: HTTP_ERRORS.find((h) => h.situation === situation)?.when }) });
  }
  // The codes the spec's domain rules refuse it with (uniques, rules, guards, onDelete refuse), as serve raises them.
  for (const code of [...endpoint.errors, ...domainRefusals(spec, endpoint)]) {
    const entry = spec.errors.catalog.find((e) => e.code === code);
    if (!entry || byCode.has(code) || entry.status < 400) continue; // check reports an undeclared code
    byCode.set(code, { code, status: entry.status, title: entry.title, ...(entry.when !== undefined ? { when: entry.when } : {}) });
  }
  const byStatus = new Map<number, ErrorCase[]>();
  for (const c of byCode.values()) byStatus.set(c.status, [...(byStatus.get(c.status) ?? []), c]);
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** The facts of a spec that decide an endpoint's situations, as serve reads them. */
export function endpointFacts(spec: Spec, endpoint: Endpoint, policies: ReadonlyMap<string, unknown> = ratePolicyFields(spec)): EndpointFacts {
  const select = spec.versioning.select;
  return {
    preconditions: conditionalPromise(spec).value?.writes ?? false,
    idempotency: idempotencyPromise(spec).value !== undefined,
    hasSchemes: spec.parts.authentication.statement === 'given' && spec.authentication.schemes.length > 0,
    hasRateLimit: policies.has(endpoint.id),
    noTimeout: spec.limits.none?.timeouts !== undefined,
    versionParam: spec.versioning.versions.length > 0 && (select?.by === 'header' || select?.by === 'query'),
    someRetired: spec.versioning.versions.some((v) => v.status === 'retired'),
  };
}
