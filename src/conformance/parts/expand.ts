/**
 * Expansion (part 4, `expand:` on read and list; the convention:
 * src/spec/conventions/expand.ts):
 *   embeds     `?expand=<every declared ref>` on a record the caller made (refs to records
 *              it made too): each ref holds the record it names, with that record's id
 *   refused    a ref the endpoint does not declare is 422 validation-failed at /query/expand
 *   owned      a ref to another principal's record of an owned resource is never embedded:
 *              it stays the id (expansion shows nothing a read would not)
 */
import { statusAs } from './errors.ts';
import { pageSettings, readPage } from '../../spec/conventions/pagination.ts';
import { EXPAND_PARAM, refFields, refTarget } from '../../spec/conventions/expand.ts';
import type { Endpoint, Field, Resource } from '../../spec/model.ts';
import { Failure, NotApplicable, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory, Made } from '../data.ts';
import { expectError, expectSuccess, isObject } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { idOf } from '../../spec/conventions/ids.ts';

export async function checkExpansion(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const e of ctx.spec.endpoints) {
    const resource = ctx.resource(e.resource);
    if (!e.expand || !resource || (e.operation !== 'read' && e.operation !== 'list')) continue;
    const rule = { pointer: e.expand.pointer, text: `${e.id}: expand ${e.expand.fields.join(', ')}` };
    const fields = refFields(resource).filter((f) => e.expand?.fields.includes(f.name) && ctx.resource(refTarget(f) ?? '') !== undefined);
    const as = ctx.principalFor(e, data.createEndpointOrUndefined(resource) ?? e);
    await ctx.check('endpoints', `${e.id}.expand`, `${e.id} with ?expand=${fields.map((f) => f.name).join(',')} embeds the records the refs name`, rule, async () => {
      if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
      const made = await data.create(resource, as ? { as } : {});
      const present = fields.filter((f) => made.sent[f.name] !== undefined && made.sent[f.name] !== null);
      if (!present.length) throw new Skip(`the ${resource.name} made carries none of the expandable refs`);
      const { record, exchange } = await fetchRecord(ctx, data, e, made, present.map((f) => f.name).join(','), as);
      for (const f of present) {
        const problem = embedProblem(ctx, f, made.sent[f.name], record[f.name]);
        if (problem) throw new Failure(`${e.id}: ${problem}`, exchange);
      }
    });
    await ctx.check('endpoints', `${e.id}.expand-undeclared`, `${e.id} refuses to expand what it does not declare, ${statusAs(ctx, 'validation-failed')} at /query/${EXPAND_PARAM}`, rule, async () => {
      if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
      const made = e.operation === 'read' ? await data.create(resource, as ? { as } : {}) : undefined;
      const path = made ? data.itemPath(e, made.id) : e.path;
      const ex = await ctx.call('GET', `${path}?${EXPAND_PARAM}=svcspecNoSuchRef`, { as: as ?? null });
      expectError(ctx, ex, 'validation-failed', `/query/${EXPAND_PARAM}`);
    });
    const owned = fields.find((f) => ctx.resource(refTarget(f) ?? '')?.owned && f.type === 'ref');
    await ctx.check('endpoints', `${e.id}.expand-owned`, `${e.id} never embeds another principal's owned record: the ref stays its id`, rule, async () => {
      if (!owned) throw new NotApplicable(`no expandable ref of ${resource.name} names an owned resource`);
      if (resource.owned) throw new NotApplicable(`${resource.name} is owned itself: another principal cannot read the record at all`);
      const target = ctx.resource(refTarget(owned) ?? '') as Resource;
      const create = data.createEndpointOrUndefined(resource);
      const targetCreate = data.createEndpointOrUndefined(target);
      const owner = ctx.principals.find((p) => [e, create, targetCreate].every((x) => !x || ctx.may(p, x)));
      const other = ctx.principals.find((p) => p !== owner && p.name !== owner?.name && ctx.may(p, e));
      if (!owner || !other) throw new Skip('needs two principals (different names) that may call the endpoints; give them with --credentials', { needs: 'a second principal that may call the endpoints' });
      const theirs = await data.create(target, { as: owner });
      const body = { ...(await data.validBody(resource, { as: owner })), [owned.name]: typedId(target, theirs.id) };
      const made = await data.create(resource, { as: owner, body });
      const { record, exchange } = await fetchRecord(ctx, data, e, made, owned.name, other);
      if (isObject(record[owned.name])) throw new Failure(`${other.name} sees ${owner.name}'s ${target.name} '${theirs.id}' embedded in ${owned.name}`, exchange);
      if (String(record[owned.name]) !== theirs.id) throw new Failure(`${owned.name} is ${JSON.stringify(record[owned.name])}, not the id '${theirs.id}'`, exchange);
    });
  }
}

/** The record as the endpoint shows it with `?expand=`: a read of it, or its item in a list page. */
async function fetchRecord(ctx: TestContext, data: DataFactory, e: Endpoint, made: Made, expand: string, as: Principal | undefined): Promise<{ record: Record<string, unknown>; exchange: Exchange }> {
  const id = data.idField(made.resource);
  if (e.operation === 'read') {
    const ex = await ctx.call('GET', `${data.itemPath(e, made.id)}?${EXPAND_PARAM}=${expand}`, { as: as ?? null });
    expectSuccess(e, ex);
    return { record: ex.response.json as Record<string, unknown>, exchange: ex };
  }
  // A list: the newest pages are not known, so the record is looked for by its id across pages of the largest size.
  let path = `${e.path}?${EXPAND_PARAM}=${expand}`;
  for (let page = 0; page < 50; page++) {
    const ex = await ctx.call('GET', path, { as: as ?? null });
    expectSuccess(e, ex);
    // The page in the spec's shape (a bare array, or the records under their member).
    const page = readPage(pageSettings(ctx.spec, e), ex.response.json, ex.response.headers.link);
    const items = typeof page === 'string' ? [] : page.items;
    const found = items.find((item) => isObject(item) && String(item[id]) === made.id);
    if (found) return { record: found as Record<string, unknown>, exchange: ex };
    const link = /<([^>]+)>;\s*rel="next"/.exec(ex.response.headers.link ?? '')?.[1];
    if (!link) break;
    path = link.startsWith('http') ? new URL(link).pathname + new URL(link).search : link;
  }
  throw new Failure(`${e.id} does not list the ${made.resource.name} '${made.id}' just made`);
}

function embedProblem(ctx: TestContext, f: Field, sent: unknown, shown: unknown): string | undefined {
  const target = ctx.resource(refTarget(f) ?? '') as Resource;
  const idField = target.id?.field ?? 'id';
  const one = (s: unknown, v: unknown, at: string): string | undefined => {
    if (!isObject(v)) return `${at} is ${JSON.stringify(v)}, not the ${target.name} it names`;
    if (String(v[idField]) !== String(s)) return `${at} embeds the ${target.name} '${String(v[idField])}', not '${String(s)}'`;
    return undefined;
  };
  if (f.type === 'array') {
    if (!Array.isArray(sent) || !Array.isArray(shown) || shown.length !== sent.length) return `${f.name} is not the list of ${target.plural} sent`;
    for (const [i, s] of sent.entries()) {
      const p = one(s, shown[i], `${f.name}/${i}`);
      if (p) return p;
    }
    return undefined;
  }
  return one(sent, shown, f.name);
}

function typedId(resource: Resource, id: string): string | number {
  return idOf(resource).assigned === 'sequence' && /^\d+$/.test(id) ? Number(id) : id;
}
