/**
 * Part 2 at run time: create, read, update, replace and delete (the list operation is
 * src/serve/pagination.ts, transitions src/serve/states.ts).
 *
 *   create   validate; the spec's defaults for omitted fields; the id as `id.assigned` says
 *            (uuid: a random UUID; sequence: the store's number; client: from the body, a
 *            taken one refused on the id's pointer); the state machine's initial state.
 *            Nothing else is set: a readOnly field without a default stays absent.
 *            201, Location, ETag. Idempotency-Key honoured.
 *   read     200 and ETag; If-None-Match answered with 304 (RFC 9110 §13.1.2).
 *   update   a JSON merge patch (RFC 7396), checked before and after merging. null removes
 *            a member (§2); a required member cannot be removed, except that a required
 *            nullable one takes null as its value. A removed member with a default takes
 *            its default again, as it would on create.
 *   replace  the writable fields in full; readOnly fields, the state and the fields of other
 *            API versions (part 9) keep their values.
 *   delete   204.
 * If-Match (RFC 9110 §13.1.1) on update, replace and delete: 412 on a stale tag, and the
 * write is compare-and-set on the version read (src/serve/concurrency.ts). The state field
 * changes only through transitions: validation refuses it on every request here.
 *
 * The id is the store's id column, not a member of the stored data; the representation
 * puts it back (src/serve/representation.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Endpoint, Field, Resource, Shape, StateMachine } from '../spec/model.ts';
import type { EventMaker } from '../store/events.ts';
import { DuplicateIdError, type ScalarValue, type StoredRecord } from '../store/store.ts';
import { changeRecord, type ChangeOptions, ifMatchOf, ifNoneMatchHits, ifNoneMatchOf, notFound, removeRecord } from './concurrency.ts';
import { ownerOf, visibleTo } from './auth/ownership.ts';
import type { ServeContext } from './context.ts';
import { expandPaths, expandRecords } from './expand.ts';
import { idempotent, sendOutcome } from './idempotency.ts';
import { etagOf, isObject, keepUnseen, present, presentJson, recordBody, recordObject, recordOutcome, type Outcome } from './representation.ts';
import { idOf, idParamOf, type IdRule } from '../spec/conventions/ids.ts';
import { idParam, recordAddress } from '../spec/conventions/paths.ts';
import { belongsTo, boundParents, callersRecordId, checkParentVisible, noRecordYet, parentsOf, reconcileBody, type Parent } from './nesting.ts';
import { HttpError } from './errors.ts';
import { validateBody, validationFailed, validatorsFor, type BodyValidator, type ResourceValidators } from './validation.ts';
import { utcDateTime } from '../spec/conventions/query.ts';

interface Operation {
  readonly ctx: ServeContext;
  readonly endpoint: Endpoint;
  readonly resource: Resource;
  readonly id: IdRule;
  readonly machine?: StateMachine;
  readonly validators: ResourceValidators;
  /** The request body's validator; undefined when the endpoint takes no body. */
  readonly body?: BodyValidator;
  readonly success: { readonly status: number; readonly withBody: boolean };
  readonly idParam: string;
  /** The parents a nested path binds (src/serve/nesting.ts); empty for a flat one. */
  readonly parents: readonly Parent[];
  /** `select: caller`: the caller's own record, addressed without an id. */
  readonly singleton: boolean;
  /** Where a created record is read: its Location (src/spec/conventions/paths.ts recordAddress); none where nothing reads it. */
  readonly address: Endpoint | undefined;
  /** The events each write triggers (part 6); undefined where it triggers none. */
  readonly events: { readonly created?: EventMaker; readonly updated?: EventMaker; readonly deleted?: EventMaker };
}

export function resourceHandler(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  const resource = ctx.resources.get(endpoint.resource);
  if (!resource) throw new Error(`bug: endpoint ${endpoint.id} of unknown resource ${endpoint.resource}`);
  // Compiled here, once, when the routes are registered at start-up.
  const validators = validatorsFor(ctx, resource);
  const op: Operation = {
    ctx, endpoint, resource, validators,
    id: idOf(resource),
    machine: ctx.machines.get(resource.name),
    body: requestValidator(validators, endpoint),
    success: successOf(endpoint),
    idParam: idParam(endpoint) ?? idParamOf(endpoint.path),
    parents: parentsOf(ctx, endpoint),
    singleton: endpoint.select === 'caller',
    address: recordAddress(ctx.spec.endpoints, resource.name),
    events: makersOf(ctx, resource.name),
  };
  switch (endpoint.operation) {
    case 'create':
      return idempotent(ctx, (request) => create(op, request));
    case 'read':
      return respond((request) => read(op, request));
    case 'update':
      return respond((request) => update(op, request));
    case 'replace':
      return respond((request) => replace(op, request));
    case 'delete':
      return respond((request) => remove(op, request));
    default:
      throw new Error(`bug: resourceHandler given the ${endpoint.operation} endpoint ${endpoint.id}`);
  }
}

