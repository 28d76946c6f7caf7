/**
 * Bulk create at run time (`operation: bulk-create`; the convention is
 * src/spec/conventions/bulk.ts). Every item is checked as its own create would be, and
 * every failing member of every item is listed with its pointer (`/items/3/title`) before
 * anything is written; then all the records are written in one transaction
 * (Store.insertMany), each with the events its create emits, or none is (a taken id found
 * in the write fails the whole request, at that item's id). A request over the declared
 * `max` is refused whole at `/items`, before any item is looked at. Idempotency-Key is
 * honoured as on a create.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Endpoint } from '../spec/model.ts';
import { BULK_ITEMS, countProblem, itemPointer } from '../spec/conventions/bulk.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { DuplicateIdError, type NewRecord } from '../store/store.ts';
import { ownerOf, visibleTo } from './auth/ownership.ts';
import type { ServeContext } from './context.ts';
import type { FieldViolation } from './errors.ts';
import { idempotent } from './idempotency.ts';
import { isObject, present, type Outcome } from './representation.ts';
import { boundParents, callersRecordId, checkParentVisible, parentsOf, reconcileBody } from './nesting.ts';
import { withDefaults } from './resources.ts';
import { validateBody, validationFailed, validatorsFor } from './validation.ts';
import { HttpError } from './errors.ts';

/** The items of a bulk request's body (`{ "items": [...] }`, 1 to max of them), or its refusal. */
export function bulkItems(body: unknown, what: string, max: number | undefined): unknown[] {
  if (!isObject(body)) throw validationFailed([{ pointer: '', message: `must be an object with '${BULK_ITEMS}', ${what}` }]);
  const others = Object.keys(body).filter((k) => k !== BULK_ITEMS);
  if (others.length) throw validationFailed(others.map((k) => ({ pointer: `/${k}`, message: `is not a member of a bulk request; send only '${BULK_ITEMS}'` })));
  const items = body[BULK_ITEMS];
  if (!Array.isArray(items)) throw validationFailed([{ pointer: `/${BULK_ITEMS}`, message: `must be ${what}` }]);
  const count = countProblem(items.length, max);
  if (count) throw validationFailed([{ pointer: `/${BULK_ITEMS}`, message: count }]);
  return items;
}

export function bulkHandler(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  const resource = ctx.resources.get(endpoint.resource);
  if (!resource) throw new Error(`bug: bulk endpoint ${endpoint.id} of unknown resource`);
  const validators = validatorsFor(ctx, resource);
  const id = idOf(resource);
  const machine = ctx.machines.get(resource.name);
  const events = ctx.events?.maker(resource.name, 'created');
  const max = endpoint.bulk?.max;
  const status = endpoint.responses.find((r) => r.status >= 200 && r.status < 300)?.status ?? 201;
  // Through a parent (`/members/{memberId}/loans/bulk`): every item is the parent's child, as a create's is.
  const parents = parentsOf(ctx, endpoint);

  const run = async (request: FastifyRequest): Promise<Outcome> => {
    const items = bulkItems(request.body, `a list of ${resource.plural}`, max);
    // One record per owner (`perOwner: one`): a batch can hold one, and only while the caller has none.
    if (resource.perOwner === 'one') {
      if (items.length > 1) throw validationFailed([{ pointer: `/${BULK_ITEMS}`, message: `holds ${items.length} ${resource.plural}; each owner has one ${resource.name}` }]);
      if ((await callersRecordId(ctx, resource, request)) !== undefined) throw new HttpError('already-exists', { detail: `You have a ${resource.name} already, and each owner has one: change it instead.` });
    }
    const bound = await boundParents(ctx, parents, request);

    const violations: FieldViolation[] = [];
    const valid: Record<string, unknown>[] = [];
    for (const [index, item] of items.entries()) {
      try {
        // The path's parent goes into each item; an item naming another parent is refused at its ref.
        reconcileBody(bound, item, () => true);
        valid.push(await validateBody(ctx.store, validators.create, item, visibleTo(ctx.resources, request)));
      } catch (error) {
        if (!(error instanceof HttpError) || error.situation !== 'validation-failed') throw error;
        for (const v of error.options.errors ?? []) violations.push({ pointer: itemPointer(index, v.pointer), message: v.message });
      }
    }
    // Two items of one request with one client id: the later is refused, as the store would.
    if (id.assigned === 'client') {
      const seen = new Map<string, number>();
      valid.forEach((item, index) => {
        const value = String(item[id.field]);
        const first = seen.get(value);
        if (first !== undefined) violations.push({ pointer: itemPointer(index, `/${id.field}`), message: `repeats the id of item ${first}` });
        else seen.set(value, index);
      });
    }
    if (violations.length) throw validationFailed(violations);

    const owner = ownerOf(resource, request);
    const records: NewRecord[] = valid.map((item) => {
      const data = withDefaults(validators.declared, item);
      Object.assign(data, bound);
      // As a create assigns them (./resources.ts): an opaque service id is a UUID too.
      const given = id.assigned === 'uuid' || id.assigned === 'service' ? randomUUID() : id.assigned === 'client' ? String(item[id.field]) : undefined;
      delete data[id.field];
      if (machine) data[machine.field] = machine.initial;
      return { ...(given !== undefined ? { id: given } : {}), ...(owner !== undefined ? { owner } : {}), data };
    });
    // `visibility: { parent }`: each item may only name a parent the caller sees (./nesting.ts), as a create.
    const hidden: FieldViolation[] = [];
    for (const [index, record] of records.entries()) {
      try {
        await checkParentVisible(ctx, resource, request, record.data);
      } catch (error) {
        if (!(error instanceof HttpError) || error.situation !== 'validation-failed') throw error;
        for (const v of error.options.errors ?? []) hidden.push({ pointer: itemPointer(index, v.pointer), message: v.message });
      }
    }
    if (hidden.length) throw validationFailed(hidden);
    try {
      // Each item passes the resource's create rules, as a create would (src/serve/domain).
      const domains = records.map((r, i) => ctx.domain.create(resource, request, valid[i], r.id));
      const options = { ...(events ? { events } : {}), ...(domains.some(Boolean) ? { domains } : {}) };
      const written = await ctx.store.insertMany(resource.name, records, options);
      return { status, headers: {}, body: { [BULK_ITEMS]: written.map((r) => present(resource, r)) } };
    } catch (error) {
      if (error instanceof DuplicateIdError && error.index !== undefined) {
        throw validationFailed([{ pointer: itemPointer(error.index, `/${id.field}`), message: `is taken: a ${resource.name} with this id exists` }]);
      }
      throw error;
    }
  };
  return idempotent(ctx, run);
}
