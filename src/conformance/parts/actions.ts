/**
 * Actions (part 4, `operation: action`): a named operation that is not a state change,
 * its behaviour stated in prose. The tester cannot judge prose; it holds an action to what
 * the spec does say:
 *   answers        a valid request is answered with the declared success and the declared
 *                  response shape, or, only because the behaviour is prose, with 501
 *                  not-implemented in the declared error shape
 *   invalid body   a body breaking the declared request (an undeclared member) is 422
 *                  validation-failed, before anything is performed
 *   missing record an action on a record that does not exist is 404 not-found
 * Authentication and scopes are checked with every endpoint's (parts/authentication.ts).
 */
import { statusAs } from './errors.ts';
import { fillPath, parentParams } from '../../spec/conventions/paths.ts';
import type { Endpoint, Resource } from '../../spec/model.ts';
import { Failure, NotApplicable, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError, expectSuccess, isObject } from '../expect.ts';
import { valueOf } from '../generate.ts';
import { shapeProblems } from '../shape.ts';
import { mediaTypeOf, type Exchange } from '../http.ts';
import { idOf } from '../../spec/conventions/ids.ts';
import { performedByReference } from '../../spec/conventions/endpoints.ts';

const UNKNOWN = 'svcspecConformanceUnknown';

/** The statuses that refuse a request for what it asks (RFC 9110 §15.5.1, §15.5.10; RFC 9110 §15.5.21). */
const REFUSALS: ReadonlySet<number> = new Set([400, 409, 422]);

export async function checkActions(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const e of ctx.spec.endpoints) {
    const resource = ctx.resource(e.resource);
    if (e.operation !== 'action' || !e.action || !resource) continue;
    const rule = { pointer: e.pointer, text: `${e.id}: ${e.method} ${e.path}` };
    const as = ctx.principalFor(e);
    // An action stating effects is performed by them (the spec says what it does): no 501 excuses it.
    const prose = e.action.behaviour !== undefined && !performedByReference(e);
    await ctx.check('endpoints', `${e.id}.answers`, `${e.id} answers a valid request with its declared response${prose ? ', or 501 (its behaviour is prose)' : ''}`, rule, async () => {
      if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
      const ex = await ctx.call(e.method, await pathFor(ctx, data, e, resource, as), { ...(await bodyFor(ctx, data, e, resource, as)), as: as ?? null });
      if (ex.response.status === 501) {
        if (!prose) throw new Failure(`${e.id} answered 501, but ${performedByReference(e) ? 'the spec states its effects, which say what it does' : 'the spec states no prose behaviour that would excuse it'}`, ex);
        expectError(ctx, ex, 'not-implemented');
        return;
      }
      // Prose may refuse what the request's schema allows (Lago's evaluate_expression refuses an
      // expression its grammar, written in prose, does not parse): a refusal the endpoint declares,
      // to a request the tester made up, says nothing either way.
      // Only a refusal of the request itself (400, 409, 422), declared, with a JSON body: a missing
      // route (404, 405), a refused credential (401, 403) or a quota (429) fails as before.
      const declared = new Set([...e.responses.filter((r) => r.body === 'error').map((r) => r.status), ...ctx.spec.errors.catalog.filter((c) => e.errors.includes(c.code)).map((c) => c.status)]);
      const refusal = REFUSALS.has(ex.response.status) && declared.has(ex.response.status) && /^application\/([\w.+-]+\+)?json$/.test(mediaTypeOf(ex));
      if (prose && refusal) {
        throw new Skip(`${e.id} refused the request the tester made from its schema with ${ex.response.status}, which it declares; its behaviour is prose, which may refuse what the schema allows, so whether this request should be served cannot be told`);
      }
      expectResponse(e, resource, ex);
    });
    await ctx.check('endpoints', `${e.id}.invalid-body`, `${e.id} refuses a body outside its declared request with ${statusAs(ctx, 'validation-failed')}`, rule, async () => {
      // RFC 9110 §9.3.1: content in a GET has no defined meaning, and fetch refuses to send one (so no credential would let it run).
      if (!carriesBody(e)) throw new NotApplicable(`${e.id} is a ${e.method}, which carries no body`);
      // A body of the record's fields takes members they do not declare where the resource says so (kept, or dropped).
      if ((resource.unknownFields === 'ignore' && (e.request.kind === 'resource' || e.request.kind === 'fields')) || (resource.unknownFields === 'keep' && e.request.kind === 'resource')) throw new NotApplicable(`${e.id} takes the fields of ${resource.name}, which takes members it does not declare (unknownFields: ${resource.unknownFields})`);
      if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
      const valid = await bodyFor(ctx, data, e, resource, as);
      const body = { ...(isObject(valid.body) ? valid.body : {}), [UNKNOWN]: 1 };
      const ex = await ctx.call(e.method, await pathFor(ctx, data, e, resource, as), { body, as: as ?? null });
      expectError(ctx, ex, 'validation-failed', e.request.kind === 'none' ? undefined : `/${UNKNOWN}`);
    });
    if (e.action.target === 'record') {
      await ctx.check('endpoints', `${e.id}.missing-record`, `${e.id} on a record that does not exist is ${statusAs(ctx, 'not-found')}`, rule, async () => {
        if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
        // Its other parameters of a shape of their own fit, so that only the record is missing.
        const ex = await ctx.call(e.method, fillValues(ctx, e, data.itemPath(e, missingId(resource))), { ...(await bodyFor(ctx, data, e, resource, as)), as: as ?? null });
        expectError(ctx, ex, 'not-found');
      });
    }
  }
}

