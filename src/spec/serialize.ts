/**
 * The normalized Spec back to the authoring format: the raw document that, loaded again,
 * gives the same Spec (pointers included). It writes only what differs from the format's
 * own conventions (an endpoint's conventional method and path, a plural equal to the
 * name, an override's inherited scope, ...), endpoints in short form unless they were
 * written out, durations and sizes in their shortest exact unit. Nothing is added: a
 * gap is left out, `none` is written as `{ none: reason }`.
 *
 * A part stated with content whose content is empty after normalization is written with
 * an empty member (`users: []`, `catalog: {}`) so that it stays stated rather than
 * turning into a gap.
 */
import { writeManaged, writeRecordRules, writeRefDeletion, writeUnique, writeWriteRules } from './serialize-domain.ts';
import { isDeepStrictEqual } from 'node:util';
import { isDefaultBody, SORT_PARAM } from './conventions/pagination.ts';
import { CONVENTIONS, conventionalPath } from './conventions/endpoints.ts';
import type {
  AuthScheme, Endpoint, EndpointResponse, Field, PageBody, PathParam, RequestShape, Resource, Shape, Spec, StateMachine,
} from './model.ts';
import { PART_NAMES, type PartName } from './parts.ts';
import { formatDuration, formatSize } from './units.ts';

export type RawDocument = Record<string, unknown>;

/** The whole document: `svcspec`, `title`, then the nine parts in order (gaps left out). */
export function toDocument(spec: Spec): RawDocument {
  const doc: RawDocument = {};
  if (spec.formatVersion !== undefined) doc.svcspec = formatVersionValue(spec.formatVersion);
  if (spec.title !== undefined) doc.title = spec.title;
  for (const part of PART_NAMES) {
    const content = partContent(spec, part);
    if (content !== undefined) doc[part] = content;
  }
  return doc;
}

/** What stands under the part's key: its content, `{ none: reason }`, or undefined for a gap. */
export function partContent(spec: Spec, part: PartName): unknown {
  const state = spec.parts[part];
  if (state.statement === 'gap') return undefined;
  if (state.statement === 'none') return { none: state.reason ?? '' };
  return WRITERS[part](spec);
}

/** `1` rather than `"1"` for a whole number, as authors write it; both read back as '1'. */
export function formatVersionValue(version: string): string | number {
  return /^[1-9][0-9]*$/.test(version) ? Number(version) : version;
}

const WRITERS: Readonly<Record<PartName, (spec: Spec) => unknown>> = {
  purpose: writePurpose,
  resources: (spec) => mapOf(spec.resources, (r) => [r.name, writeResource(r)]),
  states: (spec) => mapOf(spec.states, (m) => [m.resource, writeMachine(spec, m)]),
  endpoints: writeEndpoints,
  authentication: writeAuthentication,
  events: writeEvents,
  errors: writeErrors,
  limits: writeLimits,
  versioning: writeVersioning,
};

// ---- 1. purpose -------------------------------------------------------------

function writePurpose(spec: Spec): RawDocument {
  const p = spec.purpose;
  const users = p.users.map((u) => compact({ name: u.name, description: u.description, tasks: listOrNothing(u.tasks) }));
  return compact({
    name: p.name,
    summary: p.summary,
    users: users.length || (p.name === undefined && p.summary === undefined) ? users : undefined,
  });
}

// ---- 2. resources -----------------------------------------------------------

const SHORT_FIELD_TYPES: readonly string[] = ['string', 'integer', 'number', 'boolean', 'object', 'array'];

