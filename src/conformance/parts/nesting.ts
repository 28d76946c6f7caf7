/**
 * Part 4: nested paths and singletons (docs/format.md "Path parameters"), judged by the
 * spec alone.
 *
 * Through a parent (`/patients/{patientId}/appointments`, the parameter bound to a ref):
 *   list      holds the parent's children, and only them; an unknown parent is 404
 *   create    sets the ref from the path; a body naming another parent is 422 at the ref
 *   read, update, replace, delete, transitions
 *             of a record of another parent are 404 (and change nothing); through its own
 *             parent a read answers the record as the plain read does
 * A singleton (`select: caller`): the caller's own record; another principal never gets it.
 */
import { statusAs } from './errors.ts';
import { aNoun } from '../../spec/units.ts';
import { itemPath } from '../made.ts';
import { readPage } from '../../spec/conventions/pagination.ts';
import { fillPath, parentParams, type ParentParam } from '../../spec/conventions/paths.ts';
import type { Endpoint, Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory, Made } from '../data.ts';
import { friendlyRecord } from '../data-guards.ts';
import { expectError, expectSuccess, isObject, jsonEqual } from '../expect.ts';
import { MAX_PAGES, pageParams } from './list-walk.ts';

const NO_SUCH_PARENT = 'svcspec-conformance-0';

export async function checkNesting(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const e of ctx.spec.endpoints) {
    const parents = parentParams(e);
    const resource = ctx.resource(e.resource);
    if (!parents.length || !resource) continue;
    const rule = { pointer: e.pointer, text: `${e.method} ${e.path}` };
    if (parents.length > 1) {
      ctx.skip('endpoints', `${e.id}.nested`, `${e.id}: through its parents`, 'the tester checks paths with one parent; this one has several');
      continue;
    }
    const parent = parents[0];
    const id = `${e.id}.nested`;
    switch (e.operation) {
      case 'list':
        await ctx.check('endpoints', id, `${e.id}: the list through ${aNoun(parent.resource)} holds its ${resource.plural}, and only them; an unknown ${parent.resource} is ${statusAs(ctx, 'not-found')}`, rule, () => checkList(ctx, data, e, resource, parent));
        break;
      case 'create':
        await ctx.check('endpoints', id, `${e.id}: a create through ${aNoun(parent.resource)} sets '${parent.field}' from the path; a body naming another is refused`, rule, () => checkCreate(ctx, data, e, resource, parent));
        break;
      default:
        await ctx.check('endpoints', id, `${e.id}: ${aNoun(resource.name)} through ${aNoun(parent.resource)} it does not belong to is ${statusAs(ctx, 'not-found')}; through its own it is served`, rule, () => checkItem(ctx, data, e, resource, parent));
    }
  }
  for (const e of ctx.spec.endpoints) {
    const resource = ctx.resource(e.resource);
    if (e.select !== 'caller' || e.operation !== 'read' || !resource) continue;
    await ctx.check('endpoints', `${e.id}.singleton`, `${e.id}: ${e.path} is the caller's own ${resource.name}; another principal never gets it`, { pointer: e.pointer, text: `${e.path}: select: caller` }, () => checkSingleton(ctx, data, e, resource));
  }
}

/**
 * Two records of the parent resource, made by the principal that may call the endpoint; each
 * one for which the guards of the child's writes that read it hold (a member with room for a
 * loan), walked by declared transitions where they want it in another state than its first
 * (a talk submitted before it is reviewed), so the child made under it is not refused for a
 * rule this check is not about.
 */
async function twoParents(ctx: TestContext, data: DataFactory, resource: Resource, parent: ParentParam, as: Principal | undefined): Promise<[Made, Made]> {
  const field = resource.fields.find((f) => f.name === parent.field);
  if (!ctx.resource(parent.resource) || !field) throw new Skip(`the parent resource '${parent.resource}' is not declared`);
  const make = () => friendlyRecord(data, resource, field, as, { room: CHILDREN, ...(as ? { by: as } : {}) });
  return [await make(), await make()];
}

