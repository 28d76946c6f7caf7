/**
 * Bulk update and bulk delete at run time (`operation: bulk-update`, `bulk-delete`; the
 * convention is src/spec/conventions/bulk.ts, docs/format.md "Bulk writes").
 *
 *   bulk-update  `{ "items": [{ "<id>": id, ...a merge patch (RFC 7396) }] }`: each item is
 *                checked as its single update would be (the patch, then the record after
 *                merging it), every failing member listed at its pointer (`/items/2/title`)
 *   bulk-delete  `{ "items": [id, ...] }`
 *
 * A record that is missing, or that the caller may not see (another principal's, on an
 * owned resource), fails the whole request: 422 validation-failed at the item's id
 * (`/items/2/id`, `/items/2`), worded alike for both, so nothing of another principal's
 * records is revealed. An id given twice is refused at its second place. Then every change
 * is written in one transaction (Store.changeMany), each with its event, or none is. The
 * updates are compare-and-set on the versions read: a record changed meanwhile is read and
 * merged again, as a single update without If-Match is (no lost update).
 */
import { belongsTo, boundParents, parentsOf, reconcileBody } from './nesting.ts';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Endpoint, Resource } from '../spec/model.ts';
import { BULK_ITEMS, itemPointer } from '../spec/conventions/bulk.ts';
import { idOf, type IdRule } from '../spec/conventions/ids.ts';
import type { BatchChange, ScalarValue, StoredRecord } from '../store/store.ts';
import { ownerOf, visibleTo } from './auth/ownership.ts';
import type { ServeContext } from './context.ts';
import { HttpError, type FieldViolation } from './errors.ts';
import { idempotent, sendOutcome } from './idempotency.ts';
import { isObject, present, type Outcome } from './representation.ts';
import { mergePatch, withDefaults } from './resources.ts';
import { bulkItems } from './bulk.ts';
import { validateBody, validationFailed, validatorsFor } from './validation.ts';

/** How often a bulk update re-reads records that kept changing under it (as concurrency.ts does for one). */
const ATTEMPTS = 8;

export function bulkChangeHandler(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  const resource = ctx.resources.get(endpoint.resource);
  if (!resource) throw new Error(`bug: bulk endpoint ${endpoint.id} of unknown resource`);
  const run = endpoint.operation === 'bulk-update' ? bulkUpdate(ctx, endpoint, resource) : bulkDelete(ctx, endpoint, resource);
  // A POST (bulk-delete by convention) honours Idempotency-Key as a create does; a PATCH is answered as it comes.
  if (endpoint.method === 'POST') return idempotent(ctx, run);
  return async (request: FastifyRequest, reply: FastifyReply) => sendOutcome(reply, await run(request));
}

function successOf(endpoint: Endpoint): { status: number; withBody: boolean } {
  const declared = endpoint.responses.find((r) => r.status >= 200 && r.status < 300);
  const status = declared?.status ?? (endpoint.operation === 'bulk-delete' ? 204 : 200);
  return { status, withBody: status !== 204 && (declared ? declared.body === 'items' || declared.body === 'resource' : endpoint.operation !== 'bulk-delete') };
}

function bulkUpdate(ctx: ServeContext, endpoint: Endpoint, resource: Resource): (request: FastifyRequest) => Promise<Outcome> {
  const validators = validatorsFor(ctx, resource);
  const parents = parentsOf(ctx, endpoint);
  const id = idOf(resource);
  const machine = ctx.machines.get(resource.name);
  const events = ctx.events?.maker(resource.name, 'updated');
  const success = successOf(endpoint);
  // What a client may write, as `whole` checks it after a merge patch (resources.ts does the same for one).
  const writable = (data: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const f of validators.declared) {
      if (f.readOnly || f.name === machine?.field || f.name === id.field || !(f.name in data)) continue;
      out[f.name] = data[f.name];
    }
    return out;
  };

  return async (request) => {
    const items = bulkItems(request.body, `a list of merge patches, each with '${id.field}'`, endpoint.bulk?.max);
    const violations: FieldViolation[] = [];
    const ids: string[] = [];
    const patches: Record<string, unknown>[] = [];
    for (const [index, item] of items.entries()) {
      if (!isObject(item)) {
        violations.push({ pointer: itemPointer(index), message: `must be an object: a merge patch of a ${resource.name} with its '${id.field}'` });
        continue;
      }
      const given = idValue(id, item[id.field]);
      if (given === undefined) violations.push({ pointer: itemPointer(index, `/${id.field}`), message: item[id.field] === undefined ? `is required: the id of the ${resource.name} to change` : `must be ${id.type === 'integer' ? 'an integer' : 'a string'}, the id of a ${resource.name}` });
      const patch = { ...item };
      delete patch[id.field];
      try {
        patches[index] = await validateBody(ctx.store, validators.update, patch, visibleTo(ctx.resources, request));
      } catch (error) {
        if (!(error instanceof HttpError) || error.situation !== 'validation-failed') throw error;
        for (const v of error.options.errors ?? []) violations.push({ pointer: itemPointer(index, v.pointer), message: v.message });
      }
      if (given !== undefined) ids[index] = given;
    }
    violations.push(...repeated(ids, (i) => itemPointer(i, `/${id.field}`)));
    if (violations.length) throw validationFailed(violations);

    const owner = ownerOf(resource, request);
    const bound = await boundParents(ctx, parents, request);
    // A patch may not move a record to another parent than its path's (./nesting.ts).
    for (const [index, patch] of patches.entries()) {
      try {
        if (patch) reconcileBody(bound, patch, () => false);
      } catch (error) {
        if (!(error instanceof HttpError) || error.situation !== 'validation-failed') throw error;
        for (const v of error.options.errors ?? []) violations.push({ pointer: itemPointer(index, v.pointer), message: v.message });
      }
    }
    if (violations.length) throw validationFailed(violations);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const current = await visible(ctx, resource, ids, owner, (i) => itemPointer(i, `/${id.field}`), bound);
      const changes: BatchChange[] = [];
      for (const [index, record] of current.entries()) {
        const next = withDefaults(validators.declared, mergePatch(validators.declared, record.data, patches[index]) as Record<string, unknown>);
        for (const v of validators.whole.check(writable(next))) violations.push({ pointer: itemPointer(index, v.pointer), message: v.message });
        changes.push({ kind: 'update', id: record.id, data: next, expect: { version: record.version, ...(owner !== undefined ? { owner } : {}) } });
      }
      if (violations.length) throw validationFailed(violations);
      // Each item's guards see its own patch as `request` (an update guard may read what the request sends).
      const step = ctx.domain.change(resource, request, {});
      const result = await ctx.store.changeMany(resource.name, changes, { ...(events ? { events } : {}), ...(step ? { domains: changes.map((_, i) => ctx.domain.change(resource, request, isObject(patches[i]) ? (patches[i] as Record<string, unknown>) : {})) } : {}) });
      if (result.ok) {
        if (!success.withBody) return { status: success.status, headers: {} };
        return { status: success.status, headers: {}, body: { [BULK_ITEMS]: result.records.map((r) => present(resource, r)) } };
      }
      if (result.reason === 'missing') throw validationFailed([gone(resource, itemPointer(result.index, `/${id.field}`))]);
      // A record changed between the read and the write: read them all again and merge anew.
    }
    throw new HttpError('internal', { detail: `Some of the ${resource.plural} changed on every attempt to write them; try again.` });
  };
}