function writeResource(r: Resource): RawDocument {
  return compact({
    plural: r.plural !== r.name ? r.plural : undefined,
    description: r.description,
    id: r.id ? { field: r.id.field, assigned: r.id.assigned } : undefined,
    owned: r.owned || undefined,
    unknownFields: r.unknownFields === 'refuse' ? undefined : r.unknownFields,
    readOnlyFields: r.readOnlyFields === 'refuse' ? undefined : r.readOnlyFields,
    envelope: r.envelope !== undefined && r.envelopeRequests === 'bare' ? { member: r.envelope, requests: 'bare' } : r.envelope,
    perOwner: r.perOwner,
    visibility: r.visibility ? { parent: r.visibility.field } : undefined,
    fields: r.fields.length ? writeFields(r.fields) : undefined,
    unique: writeUnique(r.unique),
    rules: writeRecordRules(r.rules),
    onCreate: r.onCreate ? writeWriteRules(r.onCreate) : undefined,
    onUpdate: r.onUpdate ? writeWriteRules(r.onUpdate) : undefined,
    onDelete: r.onDelete ? writeWriteRules(r.onDelete) : undefined,
  });
}

function writeFields(fields: readonly Field[]): RawDocument {
  return mapOf(fields, (f) => [f.name, writeField(f)]);
}

function writeField(f: Field): unknown {
  const { items, properties, ...shape } = writeShape(f);
  const body = compact({
    ...shape,
    required: f.required || undefined,
    readOnly: f.readOnly || undefined,
    writeOnly: f.writeOnly || undefined,
    default: f.hasDefault ? f.default : undefined,
    since: f.since,
    until: f.until,
    managed: writeManaged(f.managed),
    onDelete: writeRefDeletion(f.onDelete),
    description: f.description,
    // Nested shapes last, so a field's own facts stay together above them.
    items,
    properties,
  });
  // Short form (`title: string`) when the type is all there is to say.
  const keys = Object.keys(body);
  return keys.length === 1 && keys[0] === 'type' && SHORT_FIELD_TYPES.includes(f.type) ? f.type : body;
}

function writeShape(s: Shape): RawDocument {
  return compact({
    type: s.type,
    format: s.format,
    enum: s.enum ? [...s.enum] : undefined,
    minimum: s.minimum,
    maximum: s.maximum,
    exclusiveMinimum: s.exclusiveMinimum,
    exclusiveMaximum: s.exclusiveMaximum,
    multipleOf: s.multipleOf,
    minLength: s.minLength,
    maxLength: s.maxLength,
    pattern: s.pattern,
    minItems: s.minItems,
    maxItems: s.maxItems,
    uniqueItems: s.uniqueItems,
    resource: s.resource,
    items: s.items ? writeShape(s.items) : undefined,
    properties: s.properties ? writeFields(s.properties) : undefined,
    nullable: s.nullable,
  });
}

// ---- 3. states --------------------------------------------------------------

function writeMachine(spec: Spec, m: StateMachine): RawDocument {
  // The loader takes the state field's enum when `states` is left out; say the list only when it differs.
  const fieldEnum = spec.resources.find((r) => r.name === m.resource)?.fields.find((f) => f.name === m.field)?.enum;
  const implied = (fieldEnum ?? []).map(String);
  return compact({
    field: m.field || undefined,
    states: isDeepStrictEqual([...m.states], implied) ? undefined : [...m.states],
    initial: m.initial || undefined,
    transitions: m.transitions.length
      ? mapOf(m.transitions, (t) => [t.name, compact({
          from: t.from.length === 1 ? t.from[0] : [...t.from],
          to: t.to,
          requires: listOrNothing(t.requires),
          description: t.description,
          ...writeWriteRules(t.rules),
        })])
      : undefined,
  });
}

// ---- 4. endpoints -----------------------------------------------------------

function writeEndpoints(spec: Spec): RawDocument {
  const byResource = new Map<string, Endpoint[]>();
  for (const e of spec.endpoints) byResource.set(e.resource, [...(byResource.get(e.resource) ?? []), e]);
  const out: RawDocument = {};
  for (const [resource, list] of byResource) {
    // The format writes a resource's endpoints one way: all short, or all written out; a list's
    // query and its own page have no short form, whatever `explicit` says.
    out[resource] = list.every((e) => !e.explicit && e.query === undefined && e.page === undefined && e.expand === undefined)
      ? list.map(operationKey)
      : Object.fromEntries(list.map((e) => [operationKey(e), writeEndpoint(spec, e)]));
  }
  return out;
}

