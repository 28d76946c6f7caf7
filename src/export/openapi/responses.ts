/**
 * The responses of an OpenAPI operation (./operations.ts): success, 304, and an error
 * response per status it can answer, with the headers each carries; the bodies of bulk writes.
 */
import { responseEnvelope } from '../../spec/conventions/envelope.ts';
import { isBulk, type Endpoint, type Resource, type StateMachine } from '../../spec/model.ts';
import { isDefaultBody, linksNext, memberPath, pageSettings, type PageSettings } from '../../spec/conventions/pagination.ts';
import { conditionalPromise, idempotencyPromise, rateHeadersPromise } from '../../spec/conventions/promises.ts';
import { BULK_ITEMS } from '../../spec/conventions/bulk.ts';
import { refFields, refTarget } from '../../spec/conventions/expand.ts';
import { idOf } from '../../spec/conventions/ids.ts';
import { recordAddress } from '../../spec/conventions/paths.ts';
import { recordSchema, requestBodyOf } from '../records.ts';
import { enveloped, idSchema, members, pascal, withNull, type JsonSchema } from '../schema.ts';
import { schemaRef, type OpenApiContext } from './context.ts';
import { errorDescription, errorResponseSchema } from './errors.ts';
import { endpointFacts, errorCases, type ErrorCase } from '../../spec/conventions/situations.ts';

export const JSON_TYPE = 'application/json';