async function pathFor(ctx: TestContext, data: DataFactory, e: Endpoint, resource: Resource, as: Principal | undefined): Promise<string> {
  if (e.action?.target !== 'record') {
    if (parentParams(e).length) throw new Skip(`${e.id} acts under a parent; the tester checks actions on plain paths and on records`);
    return fillValues(ctx, e, e.path);
  }
  const made = await data.create(resource, as ? { as } : {});
  // A nested action's parents come from the record's own refs.
  return fillValues(ctx, e, data.pathFor(e, made));
}

/** The path's parameters of a shape of their own (`params: {day: {type: string}}`), each a value that fits. */
function fillValues(ctx: TestContext, e: Endpoint, path: string): string {
  const values: Record<string, string> = {};
  for (const p of e.params) {
    if (p.binding.kind !== 'value') continue;
    values[p.name] = String(ctx.draw.one(valueOf(p.binding.shape)));
  }
  return Object.keys(values).length ? fillPath(path, values) : path;
}

function carriesBody(e: Endpoint): boolean {
  return e.method !== 'GET';
}

/** A valid body for the declared request; none when it takes none. */
async function bodyFor(ctx: TestContext, data: DataFactory, e: Endpoint, resource: Resource, as: Principal | undefined): Promise<{ body?: Record<string, unknown> }> {
  const r = e.request;
  if (r.kind === 'none' || !carriesBody(e)) return {};
  if (r.kind === 'shape') {
    const body: Record<string, unknown> = {};
    for (const f of r.fields) body[f.name] = await data.fill(ctx.draw.one(valueOf(f)), as);
    return { body };
  }
  if (r.kind === 'fields') return { body: await data.valuesFor(resource, r.fields, as) };
  return { body: await data.validBody(resource, as ? { as } : {}) };
}

function expectResponse(e: Endpoint, resource: Resource, ex: Exchange): void {
  expectSuccess(e, ex);
  const response = e.action?.response;
  if (response?.kind === 'shape') {
    const problems = shapeProblems(response.fields, ex.response.json);
    if (problems.length) throw new Failure(`${e.id} answered outside its declared response: ${problems.join('; ')}`, ex);
  } else if (response?.kind === 'resource') {
    const id = resource.id?.field ?? 'id';
    if (!isObject(ex.response.json) || ex.response.json[id] === undefined) throw new Failure(`${e.id} answers a ${resource.name}, and the body has no '${id}'`, ex);
  } else if (ex.response.text !== '') throw new Failure(`${e.id} answers no body, and sent one`, ex);
}

export function missingId(resource: Resource): string {
  if (idOf(resource).assigned === 'sequence') return '999999999';
  if (idOf(resource).assigned === 'client') return 'svcspec-conformance-no-such-record';
  return '00000000-0000-4000-8000-000000000000';
}
