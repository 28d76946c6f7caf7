/**
 * Part 4 from paths. Every operation with a method the format has (GET, POST, PUT, PATCH,
 * DELETE) becomes an endpoint of one resource, keeping its method and path:
 *
 * - its resource is the one its bodies name (the successful response's record or array
 *   items, else the request body); else that of the other operations of its path; else the
 *   resource its first path segment names; else a new resource named after that segment,
 *   without fields (reported);
 * - it is a standard operation where it is one honestly: on the resource's main collection
 *   path `/base` (the one most of its CRUD-looking operations use), GET answering an array of
 *   the resource is `list`, POST taking it (or some of its fields) `create`; on `/base/{x}`
 *   GET answering it is `read`, PUT `replace` (`update` when it takes only some of the
 *   writable fields: a partial update under PUT), PATCH `update`, DELETE `delete`. `{x}` is
 *   then the record id and written `{id}`. A path key's fragment or query (`#add_shared_link`)
 *   is no part of the request: the endpoint is written at the route;
 * - on a nested path whose child holds the parent's id (./nested.ts), the same operations reach
 *   the child through its parent, named after their operationIds;
 * - any other operation keeps its operationId (else method and path) as an explicit endpoint,
 *   which the format reads as a transition (reported: check wants it declared).
 */
import { CONVENTIONS, conventionalPath } from '../../spec/conventions/endpoints.ts';
import { conventionalBinding, templateParams } from '../../spec/conventions/paths.ts';
import {
  STANDARD_OPERATIONS, type ActionDef, type Limits, type Endpoint, type EndpointResponse, type Field, type ListQueryDecl, type PathParam, type Shape, type HttpMethod, type Operation as OperationName, type Resource, type StandardOperation,
} from '../../spec/model.ts';
import { pointer } from '../../spec/pointer.ts';
import { defined } from '../../load/normalize/read.ts';
import { IMPORT_CODES } from '../codes.ts';
import { child } from '../../spec/pointer.ts';
import { isObject, KEY_NAME, keyName, report, resolve, unique, type ImportContext } from './context.ts';
import { shapeOf } from './schema.ts';
import { extraParameters, requestFits, requestRecord, requestRequires, type RequestRecord, requestShape, requestWhole, responsesOf, summarize, type BodySummary } from './bodies.ts';
import type { Operation } from './resources.ts';
import { envelopeFromBodies, idFromPaths, nestedFromCreate, optionalWhenCreateOmits, settleId } from './records.ts';
import { importPagination, type Listed } from './pagination.ts';
import { asRefs, nestedOf, nestedOperation, unboundNesting, type Nested } from './nested.ts';
import { documentedIdNames, withOperationIds } from './endpoint-names.ts';
import { aNoun } from '../../spec/units.ts';
import { endpointPath, pathOf, pathShape, recordOf, sameName, type PathShape } from './paths.ts';
import type { SchemaScope } from './schema.ts';

const METHODS: ReadonlySet<string> = new Set(['get', 'post', 'put', 'patch', 'delete']);
const PLURAL = /^[a-z0-9][a-z0-9_-]*$/;

export interface Placed {
  readonly op: Operation;
  readonly endpoint: Endpoint;
  /** The document's name of the record's parameter, where the path's `{id}` renames it (`eventId`). */
  readonly idParam?: string;
  /** Of a create taking some fields: those its body's schema requires (./bodies.ts requestRequires). */
  readonly requires?: readonly string[];
  /** Of a create taking some fields: its body's record schema (./bodies.ts requestRecord). */
  readonly body?: RequestRecord;
}

export interface ImportedEndpoints {
  /** The resources, with the plurals their paths show, and any made for operations without one. */
  readonly resources: Resource[];
  readonly endpoints: Endpoint[];
  readonly placed: Placed[];
  /** Part 8's pagination, where the list endpoints' parameters state it (./pagination.ts). */
  readonly pagination?: NonNullable<Limits['pagination']>;
}