export function responsesOf(ctx: OpenApiContext, e: Endpoint, r: Resource, record: () => JsonSchema): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const op = e.operation;
  const declaredErrors = new Map<number, string | undefined>();
  for (const resp of e.responses) {
    if (resp.body === 'error' || resp.status >= 400) {
      declaredErrors.set(resp.status, resp.description);
      continue;
    }
    const headers: Record<string, JsonSchema> = {};
    // representation.ts recordOutcome: every record answer has its ETag, a 201 its Location (where a read is); a delete has neither.
    // An action's or a bulk create's answer is not one record's representation; an expanded read is another one (serve/expand.ts).
    const oneRecord = op !== 'delete' && op !== 'list' && op !== 'action' && !isBulk(op);
    if (oneRecord && !(op === 'read' && e.expand)) Object.assign(headers, validatorHeaders(ctx));
    // src/spec/conventions/paths.ts recordAddress: a Location where an endpoint reads the record, none where nothing does.
    if (resp.status === 201 && oneRecord && recordAddress(ctx.spec.endpoints, r.name)) headers.Location = { $ref: '#/components/headers/Location' };
    if (idempotencyPromise(ctx.spec).value && e.method === 'POST' && (op === 'create' || op === 'transition' || op === 'bulk-create' || op === 'bulk-delete')) headers['Idempotency-Replayed'] = { $ref: '#/components/headers/IdempotencyReplayed' };
    const response: JsonSchema = { description: resp.description ?? successText(e, r, resp.body) };
    // RFC 9110 §15.3.5: a 204 has no content, whatever the body says.
    if (resp.status !== 204 && resp.body === 'resource') {
      // src/spec/conventions/envelope.ts: the record answered inside its member.
      const member = responseEnvelope(ctx.spec, e, resp.status);
      response.content = { [JSON_TYPE]: { schema: member === undefined ? record() : enveloped(member, record()) } };
    }
    if (resp.status !== 204 && resp.body === 'shape' && e.action?.response.kind === 'shape') {
      const m = members(e.action.response.fields, 'read', ctx.schema);
      const schema = schemaRef(ctx, `response:${e.id}`, `${pascal(r.name)}${pascal(e.id.slice(r.name.length + 1))}Response`, () => ({ type: 'object', properties: m.properties, ...(m.required.length ? { required: m.required } : {}), additionalProperties: false }));
      response.content = { [JSON_TYPE]: { schema } };
    }
    if (resp.status !== 204 && resp.body === 'items') {
      response.content = { [JSON_TYPE]: { schema: { type: 'object', properties: { [BULK_ITEMS]: { type: 'array', items: record() } }, required: [BULK_ITEMS] } } };
    }
    if (resp.status !== 204 && resp.body === 'page') {
      // A list stating its own page body (`page:`) has a page schema of its own.
      const settings = e.page ? pageSettings(ctx.spec, e) : ctx.page;
      const [key, name] = e.page ? [`page:${e.id}`, `${pascal(r.name)}${pascal(e.name)}Page`] : [`page:${r.name}`, `${pascal(r.name)}Page`];
      response.content = { [JSON_TYPE]: { schema: schemaRef(ctx, key, name, () => pageSchema(settings, record())) } };
      if (linksNext(ctx.page)) headers.Link = linkHeader(ctx, true);
    }
    const all = shared(ctx, { ...headers, ...commonHeaders(ctx, e, resp.status) });
    if (Object.keys(all).length) response.headers = all;
    out[String(resp.status)] = response;
  }
  // resources.ts: a PUT on a singleton of a perOwner: one resource creates it when there is none (RFC 9110 §9.3.4).
  if (op === 'replace' && e.select === 'caller' && r.perOwner === 'one' && !out['201']) {
    const member = responseEnvelope(ctx.spec, e, 201);
    out['201'] = { description: `Created: the caller had no ${r.name} yet.`, content: { [JSON_TYPE]: { schema: member === undefined ? record() : enveloped(member, record()) } }, headers: shared(ctx, { ...validatorHeaders(ctx), ...(recordAddress(ctx.spec.endpoints, r.name) ? { Location: { $ref: '#/components/headers/Location' } } : {}), ...commonHeaders(ctx, e, 201) }) };
  }
  if (op === 'read' && conditionalPromise(ctx.spec).value?.reads) out['304'] = { description: 'Not modified: the copy the client holds (If-None-Match, If-Modified-Since) is current.', headers: shared(ctx, { ...validatorHeaders(ctx), ...commonHeaders(ctx, e, 304) }) };
  // One reading of the facts with doc's (src/spec/conventions/situations.ts); the version parameter is this export's.
  const cases = errorCases(ctx.spec, e, { ...endpointFacts(ctx.spec, e, ctx.policies), versionParam: ctx.versionParam !== undefined });
  for (const status of declaredErrors.keys()) if (!cases.has(status)) cases.set(status, []);
  for (const [status, list] of [...cases].sort(([a], [b]) => a - b)) out[String(status)] = errorResponse(ctx, e, status, list, declaredErrors.get(status));
  return out;
}

function successText(e: Endpoint, r: Resource, body: string): string {
  if (body === 'page') return `A page of ${r.plural}.`;
  if (body === 'none') return 'Done; no content.';
  if (body === 'items') return e.operation === 'bulk-update' ? `The ${r.plural} as changed, in the order of the request.` : e.operation === 'bulk-delete' ? `The ${r.plural} as they were, in the order of the request.` : `The new ${r.plural}, in the order of the request.`;
  if (body === 'shape') return 'What the action answers.';
  return e.operation === 'create' ? `The new ${r.name}.` : `The ${r.name}${e.operation === 'transition' ? ' in its new state' : ''}.`;
}

/** conventions/bulk.ts: the items, each a create's body. */
export function bulkRequestSchema(ctx: OpenApiContext, e: Endpoint, r: Resource, item: JsonSchema): JsonSchema {
  const one = schemaRef(ctx, `body:${r.name}:Create`, `${pascal(r.name)}Create`, () => item);
  const items: JsonSchema = { type: 'array', minItems: 1, items: one };
  if (e.bulk?.max !== undefined) items.maxItems = e.bulk.max;
  return { type: 'object', properties: { [BULK_ITEMS]: items }, required: [BULK_ITEMS], additionalProperties: false };
}