function respond(run: (request: FastifyRequest) => Promise<Outcome>): RouteHandlerMethod {
  return async (request: FastifyRequest, reply: FastifyReply) => sendOutcome(reply, await run(request));
}

function requestValidator(v: ResourceValidators, endpoint: Endpoint): BodyValidator | undefined {
  const r = endpoint.request;
  if (r.kind === 'none') return undefined;
  const op = endpoint.operation;
  if (r.kind === 'fields') return v.fields(r.fields, op === 'update' ? 'none' : 'declared', op === 'create' ? 'create' : 'other');
  return op === 'create' ? v.create : op === 'update' ? v.update : v.replace;
}

/** The endpoint's success response: its first 2xx (the convention's when it declares none). */
function successOf(endpoint: Endpoint): Operation['success'] {
  const declared = endpoint.responses.find((r) => r.status >= 200 && r.status < 300);
  const status = declared?.status ?? (endpoint.operation === 'create' ? 201 : endpoint.operation === 'delete' ? 204 : 200);
  // RFC 9110 §15.3.5: a 204 has no content, whatever the spec says of its body.
  return { status, withBody: status !== 204 && (declared ? declared.body === 'resource' : endpoint.operation !== 'delete') };
}

function makersOf(ctx: ServeContext, resource: string): Operation['events'] {
  const e = ctx.events;
  if (!e) return {};
  const created = e.maker(resource, 'created');
  const updated = e.maker(resource, 'updated');
  const deleted = e.maker(resource, 'deleted');
  return { ...(created ? { created } : {}), ...(updated ? { updated } : {}), ...(deleted ? { deleted } : {}) };
}

/**
 * What a path without parents binds. Call sites await boundParents (and singletonId, and
 * checkParentVisible) only where there is something to look up: an await takes a turn of the
 * microtask queue even for nothing: a read by id took two (parents, id), a create two (parents,
 * a parent's visibility).
 */
const NO_PARENTS: Readonly<Record<string, ScalarValue>> = Object.freeze({});

function pathId(op: Operation, request: FastifyRequest): string {
  return String((request.params as Record<string, string>)[op.idParam] ?? '');
}

/** The record a singleton's request addresses: the caller's own (404 when none). Other item requests name theirs in the path (pathId). */
async function singletonId(op: Operation, request: FastifyRequest): Promise<string> {
  const id = await callersRecordId(op.ctx, op.resource, request);
  if (id === undefined) throw noRecordYet(op.resource);
  return id;
}

/** Whether the request carries a field at all (so a nested path's ref may be filled into it). */
function takes(op: Operation, field: string): boolean {
  const r = op.endpoint.request;
  return r.kind === 'resource' || (r.kind === 'fields' && r.fields.includes(field));
}

/** A nested path's check of a record: it belongs to the parents the path names. */
function belongsCheck(bound: Readonly<Record<string, unknown>>): ((current: StoredRecord) => boolean) | undefined {
  return Object.keys(bound).length ? (current) => belongsTo(bound as Record<string, string | number>, current) : undefined;
}

function outcome(op: Operation, record: StoredRecord, status = op.success.status): Outcome {
  const o = recordOutcome(op.resource, record, status, op.address);
  return op.success.withBody ? o : { status: o.status, headers: o.headers };
}

/** The body of an endpoint that takes none: absent, or refused. */
async function bodyOf(op: Operation, request: FastifyRequest): Promise<Record<string, unknown>> {
  if (op.body) return validateBody(op.ctx.store, op.body, request.body, visibleTo(op.ctx.resources, request));
  if (request.body !== undefined) throw validationFailed([{ pointer: '', message: 'this request takes no body' }]);
  return {};
}

// ---- the operations -------------------------------------------------------------

async function create(op: Operation, request: FastifyRequest): Promise<Outcome> {
  const bound = op.parents.length ? await boundParents(op.ctx, op.parents, request) : NO_PARENTS;
  reconcileBody(bound, request.body, (field) => takes(op, field));
  return insertRecord(op, request, await bodyOf(op, request), bound);
}