function bulkDelete(ctx: ServeContext, endpoint: Endpoint, resource: Resource): (request: FastifyRequest) => Promise<Outcome> {
  const id = idOf(resource);
  const parents = parentsOf(ctx, endpoint);
  const events = ctx.events?.maker(resource.name, 'deleted');
  const success = successOf(endpoint);
  return async (request) => {
    const items = bulkItems(request.body, `a list of ids of ${resource.plural}`, endpoint.bulk?.max);
    const violations: FieldViolation[] = [];
    const ids: string[] = [];
    for (const [index, item] of items.entries()) {
      const given = idValue(id, item);
      if (given === undefined) violations.push({ pointer: itemPointer(index), message: `must be ${id.type === 'integer' ? 'an integer' : 'a string'}, the id of a ${resource.name}` });
      else ids[index] = given;
    }
    violations.push(...repeated(ids, (i) => itemPointer(i)));
    if (violations.length) throw validationFailed(violations);
    const owner = ownerOf(resource, request);
    await visible(ctx, resource, ids, owner, (i) => itemPointer(i), await boundParents(ctx, parents, request));
    const changes: BatchChange[] = ids.map((one) => ({ kind: 'remove', id: one, ...(owner !== undefined ? { expect: { owner } } : {}) }));
    const step = ctx.domain.remove(resource, request);
    const result = await ctx.store.changeMany(resource.name, changes, { ...(events ? { events } : {}), ...(step ? { domains: changes.map(() => ctx.domain.remove(resource, request)) } : {}) });
    // Only a record removed meanwhile can fail here (no version is expected): it is missing now.
    if (!result.ok) throw validationFailed([gone(resource, itemPointer(result.index))]);
    if (!success.withBody) return { status: success.status, headers: {} };
    return { status: success.status, headers: {}, body: { [BULK_ITEMS]: result.records.map((r) => present(resource, r)) } };
  };
}

/** An id as the API types it (integers for sequence ids), as stored text; undefined when it is not one. */
function idValue(rule: IdRule, value: unknown): string | undefined {
  if (rule.type === 'integer') return Number.isSafeInteger(value) ? String(value) : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An id given a second time in one request is refused at its later place. */
function repeated(ids: readonly (string | undefined)[], pointer: (index: number) => string): FieldViolation[] {
  const seen = new Map<string, number>();
  const out: FieldViolation[] = [];
  ids.forEach((one, index) => {
    if (one === undefined) return;
    const first = seen.get(one);
    if (first !== undefined) out.push({ pointer: pointer(index), message: `repeats the id of item ${first}` });
    else seen.set(one, index);
  });
  return out;
}

/**
 * The records the ids name, every one there and the caller's to see, or 422 listing every
 * id that is not: one wording for a missing record and another principal's, which must not
 * be told apart (object-level authorization: the caller learns nothing of the other's).
 */
async function visible(ctx: ServeContext, resource: Resource, ids: readonly string[], owner: string | undefined, pointer: (index: number) => string, bound: Readonly<Record<string, ScalarValue>> = {}): Promise<StoredRecord[]> {
  const found = await Promise.all(ids.map((one) => ctx.store.get(resource.name, one)));
  const violations: FieldViolation[] = [];
  const out: StoredRecord[] = [];
  found.forEach((record, index) => {
    // Through a parent (`/patients/{patientId}/appointments/bulk`), another parent's record is as good as none.
    if (!record || (owner !== undefined && record.owner !== owner) || !belongsTo(bound, record)) violations.push(gone(resource, pointer(index)));
    else out.push(record);
  });
  if (violations.length) throw validationFailed(violations);
  return out;
}

function gone(resource: Resource, pointer: string): FieldViolation {
  return { pointer, message: `names no ${resource.name}: there is none with this id` };
}