/**
 * conventions/bulk.ts: a bulk update's `{ items: [<a merge patch with the id>] }` or a bulk
 * delete's `{ items: [<id>] }`, 1 to max items. Not itself a merge patch: application/json only.
 */
export function bulkChangeBody(ctx: OpenApiContext, e: Endpoint, r: Resource, machine: StateMachine | undefined): { schema: JsonSchema; required: boolean; mergePatch: boolean } {
  const id = idSchema(r, ctx.schema);
  delete id.readOnly;
  let item: JsonSchema = id;
  if (e.operation === 'bulk-update') {
    const patch = requestBodyOf({ ...e, operation: 'update', request: { kind: 'resource', partial: true } }, r, machine, ctx.schema)?.schema ?? { type: 'object' };
    const field = idOf(r).field;
    const whole: JsonSchema = { ...patch, properties: { [field]: { ...id, description: `The id of the ${r.name} to change.` }, ...(patch.properties as Record<string, JsonSchema> | undefined) }, required: [field, ...((patch.required as string[] | undefined) ?? []).filter((n) => n !== field)] };
    item = schemaRef(ctx, `body:${r.name}:BulkPatch`, `${pascal(r.name)}BulkPatch`, () => whole);
  }
  const items: JsonSchema = { type: 'array', minItems: 1, items: item };
  if (e.bulk?.max !== undefined) items.maxItems = e.bulk.max;
  return { schema: { type: 'object', properties: { [BULK_ITEMS]: items }, required: [BULK_ITEMS], additionalProperties: false }, required: true, mergePatch: false };
}

/** The record with each expandable ref holding its id or, expanded, the record it names. */
export function expandableSchema(ctx: OpenApiContext, r: Resource, fields: readonly string[], base: JsonSchema): JsonSchema {
  const properties = { ...(base.properties as Record<string, JsonSchema>) };
  for (const f of refFields(r)) {
    if (!fields.includes(f.name)) continue;
    const target = ctx.resources.get(refTarget(f) ?? '');
    if (!target) continue;
    const embedded = schemaRef(ctx, `record:${target.name}`, pascal(target.name), () => recordSchema(target, ctx.machines.get(target.name), ctx.schema));
    const id = idSchema(target, ctx.schema);
    delete id.readOnly;
    const declared = properties[f.name] ?? {};
    const description = typeof declared.description === 'string' ? { description: declared.description } : {};
    properties[f.name] = f.type === 'array'
      ? { ...declared, items: { anyOf: [id, embedded] } }
      : { ...description, anyOf: [f.nullable ? withNull(id) : id, embedded] };
  }
  return { ...base, properties };
}

function pageSchema(settings: PageSettings, item: JsonSchema): JsonSchema {
  const items = { type: 'array', items: item };
  if (!isDefaultBody(settings) || settings.style === 'page' || settings.unpaged === 'all') return shapedPageSchema(settings, items);
  if (settings.style === 'offset') {
    return {
      type: 'object',
      properties: {
        items, offset: { type: 'integer', minimum: 0, description: 'The offset of the first item.' },
        next: { type: ['integer', 'null'], minimum: 0, description: 'The offset of the following page; null on the last page.' },
      },
      required: ['items', 'offset', 'next'],
    };
  }
  return {
    type: 'object',
    properties: { items, next: { type: ['string', 'null'], description: 'The cursor of the following page; null on the last page.' } },
    required: ['items', 'next'],
  };
}