/** The key the endpoint was written under: `read`, or the transition's name. */
function operationKey(e: Endpoint): string {
  return e.id.slice(e.resource.length + 1);
}

function writeEndpoint(spec: Spec, e: Endpoint): RawDocument {
  const convention = CONVENTIONS[e.operation];
  const plural = spec.resources.find((r) => r.name === e.resource)?.plural ?? e.resource;
  const requires = spec.states.find((m) => m.resource === e.resource)?.transitions.find((t) => t.name === e.transition)?.requires ?? [];
  const conventionalRequest: RequestShape = e.operation === 'transition' ? { kind: 'fields', fields: requires } : convention.request;
  const key = operationKey(e);
  // `operation:` is written only where the key does not say it.
  const said = e.transition ?? e.operation;
  const action = e.action;
  const actionResponse = action?.response.kind === 'shape' ? { fields: writeFields(action.response.fields) } : action?.response.kind === 'none' ? 'none' : undefined;
  const conventionalResponses = action ? [{ status: action.response.kind === 'none' ? 204 : 200, body: e.responses.find((r) => r.status < 300)?.body }] : convention.responses;
  const declared = e.params.filter((p) => p.declared);
  return compact({
    operation: said !== key ? said : undefined,
    method: e.method !== convention.method ? e.method : undefined,
    path: e.path !== conventionalPath(plural, e.operation, e.transition ?? key) ? e.path : undefined,
    params: declared.length ? Object.fromEntries(declared.map((p) => [p.name, writeParam(p)])) : undefined,
    select: e.select,
    summary: e.summary,
    operationId: e.operationId,
    request: sameData(e.request, conventionalRequest) ? undefined : writeRequest(e.request),
    response: actionResponse,
    behaviour: action?.behaviour,
    ...writeWriteRules(action?.rules),
    responses: sameData(e.responses, conventionalResponses) ? undefined : writeResponses(e.responses.map((r) => (r.body === 'shape' ? { ...r, body: 'resource' as const } : r))),
    errors: listOrNothing(e.errors),
    query: e.query
      ? compact({
          filters: e.query.filters.length ? mapOf(e.query.filters, (f) => [f.field, [...f.ops]]) : undefined,
          sort: listOrNothing(e.query.sort),
          style: e.query.style !== 'brackets' ? e.query.style : undefined,
          undeclared: e.query.undeclared !== 'refuse' ? e.query.undeclared : undefined,
          search: e.query.search ? compact({ param: e.query.search.param !== 'q' ? e.query.search.param : undefined, fields: [...e.query.search.fields] }) : undefined,
        })
      : undefined,
    page: e.page ? writePageBody(e.page) : undefined,
    max: e.bulk?.max,
    expand: e.expand ? [...e.expand.fields] : undefined,
    expandDepth: e.expand && e.expand.depth !== 1 ? e.expand.depth : undefined,
  });
}

function writeParam(p: PathParam): unknown {
  const b = p.binding;
  if (b.kind === 'id') return 'id';
  if (b.kind === 'parent') return { ref: b.field };
  if (b.kind === 'value') return writeShape(b.shape);
  return b.ref !== undefined ? { ref: b.ref } : {};
}

function writeRequest(request: RequestShape): unknown {
  // `resource` reads back as the whole writable resource; a partial one is the update convention.
  if (request.kind === 'fields') return [...request.fields];
  if (request.kind === 'shape') return { fields: writeFields(request.fields) };
  return request.kind;
}

function writeResponses(responses: readonly EndpointResponse[]): RawDocument {
  return mapOf(responses, (r) => [String(r.status), r.description !== undefined ? { body: r.body, description: r.description } : r.body]);
}

// ---- 5. authentication ------------------------------------------------------