/**
 * How many children of one parent a check makes at most: one (and one more it expects
 * refused). Room for more than it makes asked the parent's guards for more than they need
 * to hold (a speaker's talks under a conference's maximum of two).
 */
const CHILDREN = 1;

/** The parent's id as the child's ref holds it (a number for sequence ids). */
function refValue(made: Made): string | number {
  const v = made.body[made.resource.id?.field ?? 'id'];
  return typeof v === 'number' ? v : made.id;
}

/** A child of a parent, made with the plain create (the ref in the body) where there is one. */
async function childOf(ctx: TestContext, data: DataFactory, resource: Resource, field: string, parent: Made, as: Principal | undefined): Promise<Made> {
  const body = await data.validBody(resource, { as, set: { [field]: refValue(parent) } });
  return data.create(resource, { as, body });
}

async function checkList(ctx: TestContext, data: DataFactory, e: Endpoint, resource: Resource, parent: ParentParam): Promise<void> {
  const as = ctx.principalFor(e);
  const [p1, p2] = await twoParents(ctx, data, resource, parent, as);
  const mine = await childOf(ctx, data, resource, parent.field, p1, as);
  const theirs = await childOf(ctx, data, resource, parent.field, p2, as);
  const idField = data.idField(resource);
  const items = await walkNested(ctx, e, { [parent.name]: refValue(p1) }, as);
  const stranger = items.find((i) => !jsonEqual(i[parent.field], refValue(p1)));
  if (stranger) throw new Failure(`the list through ${parent.resource} '${p1.id}' holds a ${resource.name} whose '${parent.field}' is ${JSON.stringify(stranger[parent.field])}`);
  if (!items.some((i) => String(i[idField]) === mine.id)) throw new Failure(`the ${resource.name} '${mine.id}' of ${parent.resource} '${p1.id}' is not in its list`);
  if (items.some((i) => String(i[idField]) === theirs.id)) throw new Failure(`the ${resource.name} '${theirs.id}' of another ${parent.resource} is in the list of '${p1.id}'`);
  expectError(ctx, await ctx.call('GET', fillPath(e.path, { [parent.name]: NO_SUCH_PARENT }), { as: as ?? null }), 'not-found');
}

/** Every item of a nested list, page by page (bounded). */
async function walkNested(ctx: TestContext, e: Endpoint, values: Record<string, string | number>, as: Principal | undefined): Promise<Record<string, unknown>[]> {
  const p = pageParams(ctx, e);
  const items: Record<string, unknown>[] = [];
  let position: unknown = null;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const query = position === null ? '' : `?${new URLSearchParams({ [p.position]: String(position) })}`;
    const ex = await ctx.call('GET', `${fillPath(e.path, values)}${query}`, { as: as ?? null });
    expectSuccess(e, ex);
    // Read in the spec's page shape (src/spec/conventions/pagination.ts), as every walk is.
    const page = readPage(p.settings, ex.response.json, ex.response.headers.link);
    if (typeof page === 'string') throw new Failure(`${e.id}: ${page}`, ex);
    items.push(...(page.items as Record<string, unknown>[]));
    position = page.next;
    if (position === null) return items;
  }
  throw new Failure(`${e.id} did not end within ${MAX_PAGES} pages`);
}

