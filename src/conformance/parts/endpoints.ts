/**
 * Part 4: endpoints. Every declared status and content type is held to where the other
 * parts call an endpoint; here, the paths themselves: each path answers the methods the
 * spec does not declare on it with 405 and an `Allow` listing the declared ones (RFC 9110
 * §15.5.6), and a path the spec does not have is 404 in the declared shape. Actions,
 * bulk creates and expansion have their own modules (parts/actions.ts, bulk.ts, expand.ts);
 * nested paths and singletons, parts/nesting.ts; a list's declared query, parts/endpoints-queries.ts;
 * conditional requests and idempotency keys as stated, endpoints-conditional.ts and -idempotency.ts.
 */
import { HTTP_METHODS } from '../../spec/model.ts';
import { Failure, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError } from '../expect.ts';
import { checkActions } from './actions.ts';
import { checkBulk } from './bulk.ts';
import { checkBulkChanges } from './bulk-change.ts';
import { checkConditional } from './endpoints-conditional.ts';
import { checkIdempotency } from './endpoints-idempotency.ts';
import { checkQueries } from './endpoints-queries.ts';
import { checkExpansion } from './expand.ts';
import { checkNesting } from './nesting.ts';
import { checkPathParams } from './path-params.ts';
import { refusedAs } from './errors.ts';

export async function checkEndpoints(ctx: TestContext, data: DataFactory): Promise<void> {
  await checkQueries(ctx, data);
  await checkPathParams(ctx, data);
  const byPath = new Map<string, Set<string>>();
  for (const e of ctx.spec.endpoints) byPath.set(e.path, (byPath.get(e.path) ?? new Set()).add(e.method));
  const answered = ctx.resolve('method-not-allowed');
  const title = !answered.stated ? refusedAs(ctx, 'method-not-allowed') : answered.status === 405 ? '405 with Allow' : `${answered.status} (${answered.code}), as the spec answers an undeclared method`;
  for (const [path, methods] of byPath) {
    const concrete = path.replace(/\{\w+\}/g, 'svcspec-conformance-0');
    const first = ctx.spec.endpoints.find((e) => e.path === path);
    for (const method of HTTP_METHODS.filter((m) => !methods.has(m))) {
      await ctx.check('endpoints', `405 ${method} ${path}`, `${method} ${path} is not declared: ${title}`, first ? { pointer: first.pointer, text: `${[...methods].join(', ')} ${path}` } : undefined, async () => {
        const ex = await ctx.call(method, concrete, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
        expectError(ctx, ex, 'method-not-allowed');
        if (ex.response.status !== 405) return; // Allow belongs to 405 (RFC 9110 §15.5.6)
        const allow = (ex.response.headers.allow ?? '').split(',').map((s) => s.trim().toUpperCase());
        const missing = [...methods].filter((m) => !allow.includes(m));
        if (missing.length) throw new Failure(`Allow is '${ex.response.headers.allow ?? '(none)'}': it leaves out ${missing.join(', ')}`, ex);
        if (allow.includes(method)) throw new Failure(`Allow lists ${method}, which was refused`, ex);
      });
    }
  }
  await ctx.check('endpoints', '404 unknown path', `a path the spec does not have is ${ctx.resolve('not-found').stated ? '404 in the declared shape' : `refused (${refusedAs(ctx, 'not-found')})`}`, undefined, async () => {
    expectError(ctx, await ctx.call('GET', '/svcspec-conformance-no-such-path'), 'not-found');
  });
  // The open surface (issue #13): actions, bulk creates, expansion.
  await checkActions(ctx, data);
  await checkBulk(ctx, data);
  await checkBulkChanges(ctx, data);
  await checkExpansion(ctx, data);
  await checkNesting(ctx, data);
  // Part 8's protocol promises, where the spec states them (issue #16).
  await checkConditional(ctx, data);
  await checkIdempotency(ctx, data);
}
