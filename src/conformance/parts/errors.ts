/**
 * Part 7: errors. Every error met by any check is held to the declared shape, status and
 * media type there (src/conformance/expect.ts); here, the errors the HTTP layer itself
 * must answer: a body that is not JSON (malformed-body) and a body of another media type
 * (unsupported-media-type), on the first endpoint that takes a body; and no error body of
 * the run shows the service's internals (parts/errors-internals.ts).
 */
import { isPlain } from '../../spec/conventions/paths.ts';
import type { Situation } from '../../spec/http-errors.ts';
import type { TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError } from '../expect.ts';
import { checkInternals } from './errors-internals.ts';

export async function checkErrors(ctx: TestContext, data: DataFactory): Promise<void> {
  // Any create shows how the HTTP layer answers: the one whose quota the run can best spare.
  const create = ctx.roomiest(ctx.spec.endpoints.filter((e) => e.operation === 'create' && isPlain(e) && ctx.may(ctx.main, e))) ?? ctx.spec.endpoints.find((e) => e.request.kind !== 'none' && isPlain(e) && ctx.may(ctx.main, e));
  if (!create) {
    // No endpoint takes a body: there is nothing to refuse, and no principal would change that.
    const takers = ctx.spec.endpoints.filter((e) => (e.operation === 'create' || e.request.kind !== 'none') && isPlain(e));
    if (takers.length === 0) ctx.skip('errors', 'malformed-body', 'a body that is not JSON is refused', 'no endpoint of the spec takes a body', { kind: 'not-applicable' });
    else ctx.skip('errors', 'malformed-body', 'a body that is not JSON is refused', `no endpoint that takes a body (${takers.map((e) => e.id).slice(0, 3).join(', ')}) can be called by the principals given`, { needs: `a credential that may call ${takers[0]!.id}` });
    return checkInternals(ctx, data);
  }
  const rule = ctx.spec.errors.shape ? { pointer: ctx.spec.errors.shape.pointer, text: 'the declared error shape' } : undefined;
  await ctx.check('errors', 'malformed-body', `${create.id}: a body that is not JSON is refused (${refusedAs(ctx, 'malformed-body')})`, rule, async () => {
    expectError(ctx, await ctx.call(create.method, create.path.replace(/\{\w+\}/g, 'x'), { raw: { text: '{"unterminated": ', contentType: 'application/json' } }), 'malformed-body');
  });
  await ctx.check('errors', 'unsupported-media-type', `${create.id}: a body that is not application/json is refused (${refusedAs(ctx, 'unsupported-media-type')})`, rule, async () => {
    expectError(ctx, await ctx.call(create.method, create.path.replace(/\{\w+\}/g, 'x'), { raw: { text: 'title=x', contentType: 'text/plain' } }), 'unsupported-media-type');
  });
  await checkInternals(ctx, data);
}

/** How a check's title names the answer it expects: the code the spec states, or the status class where it states none (src/conformance/expect.ts expectError). */
export function refusedAs(ctx: TestContext, situation: Situation): string {
  const r = ctx.resolve(situation);
  return r.stated ? r.code : `a ${Math.floor(r.status / 100)}xx: the spec states no code for ${situation}`;
}

/** The status a check's title names: the one the spec states for the situation, or its class where it states none (a check then takes any status of it). */
export function statusAs(ctx: TestContext, situation: Situation): string {
  const r = ctx.resolve(situation);
  return r.stated ? String(r.status) : `a ${Math.floor(r.status / 100)}xx (the spec states no code for ${situation})`;
}