/** A page in the shape the spec declares (src/serve/page-shapes.ts writes it); a member named by a pointer sits in the objects it names. */
function shapedPageSchema(p: PageSettings, items: JsonSchema): JsonSchema {
  const all = p.unpaged === 'all' ? { ...items, description: `Every record, without \`${p.positionParam}\`.` } : undefined;
  if (p.body.kind === 'array') return { ...items, description: 'A page of records, as a bare array; the following page is linked by `Link: <…>; rel="next"`.' };
  const b = p.body;
  const page: JsonSchema = { type: 'object', properties: {}, required: [] };
  put(page, b.items, items);
  const nextType = p.style === 'cursor' ? 'string' : 'integer';
  if (b.offset !== undefined) put(page, b.offset, { type: 'integer', minimum: 0, description: 'The offset of the first item.' });
  if (b.next !== undefined) put(page, b.next, { type: [nextType, 'null'], description: `The ${p.style === 'page' ? 'number' : p.style} of the following page; null on the last page.` });
  if (b.total !== undefined) put(page, b.total, { type: 'integer', minimum: 0, description: 'How many records the whole list holds, on every page.' });
  return all ? { oneOf: [page, all] } : page;
}

/** Sets a required member of an object schema at a page member's path, making the objects on the way. */
function put(schema: JsonSchema, member: string, value: JsonSchema): void {
  const path = memberPath(member);
  let at = schema as { properties: Record<string, JsonSchema>; required: string[] };
  for (const [i, token] of path.entries()) {
    if (!at.required.includes(token)) at.required.push(token);
    if (i === path.length - 1) at.properties[token] = value;
    else at = (at.properties[token] ??= { type: 'object', properties: {}, required: [] }) as typeof at;
  }
}

export function errorResponse(ctx: OpenApiContext, e: Endpoint, status: number, cases: readonly ErrorCase[], declared: string | undefined): JsonSchema {
  const headers: Record<string, JsonSchema> = {};
  const has = (s: string) => cases.some((c) => c.situation === s);
  if (has('unauthenticated')) headers['WWW-Authenticate'] = { required: true, schema: { type: 'string' }, description: 'RFC 9110 §11.6.1: one challenge per accepted scheme; a refused bearer token says why (RFC 6750 §3.1).' };
  // auth/index.ts: only a bearer token's 403 carries a challenge (RFC 6750 §3.1).
  const bearer = ctx.spec.authentication.schemes.some((s) => e.auth?.schemes.includes(s.name) && (s.type === 'bearer' || s.type === 'oauth2'));
  if (has('forbidden') && !has('unauthenticated') && bearer) headers['WWW-Authenticate'] = { schema: { type: 'string' }, description: 'For a bearer token: `error="insufficient_scope"` and the scopes needed (RFC 6750 §3.1).' };
  if (has('rate-limited')) headers['Retry-After'] = { required: true, schema: { type: 'integer', minimum: 0 }, description: 'RFC 9110 §10.2.3: seconds until the window closes.' };
  if ((has('precondition-failed') || has('invalid-transition')) && conditionalPromise(ctx.spec).value?.validators.includes('etag')) headers.ETag = { $ref: '#/components/headers/ETag' };
  const all = shared(ctx, { ...headers, ...commonHeaders(ctx, e, status) });
  // An error answered alike by many operations (a 503, a 429) is written once and referenced.
  return sharedIn(ctx.components.responses, 'responses', `Error${status}`, {
    description: errorDescription(cases, declared),
    ...(Object.keys(all).length ? { headers: all } : {}),
    content: { [ctx.errorShape.mediaType]: { schema: errorResponseSchema(ctx.errorShape, status, cases) } },
  });
}

/** Fields every answer of the endpoint carries: the version's, and the rate limit's where it applies. */
function commonHeaders(ctx: OpenApiContext, e: Endpoint, status: number): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  // versioning/index.ts: a request refused for its version (400 unknown-version, 410) was served in none, so has none of its fields.
  const refusable = ctx.versionParam !== undefined && (status === 400 || status === 410);
  if (refusable && status === 410) return commonRateHeaders(ctx, e, status);
  const required = refusable ? {} : { required: true };
  const d = ctx.deprecation;
  if (d.deprecation) out.Deprecation = { ...required, schema: { type: 'string', const: d.deprecation }, description: `RFC 9745: version ${ctx.version?.name} is deprecated since ${ctx.version?.deprecated}.` };
  if (d.sunset) out.Sunset = { ...required, schema: { type: 'string', const: d.sunset }, description: `RFC 8594: version ${ctx.version?.name} stops being served on ${ctx.version?.sunset}.` };
  if (d.link) out.Link = linkHeader(ctx, e.operation === 'list' && linksNext(ctx.page));
  if (ctx.versionParam?.in === 'header' && ctx.version) {
    out[ctx.versionParam.name] = { ...required, schema: { type: 'string', const: ctx.version.name }, description: 'The version that served the request.' };
    out.Vary = { schema: { type: 'string' }, description: `Names ${ctx.versionParam.name}: each version is its own representation (RFC 9110 §12.5.5).` };
  }
  return { ...out, ...commonRateHeaders(ctx, e, status) };
}