interface Draft {
  readonly op: Operation;
  readonly bodies: BodySummary;
  resource?: string;
  /** Placed by what its path or bodies name (not after the other operations of its path). */
  readonly named: boolean;
  /** The path a request reaches: the document's path without its fragment or query (pathOf). */
  readonly path: string;
  /** The collection path and, for an item path, its last parameter. */
  readonly shape: PathShape | undefined;
  /** A nested collection path of its resource (./nested.ts). */
  readonly nested?: Nested;
  candidate?: StandardOperation;
}

export function importEndpoints(scope: SchemaScope, ops: readonly Operation[], resources: readonly Resource[]): ImportedEndpoints {
  const { ctx } = scope;
  const all = [...resources];
  const byName = new Map(all.map((r) => [r.name, r]));
  const drafts: Draft[] = [];
  const routes = new Map<string, Operation>();
  for (const op of ops) {
    if (!METHODS.has(op.method)) {
      report(ctx, IMPORT_CODES.methodUnsupported, { method: op.method.toUpperCase(), path: op.path }, op.pointer);
      continue;
    }
    // The route a request reaches: no fragment nor query (RFC 3986 §3.4, §3.5), parameters unnamed.
    const path = pathOf(op.path);
    const route = `${op.method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;
    const other = routes.get(route);
    if (other) {
      report(ctx, IMPORT_CODES.routeDuplicate, { method: op.method.toUpperCase(), path: op.path, other: `${other.method.toUpperCase()} ${other.path}`, route }, op.pointer);
      continue;
    }
    routes.set(route, op);
    if (path !== op.path) report(ctx, IMPORT_CODES.pathFragment, { method: op.method.toUpperCase(), path: op.path, route: path }, op.pointer);
    const bodies = summarize(ctx, op);
    const byBodies = [bodies.success?.component, bodies.request].map((c) => (c === undefined ? undefined : scope.resources.get(c))).find((r) => r !== undefined);
    const nested = nestedOf(path, all, byBodies === undefined ? undefined : byName.get(byBodies));
    const unbound = nested ? undefined : unboundNesting(path, all, byBodies === undefined ? undefined : byName.get(byBodies));
    if (unbound) report(ctx, IMPORT_CODES.nestedUnbound, { method: op.method.toUpperCase(), path: op.path, child: unbound.child, parent: unbound.parent, aParent: aNoun(unbound.parent), param: unbound.param }, op.pointer);
    const resource = nested ? nested.child : recordOf(path, all) ?? byBodies;
    drafts.push({ op, bodies, resource, named: resource !== undefined, path, shape: pathShape(path), ...(nested ? { nested } : {}) });
  }
  placeOrphans(ctx, drafts, all, byName);

  // Standard operations: candidates first, then each resource's main collection path.
  for (const d of drafts) d.candidate = candidateOf(scope, d, byName.get(d.resource!)!);
  const mainBase = new Map<string, string>();
  for (const r of all) {
    const counts = new Map<string, number>();
    for (const d of drafts) if (d.resource === r.name && d.candidate && d.shape) counts.set(d.shape.base, (counts.get(d.shape.base) ?? 0) + 1);
    const best = [...counts].sort(([a, x], [b, y]) => y - x || a.length - b.length)[0];
    if (best) mainBase.set(r.name, best[0]);
  }
  // One path, one resource: an operation on the item path of another resource's standard
  // operations (`POST /files/{file_id}` restoring a file from the trash) acts on that record,
  // whatever its answer; filed elsewhere, `{id}` would name two records on one path.
  for (const d of drafts) {
    if (d.candidate && d.shape?.base === mainBase.get(d.resource!)) continue;
    const owner = drafts.find((o) => o !== d && o.path === d.path && o.resource !== d.resource && o.candidate && o.shape?.base === mainBase.get(o.resource!));
    if (owner) {
      d.resource = owner.resource;
      d.candidate = undefined;
    }
  }
  // A plural is also a resource's name when it has none: the one-segment collection path, unless another resource has it.
  const plurals = new Set(all.map((r) => r.name));
  const withPlural = all.map((r) => {
    const seg = mainBase.get(r.name)?.slice(1);
    if (!seg || seg === r.name || !PLURAL.test(seg) || plurals.has(seg)) return r;
    plurals.add(seg);
    return { ...r, plural: seg };
  });
  const final = new Map(withPlural.map((r) => [r.name, r]));

  const keys = new Map<string, Set<string>>();
  const placed: Placed[] = [];
  // Each operation's query parameters the endpoint carries, reported once the pagination is known.
  const asked: [Operation, Set<string>][] = [];
  const lists: Listed[] = [];
  const nestings: Parameters<typeof asRefs>[2][number][] = [];
  for (const d of drafts) {
    const resource = final.get(d.resource!)!;
    const taken = keys.get(resource.name) ?? keys.set(resource.name, new Set(STANDARD_OPERATIONS)).get(resource.name)!;
    const base = mainBase.get(resource.name);
    const standard = d.candidate && d.shape?.base === base && !usedStandard(placed, resource.name, d.candidate) ? d.candidate : undefined;
    const nestedOp = !standard && d.nested
      ? nestedOperation(d.nested, d.op, d.bodies.success, requestFits(scope, d.op, resource, d.nested.item === undefined), requestWhole(scope, d.op, resource))
      : undefined;
    let key: string;
    let operation: OperationName;
    if (standard) {
      key = standard;
      operation = standard;
    } else {
      key = unique(operationKey(d.op), taken);
      taken.add(key);
      // A nested list or create, named; else an action, what it does said in the document's own prose.
      operation = nestedOp ?? 'action';
    }
    // `{id}` is the record's own: a parent parameter named id (`/users/{id}/posts`) is named after its resource (`{userId}`), its documented name kept for its shape.
    const nest = nestedOp ? withParentParam(d.nested!, d.path) : undefined;
    if (nest) nestings.push({ ...nest.nested, op: d.op });
    // A nested item's own parameter is the record's id, written `{id}` as on the plain path.
    const { path, renamed = {}, idParam } = nest
      ? { path: nest.nested.item !== undefined ? nest.path.replace(/\{[^}]+\}$/, '{id}') : nest.path, renamed: nest.renamed, idParam: undefined }
      : endpointPath(d.path, base);
    const id = `${resource.name}.${key}`;
    if (!standard && !nestedOp) report(ctx, IMPORT_CODES.endpointNamed, { method: d.op.method.toUpperCase(), path: d.op.path, resource: resource.name, id }, d.op.pointer);
    const convention = CONVENTIONS[operation];
    const request = requestShape(scope, d.op, resource, operation === 'update', operation === 'create', operation === 'action' ? key : undefined) ?? convention.request;
    const own: { key: string; fields?: Field[] } = { key };
    const read = responsesOf(scope, d.op, resource, operation === 'action', operation === 'action' ? own : undefined) ?? convention.responses;
    let responses = operation === 'action' ? actionResponses(read) : read;
    if (!responses.some((r) => r.status >= 200 && r.status < 300)) {
      const success = convention.responses.filter((r) => r.status < 300);
      report(ctx, IMPORT_CODES.successConvention, { method: d.op.method.toUpperCase(), path: d.op.path, statuses: responses.map((r) => r.status).join(', ') || 'none', operation, success: success.map((r) => `${r.status}${r.body === 'none' ? '' : ` with the ${r.body === 'page' ? 'page' : r.body === 'resource' ? 'record' : r.body}`}`).join(', ') }, child(d.op.pointer, 'responses'));
      responses = [...success, ...responses];
    }
    const summary = text(d.op.node.summary) ?? text(d.op.node.description);
    const action = operation === 'action' ? actionOf(d.op, responses, path, own.fields) : undefined;
    const query = operation === 'list' ? listQuery(scope, d.op, resource, key) : undefined;
    asked.push([d.op, new Set(query?.filters.map((f) => `query ${f.field}`) ?? [])]);
    if (operation === 'list') lists.push({ op: d.op, ...(d.bodies.success?.envelope ? { envelope: d.bodies.success.envelope } : {}) });
    const endpoint: Endpoint = defined({
      id,
      name: key,
      resource: resource.name,
      operation,
      method: d.op.method.toUpperCase() as HttpMethod,
      path,
      params: templateParams(path).map((name) => (nest && name === nest.nested.param
        ? { name, binding: { kind: 'parent' as const, field: nest.nested.field, resource: nest.nested.parent }, declared: true, pointer: pointer('endpoints', resource.name, key, 'params', name) }
        : paramOf(scope, d.op, name, resource, key, renamed[name]))),
      summary,
      request,
      responses,
      errors: [],
      explicit: true,
      action,
      query,
      pointer: pointer('endpoints', resource.name, key),
    });
    const requires = operation === 'create' && request.kind === 'fields' ? requestRequires(scope, d.op, resource) : undefined;
    const body = operation === 'create' && request.kind === 'fields' ? requestRecord(scope, d.op, resource) : undefined;
    placed.push({ op: d.op, endpoint, ...(idParam !== undefined ? { idParam } : {}), ...(requires ? { requires } : {}), ...(body ? { body } : {}) });
  }
  const paging = importPagination(ctx, lists);
  // A list answering another page body than the part's states its own.
  placed.forEach((p, i) => {
    const page = paging.pages?.get(p.op);
    if (page) placed[i] = { ...p, endpoint: { ...p.endpoint, page } };
  });
  for (const [op, carried] of asked) extraParameters(ctx, op, new Set([...carried, ...(paging.carried.get(op) ?? [])]));
  // With the pagination stated as a bare array, a bare array is the page body it says: no longer
  // a difference to report. Under an envelope, a list answering a bare array still differs.
  if (paging.pagination?.body.kind === 'array') ctx.findings.splice(0, ctx.findings.length, ...ctx.findings.filter((f) => f.code !== IMPORT_CODES.listPage.code));
  // Grouped by resource, in the resources' order, so the part reads resource by resource.
  const order = new Map(withPlural.map((r, i) => [r.name, i]));
  const withIds = asRefs(ctx, withPlural, nestings).map((r) => envelopeFromBodies(ctx, nestedFromCreate(ctx, optionalWhenCreateOmits(ctx, settleId(ctx, idFromPaths(ctx, r, placed), placed), placed), placed), placed));
  const ided = new Map(withIds.map((r) => [r.name, r]));
  const endpoints = withOperationIds(documentedIdNames(placed.map((p) => p.endpoint), placed), placed).map((e) => conventional(e, ided.get(e.resource)!)).sort((a, b) => order.get(a.resource)! - order.get(b.resource)!);
  return { resources: withIds, endpoints, placed, ...(paging.pagination ? { pagination: paging.pagination } : {}) };
}

/** A nesting whose parent parameter is named id, with that parameter named after the parent (`{userId}`) in it and in the path. */
function withParentParam(nested: Nested, path: string): { nested: Nested; path: string; renamed: Record<string, string> } {
  if (nested.param !== 'id') return { nested, path, renamed: {} };
  let name = `${nested.parent}Id`;
  for (let n = 2; path.includes(`{${name}}`); n++) name = `${nested.parent}Id${n}`;
  return { nested: { ...nested, param: name }, path: path.replace('{id}', `{${name}}`), renamed: { [name]: 'id' } };
}

function usedStandard(placed: readonly Placed[], resource: string, op: StandardOperation): boolean {
  // Keyed by the operation: a nested list or create (named after its operationId) leaves the plain one free.
  return placed.some((p) => p.endpoint.resource === resource && p.endpoint.name === op);
}

/** Operations whose bodies name no resource: the path's other operations, the path's first segment, or a new resource. */
function placeOrphans(ctx: ImportContext, drafts: Draft[], all: Resource[], byName: Map<string, Resource>): void {
  for (const d of drafts) {
    if (d.resource !== undefined) continue;
    const where = { method: d.op.method.toUpperCase(), path: d.op.path };
    const sibling = drafts.find((o) => o.path === d.path && o.named);
    if (sibling) {
      d.resource = sibling.resource;
      report(ctx, IMPORT_CODES.endpointResource, { ...where, how: `'${d.resource}', the resource of the other operations of its path` }, d.op.pointer);
      continue;
    }
    const segments = d.path.split('/').filter((s) => s && !s.startsWith('{'));
    const match = segments.map((s) => all.find((r) => sameName(s, r.name))).find((r) => r !== undefined);
    if (match) {
      d.resource = match.name;
      report(ctx, IMPORT_CODES.endpointResource, { ...where, how: `'${match.name}', the resource its path names` }, d.op.pointer);
      continue;
    }
    const name = keyName(segments[0] ?? 'root', 'root');
    if (!byName.has(name)) {
      const made: Resource = { name, plural: name, owned: false, unknownFields: 'ignore', readOnlyFields: 'either', fields: [], unique: [], rules: [], pointer: pointer('resources', name) };
      all.push(made);
      byName.set(name, made);
    }
    d.resource = name;
    report(ctx, IMPORT_CODES.endpointResource, { ...where, how: `a resource named after its path, '${name}', without fields` }, d.op.pointer);
  }
}

/** The standard operation this operation would be, on its own path. */
function candidateOf(scope: SchemaScope, d: Draft, resource: Resource): StandardOperation | undefined {
  if (!d.shape) return undefined;
  const mine = (c: string | undefined) => c !== undefined && scope.resources.get(c) === d.resource;
  const success = d.bodies.success;
  const item = d.shape.param !== undefined;
  const takesIt = requestFits(scope, d.op, resource, d.op.method === 'post' && !item);
  switch (d.op.method) {
    case 'get':
      if (!item && success?.array && mine(success.component)) return 'list';
      if (item && success && !success.array && mine(success.component)) return 'read';
      return undefined;
    case 'post':
      return !item && takesIt ? 'create' : undefined;
    case 'put':
      // Some of the fields only: a partial update under PUT (requestWhole says why).
      if (!item || !takesIt) return undefined;
      return requestWhole(scope, d.op, resource) ? 'replace' : 'update';
    case 'patch':
      return item && takesIt ? 'update' : undefined;
    case 'delete':
      return item ? 'delete' : undefined;
    default:
      return undefined;
  }
}


/** The name of an operation that is no standard one: its operationId, else its method and path words. */
function operationKey(op: Operation): string {
  const id = op.node.operationId;
  if (typeof id === 'string' && KEY_NAME.test(id)) return id;
  if (typeof id === 'string' && id.trim()) return keyName(id, 'operation');
  const words = op.path.split('/').filter((s) => s && !s.startsWith('{')).map((s) => s.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase()));
  return op.method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}


function conventional(e: Endpoint, resource: Resource): Endpoint {
  if (e.operation === 'transition' || e.operation === 'action' || e.summary !== undefined || e.operationId !== undefined) return e;
  // What the short form cannot say keeps the endpoint written out: a list's query and its own page.
  if (e.query !== undefined || e.page !== undefined || e.expand !== undefined) return e;
  const c = CONVENTIONS[e.operation];
  const same = e.method === c.method && e.path === conventionalPath(resource.plural, e.operation)
    && JSON.stringify(e.request) === JSON.stringify(c.request) && JSON.stringify(e.responses) === JSON.stringify(c.responses);
  return same ? { ...e, explicit: false } : e;
}

/**
 * A list's query parameters that name a scalar field of the resource (not its id) are its
 * declared filters, equality only (`?status=sold`: the bare field is `eq` in every style,
 * conventions/query.ts); the others stay reported by extraParameters. A list whose document
 * names no such parameter filters by none: the format's convention (every scalar field) is no
 * statement of the document's.
 */
function listQuery(scope: SchemaScope, op: Operation, resource: Resource, key: string): ListQueryDecl | undefined {
  const base = pointer('endpoints', resource.name, key, 'query');
  const filters: ListQueryDecl['filters'][number][] = [];
  const lists: [unknown[], string][] = [[Array.isArray(op.node.parameters) ? op.node.parameters : [], op.pointer], [[...op.shared], op.pointer.slice(0, op.pointer.lastIndexOf('/'))]];
  for (const [list, at] of lists) {
    list.forEach((p, i) => {
      const r = resolve(scope.ctx, p, child(at, 'parameters', i));
      if (!r || r.node.in !== 'query' || typeof r.node.name !== 'string') return;
      // The id is not a filter (a record is read by its id: check's list-query-field-unknown).
      const field = resource.fields.find((f) => f.name === r.node.name && f.name !== (resource.id?.field ?? 'id'));
      if (!field || !['string', 'integer', 'number', 'boolean'].includes(field.type) || filters.some((f) => f.field === field.name)) return;
      // A parameter of another type names something else (RealWorld's `favorited`, a username, beside the boolean field): reported, not mapped.
      const type = isObject(r.node.schema) ? r.node.schema.type : undefined;
      if (typeof type === 'string' && type !== field.type && !(type === 'number' && field.type === 'integer') && !(type === 'integer' && field.type === 'number')) return;
      filters.push({ field: field.name, ops: ['eq'], pointer: child(base, 'filters', field.name) });
    });
  }
  // OpenAPI lists the parameters an operation takes and says nothing of others: either answer is
  // the service's. A list naming none filters by none (not by the format's convention, every field).
  return { filters, sort: [], style: 'brackets', undeclared: 'either', pointer: base };
}

/**
 * What a path parameter binds: the convention's reading (`{id}`, `{<field>Id}`), else the
 * value its OpenAPI parameter's schema describes, declared under `params:` (a string when the
 * schema says nothing the format can hold: a path segment is text).
 */
/** `documented`: the parameter's name in the document, where the path renamed it (endpointPath). */
function paramOf(scope: SchemaScope, op: Operation, name: string, resource: Resource, key: string, documented = name): PathParam {
  const at = pointer('endpoints', resource.name, key, 'path');
  const binding = conventionalBinding(name, resource);
  if (binding.kind !== 'unbound') return { name, binding, declared: false, pointer: at };
  const declaredAt = pointer('endpoints', resource.name, key, 'params', name);
  const found = [...(Array.isArray(op.node.parameters) ? op.node.parameters.map((p, i) => [p, child(op.pointer, 'parameters', i)] as const) : []),
    ...op.shared.map((p, i) => [p, child(op.pointer.slice(0, op.pointer.lastIndexOf('/')), 'parameters', i)] as const)]
    .map(([p, where]) => resolve(scope.ctx, p, where))
    .find((r) => r && r.node.in === 'path' && r.node.name === documented);
  const shape = found && isObject(found.node.schema)
    ? shapeOf(scope, found.node.schema, child(found.pointer, 'schema'), { target: declaredAt, label: name, resource: resource.name, stack: [] })
    : undefined;
  const scalar: Shape = shape && shape.type !== 'object' && shape.type !== 'array' && shape.type !== 'ref' ? shape : { type: 'string', pointer: declaredAt };
  return { name, binding: { kind: 'value', shape: scalar }, declared: true, pointer: declaredAt };
}

/**
 * An action answers the record, nothing, or a shape of its own: a page of records (a search
 * on a path of its own, `/pets/findByStatus`) has no place there and is written as the
 * record's answer being absent, none (reported by responsesOf where the body is not the record).
 */
function actionResponses(responses: readonly EndpointResponse[]): EndpointResponse[] {
  return responses.map((r) => (r.body === 'page' ? { ...r, body: 'none' as const } : r));
}

/** What the action does: on one record when its path binds the record's id, else on the collection; its behaviour the document's prose. */
function actionOf(op: Operation, responses: readonly EndpointResponse[], path: string, ownFields?: readonly Field[]): ActionDef {
  const success = responses.find((r) => r.status >= 200 && r.status < 300);
  // The document's own prose; where it has none, that it has none (the reference answers 501 either way).
  const behaviour = [text(op.node.summary), text(op.node.description)].filter(Boolean).join('\n\n')
    || `Not described: the OpenAPI document gives ${op.method.toUpperCase()} ${op.path} no summary nor description.`;
  return defined({
    target: templateParams(path).includes('id') ? 'record' : 'collection',
    response: success?.body === 'resource' ? { kind: 'resource' as const } : success?.body === 'shape' && ownFields ? { kind: 'shape' as const, fields: ownFields } : { kind: 'none' as const },
    behaviour,
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}
