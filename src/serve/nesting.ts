/**
 * Part 4 at run time, nested paths and singletons (docs/format.md "Path parameters").
 *
 * Through a parent (`/members/{memberId}/loans`, the parameter bound to the ref field
 * `member` of a loan, src/spec/conventions/paths.ts):
 *   - the parent must exist and be visible to the caller, or the answer is 404 — on every
 *     operation, so a nested path never tells records of a parent that is not there;
 *   - list holds only the parent's children (an exact filter on the ref field);
 *   - create sets the ref from the path; a body that names another parent is refused
 *     with validation-failed at the ref's pointer (the strict reading: the path and the
 *     body are two statements of one fact, and they disagree);
 *   - read, update, replace, delete and transitions of a record that does not belong to
 *     the parent are 404, as if the record were not there (it is not, at that address);
 *     update and replace may not move the record to another parent through this path.
 *
 * A singleton (`select: caller`, `/me`) is the one record the calling principal owns of an
 * owned resource: none yet is 404 (a replace creates it when the resource is `perOwner:
 * one`), no credentials is 401.
 */
import type { FastifyRequest } from 'fastify';
import { idOf } from '../spec/conventions/ids.ts';
import { parentParams } from '../spec/conventions/paths.ts';
import type { Endpoint, Resource } from '../spec/model.ts';
import type { ScalarValue } from '../store/store.ts';
import { ownerOf } from './auth/ownership.ts';
import type { ServeContext } from './context.ts';
import { HttpError } from './errors.ts';
import { isObject } from './representation.ts';
import { validationFailed } from './validation.ts';

export interface Parent {
  /** The path parameter. */
  readonly param: string;
  /** The child's ref field it binds. */
  readonly field: string;
  readonly resource: Resource;
  /** Integer ids are stored and compared as numbers. */
  readonly integer: boolean;
}

/** The parents an endpoint's path binds, compiled once at start-up. */
export function parentsOf(ctx: ServeContext, endpoint: Endpoint): Parent[] {
  const out: Parent[] = [];
  for (const p of parentParams(endpoint)) {
    const resource = ctx.resources.get(p.resource);
    if (resource) out.push({ param: p.name, field: p.field, resource, integer: idOf(resource).type === 'integer' });
  }
  return out;
}

function paramOf(request: FastifyRequest, name: string): string {
  return String((request.params as Record<string, string>)[name] ?? '');
}

/** The ref value the path names, as the child stores it. */
function valueOf(parent: Parent, raw: string): ScalarValue {
  return parent.integer && /^(0|[1-9][0-9]*)$/.test(raw) ? Number(raw) : raw;
}

/**
 * The ref values the path binds, after checking that each parent exists and is visible to
 * the caller (404 otherwise). Empty for a flat path.
 */
export async function boundParents(ctx: ServeContext, parents: readonly Parent[], request: FastifyRequest): Promise<Record<string, ScalarValue>> {
  const out: Record<string, ScalarValue> = {};
  for (const parent of parents) {
    const raw = paramOf(request, parent.param);
    const record = await ctx.store.get(parent.resource.name, raw);
    const owner = ownerOf(parent.resource, request);
    if (!record || (owner !== undefined && record.owner !== owner)) {
      throw new HttpError('not-found', { detail: `There is no ${parent.resource.name} with id '${raw}'.` });
    }
    out[parent.field] = valueOf(parent, raw);
  }
  return out;
}

/** Whether a record's refs are the ones the path binds. */
export function belongsTo(bound: Readonly<Record<string, ScalarValue>>, record: { readonly data: Readonly<Record<string, unknown>> }): boolean {
  // The record's data is read only when a parent binds a field: a stored record parses its
  // JSON text on first read of `data`, which a read of a top-level resource never needs.
  for (const field in bound) if (record.data[field] !== bound[field]) return false;
  return true;
}

/**
 * Refuses a body whose ref contradicts the path (422 at the ref's pointer). Where the body
 * leaves a ref out, `fill(field)` says whether to write the path's value into it before
 * validation (create and replace, when the request carries the field at all).
 */
export function reconcileBody(bound: Readonly<Record<string, ScalarValue>>, body: unknown, fill: (field: string) => boolean): void {
  if (!isObject(body)) return; // validation refuses it with its own words
  const violations = [];
  for (const [field, value] of Object.entries(bound)) {
    if (!(field in body)) {
      if (fill(field)) body[field] = value;
    } else if (body[field] !== value) {
      violations.push({ pointer: `/${field}`, message: `names ${JSON.stringify(body[field])}, but the path is that of ${JSON.stringify(value)}` });
    }
  }
  if (violations.length) throw validationFailed(violations);
}

/** The id of the caller's own record of a singleton endpoint; undefined when there is none yet. */
export async function callersRecordId(ctx: ServeContext, resource: Resource, request: FastifyRequest): Promise<string | undefined> {
  if (!request.principal) throw new HttpError('unauthenticated', { detail: `This is the caller's own ${resource.name}: it needs credentials to say whose.` });
  const owner = ownerOf(resource, request);
  const page = await ctx.store.list(resource.name, { ...(owner !== undefined ? { owner } : {}), limit: 1, lean: true });
  return page.records[0]?.id;
}

/** The 404 of a singleton with no record yet. */
export function noRecordYet(resource: Resource): HttpError {
  return new HttpError('not-found', { detail: `You have no ${resource.name} yet.` });
}

/**
 * `visibility: { parent: <field> }`: a record may only name a parent the caller sees, and
 * is stored with the caller as owner (the parent's owner), so it is seen exactly where the
 * parent is. A parent the caller does not see is refused as if it did not exist: 422 at
 * the ref, the words validation uses for a ref to no record.
 */
export async function checkParentVisible(ctx: ServeContext, resource: Resource, request: FastifyRequest, data: Readonly<Record<string, unknown>>): Promise<void> {
  const v = resource.visibility;
  if (!v || !(v.field in data)) return;
  const field = resource.fields.find((f) => f.name === v.field);
  const parentResource = field?.resource ? ctx.resources.get(field.resource) : undefined;
  if (!parentResource) return;
  const value = data[v.field];
  const record = value === null || value === undefined ? undefined : await ctx.store.get(parentResource.name, String(value));
  const owner = ownerOf(parentResource, request);
  if (!record || (owner !== undefined && record.owner !== owner)) {
    throw validationFailed([{ pointer: `/${v.field}`, message: `there is no ${parentResource.name} with id ${JSON.stringify(value)}` }]);
  }
}
