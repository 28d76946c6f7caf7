/**
 * Part 7 in OpenAPI: the error body's schema (RFC 9457 problem details with a `code`
 * member, or the spec's custom shape, as src/serve/errors.ts renders it) and, for each
 * endpoint, one response per status it can answer with an error: the codes it declares
 * plus the runtime situations of src/spec/http-errors.ts that apply to it, each resolved
 * to the spec's own code exactly as the service resolves it (resolveSituations, src/spec/http-errors.ts).
 */
import type { Endpoint, ErrorShape, Resource, Spec } from '../../spec/model.ts';
import { HTTP_ERRORS, resolveSituations, type Situation } from '../../spec/http-errors.ts';
import { errorShape } from '../../spec/conventions/errors.ts';
import type { JsonSchema } from '../schema.ts';
import { performedByReference } from '../../spec/conventions/endpoints.ts';
import { domainRefusals } from '../../spec/domain/refusals.ts';

export const ERROR_SCHEMA = 'Error';
export const VIOLATION_SCHEMA = 'FieldViolation';

/** The error body, whatever its status: every member the shape names. */
export function errorSchemas(spec: Spec): { shape: ErrorShape; schemas: Record<string, JsonSchema> } {
  const shape = errorShape(spec);
  const m = shape.members;
  const problem = shape.kind === 'problem';
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  // renderError (src/serve/errors.ts): type and instance only for problem details; detail and errors when there are some.
  if (problem && m.type) {
    properties[m.type] = { type: 'string', format: 'uri', description: 'RFC 9457 §3.1.1: the problem type, `urn:svcspec:problem:<code>`.' };
    required.push(m.type);
  }
  if (m.title) {
    properties[m.title] = { type: 'string', description: 'The title of the error code, the same for every occurrence.' };
    required.push(m.title);
  }
  if (m.status) {
    properties[m.status] = { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status.' };
    required.push(m.status);
  }
  if (m.detail) properties[m.detail] = { type: 'string', description: 'What went wrong in this occurrence.' };
  if (problem && m.instance) {
    properties[m.instance] = { type: 'string', format: 'uri-reference', description: 'The request target of this occurrence.' };
    required.push(m.instance);
  }
  if (m.code) {
    properties[m.code] = { type: 'string', description: 'The error code, from the errors catalog.' };
    required.push(m.code);
  }
  if (m.errors) properties[m.errors] = { type: 'array', items: { $ref: `#/components/schemas/${VIOLATION_SCHEMA}` }, description: 'With a validation error: every failing member, with its JSON pointer.' };
  const error: JsonSchema = {
    type: 'object',
    description: problem ? 'RFC 9457 problem details (application/problem+json) with a `code` member naming the error code.' : `The spec's error body (${shape.mediaType}).`,
    properties, required,
  };
  const violation: JsonSchema = {
    type: 'object',
    properties: {
      pointer: { type: 'string', description: 'A JSON pointer into the body; `/query/<name>` for a query parameter, `/headers/<name>` for a header.' },
      message: { type: 'string' },
    },
    required: ['pointer', 'message'],
  };
  return { shape, schemas: { [ERROR_SCHEMA]: error, ...(m.errors ? { [VIOLATION_SCHEMA]: violation } : {}) } };
}

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

/** The schema of the error responses at one status: the error body, its code one of those listed. */
export function errorResponseSchema(shape: ErrorShape, status: number, cases: readonly ErrorCase[]): JsonSchema {
  const m = shape.members;
  const properties: Record<string, JsonSchema> = {};
  if (cases.length && m.code) properties[m.code] = cases.length === 1 ? { const: cases[0].code } : { enum: cases.map((c) => c.code) };
  if (m.status) properties[m.status] = { const: status };
  // Members the service adds to some errors (src/serve/states.ts, src/serve/auth/index.ts).
  if (cases.some((c) => c.situation === 'invalid-transition')) {
    properties.currentState = { type: ['string', 'null'], description: 'With invalid-transition: the state the record is in.' };
    properties.allowedTransitions = { type: 'array', items: { type: 'string' }, description: 'With invalid-transition: the transitions allowed from that state.' };
  }
  if (cases.some((c) => c.situation === 'forbidden')) {
    properties.missingScopes = { type: 'array', items: { type: 'string' }, description: 'With forbidden: the scopes the credentials lack.' };
  }
  return { $ref: `#/components/schemas/${ERROR_SCHEMA}`, ...(Object.keys(properties).length ? { type: 'object', properties } : {}) };
}

export function errorDescription(cases: readonly ErrorCase[], declared?: string): string {
  const lines = cases.map((c) => `\`${c.code}\`: ${c.title}${c.when ? `. ${c.when}` : ''}`);
  return [declared, ...lines].filter(Boolean).join('\n\n') || 'An error, in the declared error shape.';
}