function writeAuthentication(spec: Spec): RawDocument {
  const a = spec.authentication;
  const publicRules = a.rules.filter((r) => r.public);
  const requireRules = a.rules.filter((r) => !r.public);
  const doc = compact({
    obtain: a.obtain,
    schemes: a.schemes.length ? mapOf(a.schemes, (s) => [s.name, writeScheme(s)]) : undefined,
    scopes: a.scopes.length ? mapOf(a.scopes, (s) => [s.name, s.description ?? null]) : undefined,
    default: a.defaultScopes.length ? { scopes: [...a.defaultScopes] } : undefined,
    public: publicRules.length ? publicRules.map((r) => r.match) : undefined,
    require: requireRules.length ? mapOf(requireRules, (r) => [r.match, [...r.scopes]]) : undefined,
  });
  return stated(doc, { schemes: {} });
}

function writeScheme(s: AuthScheme): RawDocument {
  switch (s.type) {
    case 'apiKey':
      return compact({ type: s.type, in: s.in, name: s.param, description: s.description });
    case 'bearer':
      return compact({
        type: s.type,
        tokens: s.tokens,
        prefix: s.prefix,
        description: s.description,
        jwt: s.jwt
          ? compact({ issuer: s.jwt.issuer, audience: s.jwt.audience, algorithms: [...s.jwt.algorithms], jwksUrl: s.jwt.jwksUrl, jwksFile: s.jwt.jwksFile, scopesClaim: s.jwt.scopesClaim })
          : undefined,
      });
    case 'basic':
      return compact({ type: s.type, description: s.description });
    case 'oauth2':
      return compact({ type: s.type, flow: s.flow, tokenPath: s.tokenPath, tokenTtl: duration(s.tokenTtlMs), description: s.description });
  }
}

// ---- 6. events --------------------------------------------------------------

function writeEvents(spec: Spec): RawDocument {
  const { webhooks, stream, retry, catalog } = spec.events;
  const doc = compact({
    webhooks: webhooks
      ? compact({ subscriptions: webhooks.subscriptions, path: webhooks.path, signing: webhooks.signing, cloudEvents: webhooks.cloudEvents || undefined, timeout: duration(webhooks.timeoutMs) })
      : undefined,
    stream: stream ? compact({ path: stream.path, heartbeat: duration(stream.heartbeatMs) }) : undefined,
    retry: retry
      ? compact({ attempts: retry.attempts, backoff: retry.backoff, initialDelay: duration(retry.initialDelayMs || undefined), maxDelay: duration(retry.maxDelayMs) })
      : undefined,
    catalog: catalog.length
      ? mapOf(catalog, (e) => [e.name, compact({
          on: e.trigger.on,
          payload: e.payload.kind === 'resource' ? 'resource' : [...e.payload.fields],
          since: e.since,
          until: e.until,
          description: e.description,
        })])
      : undefined,
  });
  return stated(doc, { catalog: {} });
}

// ---- 7. errors --------------------------------------------------------------

/** `for:` as written: nothing when the code is named after its one situation, else the one or the list. */
function forOf(e: Spec['errors']['catalog'][number]): string | readonly string[] | undefined {
  if (e.situations.length === 0 || (e.situations.length === 1 && e.situations[0] === e.code)) return undefined;
  return e.situations.length === 1 ? e.situations[0] : e.situations;
}

function writeErrors(spec: Spec): RawDocument {
  const { shape, catalog } = spec.errors;
  const doc = compact({
    shape: shape ? (shape.kind === 'problem' ? 'problem' : { mediaType: shape.mediaType, members: compact({ ...shape.members }) }) : undefined,
    catalog: catalog.length ? mapOf(catalog, (e) => [e.code, compact({ status: e.status, title: e.title, when: e.when, for: forOf(e), raisedBy: e.raisedBy })]) : undefined,
  });
  return stated(doc, { catalog: {} });
}

// ---- 8. limits --------------------------------------------------------------