function commonRateHeaders(ctx: OpenApiContext, e: Endpoint, status: number): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  // limits/rate.ts: versioning and authentication refuse before the limit, so 401, 403 and 410 carry no fields.
  const policy = ctx.policies.get(e.id);
  // The quota fields only where they are in force (limits.rate.headers: ratelimit, stated or the default).
  if (policy && rateHeadersPromise(ctx.spec).value === 'ratelimit' && status !== 401 && status !== 403 && status !== 410) {
    // A 400 may be unknown-version, refused before the limit, or a malformed body, counted.
    const required = ctx.versionParam !== undefined && status === 400 ? {} : { required: true };
    out['RateLimit-Policy'] = { ...required, schema: { type: 'string', const: policy.field }, description: `draft-ietf-httpapi-ratelimit-headers: ${policy.limit} requests per ${Math.ceil(policy.windowMs / 1000)} s, counted per ${policy.scope === 'credential' ? 'credential (an anonymous request by its client address)' : 'client address'}.` };
    out.RateLimit = { ...required, schema: { type: 'string' }, description: 'What is left in the current window (`r`) and the seconds until it closes (`t`).' };
  }
  return out;
}

/** The validators a record answer carries, as limits.conditional has them in force. */
function validatorHeaders(ctx: OpenApiContext): Record<string, JsonSchema> {
  const validators = conditionalPromise(ctx.spec).value?.validators ?? [];
  return {
    ...(validators.includes('etag') ? { ETag: { $ref: '#/components/headers/ETag' } } : {}),
    ...(validators.includes('last-modified') ? { 'Last-Modified': { $ref: '#/components/headers/LastModified' } } : {}),
  };
}

function linkHeader(ctx: OpenApiContext, next: boolean): JsonSchema {
  const parts: string[] = [];
  if (next) parts.push('`rel="next"` (RFC 8288): the URL of the following page, when there is one');
  if (ctx.deprecation.link) parts.push(`\`rel="deprecation"\` (RFC 9745): \`${ctx.deprecation.link}\``);
  return { schema: { type: 'string' }, description: parts.join('; ') };
}

/**
 * Response headers written once, in components.headers, and referenced: the same RateLimit,
 * version and deprecation fields stand on every response of every operation, and written
 * out each time they made library.yaml's document ~1 MB. Named by the header, with a number
 * after where two differ (`Link`, `Link-2`); the same document always gets the same names.
 */
function shared(ctx: OpenApiContext, headers: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, header] of Object.entries(headers)) out[name] = '$ref' in header ? header : sharedIn(ctx.components.headers, 'headers', name, header);
  return out;
}

/** A `$ref` to `value` in one kind of components, under `name` or, where another value holds it, `name-2`, `name-3`… */
function sharedIn(components: Record<string, JsonSchema>, kind: 'headers' | 'responses', name: string, value: JsonSchema): JsonSchema {
  const text = JSON.stringify(value);
  const base = name.replace(/[^A-Za-z0-9._-]/g, '');
  let key = base;
  for (let i = 2; components[key] !== undefined && JSON.stringify(components[key]) !== text; i++) key = `${base}-${i}`;
  components[key] ??= value;
  return { $ref: `#/components/${kind}/${key}` };
}