/** Inserts a validated body: the spec's defaults, the id, the initial state, the path's refs, the owner. */
async function insertRecord(op: Operation, request: FastifyRequest, body: Record<string, unknown>, bound: Readonly<Record<string, unknown>>, status = op.success.status): Promise<Outcome> {
  const { ctx, resource, id, machine } = op;
  if (resource.perOwner === 'one' && (await callersRecordId(ctx, resource, request)) !== undefined) {
    throw new HttpError('already-exists', { detail: `You have a ${resource.name} already, and each owner has one: change it instead.` });
  }
  // The body was parsed for this request alone: it is ours to shape, no copy needed.
  const data = withDefaults(op.validators.declared, body);
  Object.assign(data, bound);
  if (resource.visibility) await checkParentVisible(ctx, resource, request, data);
  let storeId: string | undefined;
  // An opaque service id (`service`) is a UUID here too: any text satisfies the spec.
  if (id.assigned === 'uuid' || id.assigned === 'service') storeId = randomUUID();
  else if (id.assigned === 'client') storeId = String(body[id.field]);
  delete data[id.field];
  if (machine) data[machine.field] = machine.initial;
  try {
    const owner = ownerOf(resource, request);
    const events = op.events.created;
    const domain = ctx.domain.create(resource, request, body, storeId);
    const options = events || domain ? { ...(events ? { events } : {}), ...(domain ? { domain } : {}) } : undefined;
    const record = await ctx.store.insert(resource.name, { ...(storeId !== undefined ? { id: storeId } : {}), ...(owner !== undefined ? { owner } : {}), data }, options);
    return outcome(op, record, status);
  } catch (error) {
    if (error instanceof DuplicateIdError) throw validationFailed([{ pointer: `/${id.field}`, message: `is taken: a ${resource.name} with this id exists` }]);
    throw error;
  }
}

async function read(op: Operation, request: FastifyRequest): Promise<Outcome> {
  const bound = op.parents.length ? await boundParents(op.ctx, op.parents, request) : NO_PARENTS;
  const id = op.singleton ? await singletonId(op, request) : pathId(op, request);
  const record = await op.ctx.store.get(op.resource.name, id);
  const owner = ownerOf(op.resource, request);
  if (!record || (owner !== undefined && record.owner !== owner) || !belongsTo(bound, record)) throw notFound(op.resource.name, id);
  // `?expand=` (declared on the endpoint): another representation, so it carries no ETag of the record's.
  const paths = op.endpoint.expand ? expandPaths(op.ctx, op.endpoint, op.resource, request) : undefined;
  if (paths) {
    const body = present(op.resource, record);
    await expandRecords(op.ctx, op.resource, [body], paths, request);
    return { status: op.success.status, headers: {}, body: recordObject(op.resource, body) };
  }
  const inm = ifNoneMatchOf(request);
  // RFC 9110 §15.4.5: a 304 carries the ETag the 200 would have carried.
  if (inm !== undefined && ifNoneMatchHits(inm, record)) return { status: 304, headers: { etag: etagOf(record) } };
  return { status: op.success.status, headers: { etag: etagOf(record) }, body: recordBody(op.resource, presentJson(op.resource, record)) };
}

async function update(op: Operation, request: FastifyRequest): Promise<Outcome> {
  const { ctx, resource } = op;
  const bound = op.parents.length ? await boundParents(op.ctx, op.parents, request) : NO_PARENTS;
  // A merge patch leaves out what it does not change: the path fills nothing in.
  reconcileBody(bound, request.body, () => false);
  let patch: Record<string, unknown> | undefined;
  const record = await changeRecord(ctx.store, resource.name, (op.singleton ? await singletonId(op, request) : pathId(op, request)), async (current) => {
    // After the precondition (RFC 9110 §13.2.2), once however often the write is retried.
    patch ??= await bodyOf(op, request);
    const next = withDefaults(op.validators.declared, mergePatch(op.validators.declared, current.data, patch) as Record<string, unknown>);
    const violations = op.validators.whole.check(writablePart(op, next));
    if (violations.length) throw validationFailed(violations);
    if (resource.visibility) await checkParentVisible(ctx, resource, request, next);
    return next;
  }, changeOptions(op, request, bound));
  return outcome(op, record);
}

async function replace(op: Operation, request: FastifyRequest): Promise<Outcome> {
  const { ctx, resource, machine } = op;
  const bound = op.parents.length ? await boundParents(op.ctx, op.parents, request) : NO_PARENTS;
  reconcileBody(bound, request.body, (field) => takes(op, field));
  let target: string;
  if (op.singleton) {
    const mine = await callersRecordId(ctx, resource, request);
    // RFC 9110 §9.3.4: a PUT that creates the target's state answers 201.
    if (mine === undefined) {
      if (resource.perOwner !== 'one') throw noRecordYet(resource);
      return insertRecord(op, request, await bodyOf(op, request), bound, 201);
    }
    target = mine;
  } else target = pathId(op, request);
  let body: Record<string, unknown> | undefined;
  const record = await changeRecord(ctx.store, resource.name, target, async (current) => {
    body ??= await bodyOf(op, request);
    const next = withDefaults(op.validators.declared, body);
    // What clients cannot send keeps its stored value: readOnly fields and the state.
    const kept = op.validators.declared.filter((f) => f.readOnly).map((f) => f.name);
    if (machine) kept.push(machine.field);
    for (const name of kept) if (name in current.data) next[name] = structuredClone(current.data[name]);
    // So do the fields this version does not see: other versions' (part 9).
    keepUnseen(resource, current.data, next);
    delete next[op.id.field];
    if (resource.visibility) await checkParentVisible(ctx, resource, request, next);
    return next;
  }, changeOptions(op, request, bound));
  return outcome(op, record);
}