function writeLimits(spec: Spec): RawDocument {
  const { rate, body, fields, timeouts, pagination } = spec.limits;
  return compact({
    rate: rate
      ? compact({
          limit: rate.limit,
          window: formatDuration(rate.windowMs),
          scope: rate.scope,
          // An override without its own scope inherits the main one.
          overrides: rate.overrides.length
            ? mapOf(rate.overrides, (o) => [o.endpoint, compact({ limit: o.limit, window: formatDuration(o.windowMs), scope: o.scope !== rate.scope ? o.scope : undefined })])
            : undefined,
          headers: rate.headers,
        })
      : spec.limits.none?.rate ? { none: spec.limits.none.rate.reason } : undefined,
    body: body ? { maxSize: formatSize(body.maxBytes) } : undefined,
    fields: fields ? compact({ maxStringLength: fields.maxStringLength, maxArrayItems: fields.maxArrayItems }) : undefined,
    timeouts: timeouts ? { request: formatDuration(timeouts.requestMs), status: timeouts.status } : spec.limits.none?.timeouts ? { none: spec.limits.none.timeouts.reason } : undefined,
    pagination: pagination
      ? compact({
          style: pagination.style,
          defaultSize: pagination.defaultSize,
          maxSize: pagination.maxSize === undefined ? undefined : Number.isFinite(pagination.maxSize) ? pagination.maxSize : 'none',
          overMax: pagination.overMax,
          params: pagination.sizeParam !== 'limit' || pagination.positionParam !== pagination.style || pagination.sortParam !== SORT_PARAM
            ? compact({
                size: pagination.sizeParam !== 'limit' ? pagination.sizeParam : undefined,
                position: pagination.positionParam !== pagination.style ? pagination.positionParam : undefined,
                sort: pagination.sortParam !== SORT_PARAM ? pagination.sortParam : undefined,
              })
            : undefined,
          body: isDefaultBody(pagination) ? undefined : writePageBody(pagination.body),
          unpaged: pagination.unpaged === 'all' ? 'all' : undefined,
          links: pagination.links ? [...pagination.links] : undefined,
        })
      : undefined,
    conditional: spec.limits.conditional
      ? compact({ validators: [...spec.limits.conditional.validators], writes: spec.limits.conditional.writes, reads: spec.limits.conditional.reads })
      : spec.limits.none?.conditional ? { none: spec.limits.none.conditional.reason } : undefined,
    idempotency: spec.limits.idempotency
      ? { header: spec.limits.idempotency.header, lifetime: formatDuration(spec.limits.idempotency.lifetimeMs), scope: spec.limits.idempotency.scope }
      : spec.limits.none?.idempotency ? { none: spec.limits.none.idempotency.reason } : undefined,
  });
}

// ---- 9. versioning ----------------------------------------------------------

function writeVersioning(spec: Spec): RawDocument {
  const v = spec.versioning;
  const select = v.select === undefined ? undefined
    : v.select.by === 'path' ? { path: v.select.prefix }
    : { [v.select.by]: v.select.name };
  const doc = compact({
    select,
    default: v.default,
    versions: v.versions.length
      ? mapOf(v.versions, (x) => [x.name, compact({ status: x.status, released: x.released, deprecated: x.deprecated, sunset: x.sunset, docs: x.docs })])
      : undefined,
  });
  return stated(doc, { versions: {} });
}

// ---- helpers ------------------------------------------------------------------

/** Leaves out members that are undefined, so the document says nothing the spec does not. */
function compact(value: Record<string, unknown>): RawDocument {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function mapOf<T>(items: readonly T[], entry: (item: T) => [string, unknown]): RawDocument {
  return Object.fromEntries(items.map(entry));
}

function listOrNothing(list: readonly string[]): string[] | undefined {
  return list.length ? [...list] : undefined;
}

function duration(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : formatDuration(ms);
}

/** Keeps a stated part stated: an empty map would read back as a gap. */
function stated(doc: RawDocument, empty: RawDocument): RawDocument {
  return Object.keys(doc).length ? doc : empty;
}

/** Equal as data, whatever order the members were listed in. */
function sameData(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

/** A page body as the format writes it (`limits.pagination.body`, a list's `page`). */
function writePageBody(body: PageBody): unknown {
  return body.kind === 'array' ? 'array' : compact({ items: body.items, next: body.next, total: body.total, offset: body.offset });
}