async function checkCreate(ctx: TestContext, data: DataFactory, e: Endpoint, resource: Resource, parent: ParentParam): Promise<void> {
  const as = ctx.principalFor(e);
  const [p1, p2] = await twoParents(ctx, data, resource, parent, as);
  const path = fillPath(e.path, { [parent.name]: refValue(p1) });
  const body = await data.validBody(resource, { as });
  delete body[parent.field];
  const ex = await ctx.call('POST', path, { body, as: as ?? null });
  data.track(resource, ex, as);
  expectSuccess(e, ex);
  const made = ex.response.json as Record<string, unknown>;
  if (!jsonEqual(made[parent.field], refValue(p1))) throw new Failure(`the ${resource.name} created through ${parent.resource} '${p1.id}' has '${parent.field}' ${JSON.stringify(made[parent.field])}`, ex);
  // Valid but for the parent it names: fresh refs, so no rule on the records it points at (one loan per book) refuses it first.
  const contradicting = { ...(await data.validBody(resource, { as })), [parent.field]: refValue(p2) };
  const refused = await ctx.call('POST', path, { body: contradicting, as: as ?? null });
  await data.discard(resource, refused, as);
  expectError(ctx, refused, 'validation-failed', `/${parent.field}`);
}

async function checkItem(ctx: TestContext, data: DataFactory, e: Endpoint, resource: Resource, parent: ParentParam): Promise<void> {
  const as = ctx.principalFor(e);
  const [p1, p2] = await twoParents(ctx, data, resource, parent, as);
  const child = await childOf(ctx, data, resource, parent.field, p1, as);
  const body = e.operation === 'update' ? { body: {} }
    : e.operation === 'replace' ? { body: { ...(await data.validBody(resource, { as })), [parent.field]: refValue(p2) } }
      : e.operation === 'transition' ? { body: await data.valuesFor(resource, ctx.spec.states.find((m) => m.resource === resource.name)?.transitions.find((t) => t.name === e.transition)?.requires ?? [], as) }
        : {};
  // The template with the record's id alone (made.ts itemPath), its parent filled here: the wrong one, then its own.
  const wrong = fillPath(itemPath(e, child.id), { [parent.name]: refValue(p2) });
  expectError(ctx, await ctx.call(e.method, wrong, { ...body, as: as ?? null }), 'not-found');
  const read = ctx.endpoint(resource.name, 'read');
  if (read) {
    const after = await ctx.call('GET', data.itemPath(read, child.id), { as: ctx.principalFor(read) ?? null });
    expectSuccess(read, after);
    if (!jsonEqual(after.response.json, child.body)) throw new Failure(`${e.method} through another ${parent.resource} changed the ${resource.name}`, after);
    if (e.operation === 'read') {
      const right = await ctx.call('GET', fillPath(itemPath(e, child.id), { [parent.name]: refValue(p1) }), { as: as ?? null });
      expectSuccess(e, right);
      if (!jsonEqual(right.response.json, after.response.json)) throw new Failure(`the ${resource.name} read through its ${parent.resource} differs from the plain read`, right);
    }
  }
}

async function checkSingleton(ctx: TestContext, data: DataFactory, e: Endpoint, resource: Resource): Promise<void> {
  const owner = ctx.principalFor(e);
  const other = ctx.principals.find((p) => p !== owner && p.name !== owner?.name && ctx.may(p, e));
  if (!owner) throw ctx.noPrincipal(e);
  const made = await data.create(resource, { as: owner });
  const mine = await ctx.call(e.method, e.path, { as: owner });
  expectSuccess(e, mine);
  const idField = data.idField(resource);
  if (!isObject(mine.response.json) || String(mine.response.json[idField]) !== made.id) throw new Failure(`${e.path} answered ${owner.name} with a ${resource.name} other than the one ${owner.name} made ('${made.id}')`, mine);
  if (!other) throw new Skip('needs a second principal (another name) that may call it, to see it never gets the first one\'s; give one with --credentials', { needs: `a second principal that may call ${e.id}` });
  const theirs = await ctx.call(e.method, e.path, { as: other });
  if (theirs.response.status === 200 && isObject(theirs.response.json) && String(theirs.response.json[idField]) === made.id) throw new Failure(`${other.name} got ${owner.name}'s ${resource.name} at ${e.path}`, theirs);
  if (theirs.response.status !== 200) expectError(ctx, theirs, 'not-found');
}