async function remove(op: Operation, request: FastifyRequest): Promise<Outcome> {
  const bound = op.parents.length ? await boundParents(op.ctx, op.parents, request) : NO_PARENTS;
  const removed = await removeRecord(op.ctx.store, op.resource.name, (op.singleton ? await singletonId(op, request) : pathId(op, request)), ifMatchOf(request), ownerOf(op.resource, request), op.events.deleted, belongsCheck(bound), 1, op.ctx.domain.remove(op.resource, request));
  if (!op.success.withBody) return { status: op.success.status, headers: {} };
  return { status: op.success.status, headers: {}, body: recordObject(op.resource, present(op.resource, removed)) };
}

function changeOptions(op: Operation, request: FastifyRequest, bound: Readonly<Record<string, unknown>>): ChangeOptions {
  const owner = ownerOf(op.resource, request);
  const events = op.events.updated;
  const belongs = belongsCheck(bound);
  // Managed fields, record rules and the resource's onUpdate guards and effects. Their `request`
  // is what the client may write of the body: a member the service drops (a read-only one under
  // `readOnlyFields: ignore`) is not something the request asked for.
  const domain = op.ctx.domain.change(op.resource, request, isObject(request.body) ? writablePart(op, request.body) : {});
  return { ifMatch: ifMatchOf(request), ...(owner !== undefined ? { expect: { owner } } : {}), ...(events ? { events } : {}), ...(belongs ? { belongs } : {}), ...(domain ? { domain } : {}) };
}

// ---- data -------------------------------------------------------------------------

/** The members a client may write, as `whole` checks them after a merge patch. */
function writablePart(op: Operation, data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of op.validators.declared) {
    if (f.readOnly || f.name === op.machine?.field || f.name === op.id.field || !(f.name in data)) continue;
    out[f.name] = data[f.name];
  }
  return out;
}

/**
 * The spec's own defaults for omitted members, nested objects (and objects in lists)
 * included; and each date-time in UTC (utcDateTime: `12:00:00+02:00` is kept as
 * `10:00:00Z`, the same instant), so that their text order is their order in time, which
 * lists filter and sort by.
 */
export function withDefaults(fields: readonly Field[], data: Record<string, unknown>): Record<string, unknown> {
  for (const f of fields) {
    if (!(f.name in data)) {
      if (f.hasDefault) data[f.name] = inUtc(f, structuredClone(f.default));
      continue;
    }
    const value = data[f.name];
    if (f.format === 'date-time') data[f.name] = inUtc(f, value);
    else fillShape(f, value);
  }
  return data;
}

function fillShape(shape: Shape, value: unknown): void {
  if (shape.type === 'object' && shape.properties && isObject(value)) withDefaults(shape.properties, value);
  else if (shape.type === 'array' && shape.items && Array.isArray(value)) {
    if (shape.items.format === 'date-time') value.forEach((item, i) => (value[i] = inUtc(shape.items!, item)));
    else for (const item of value) fillShape(shape.items, item);
  }
}

/** A date-time in UTC (utcDateTime); as it is where its text is constrained (a pattern, an enum), or not a date-time. */
function inUtc(shape: Shape, value: unknown): unknown {
  if (typeof value !== 'string' || shape.pattern !== undefined || shape.enum !== undefined) return value;
  return utcDateTime(value) ?? value;
}

/**
 * RFC 7396 §2 MergePatch, knowing the fields: null removes a member, except a required
 * nullable member, which takes null (it cannot be removed, and null is a value it allows).
 * Objects merge member by member; everything else, lists included, is replaced.
 */
export function mergePatch(fields: readonly Field[] | undefined, target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    const f = fields?.find((x) => x.name === name);
    if (value === null) {
      if (f?.required && f.nullable) out[name] = null;
      else delete out[name];
    } else {
      // RFC 7396 §2: an object in the patch is merged member by member, whatever the field's declared type allows (an any field's object too).
      out[name] = f === undefined || f.type === 'object' || f.type === 'any' ? mergePatch(f?.properties, out[name], value) : structuredClone(value);
    }
  }
  return out;
}
