/**
 * Part 5: authentication. Every endpoint that is not public refuses a request without
 * credentials, and one with mangled credentials, with 401 and a `WWW-Authenticate`
 * challenge (RFC 9110 §11.6.1); a principal lacking a scope an endpoint needs gets 403;
 * public endpoints answer without credentials; with two principals, the second cannot
 * read, change, delete, transition or list the first's records of an owned resource (a
 * bulk update or delete naming one is refused at the item, as for a missing record).
 */
import { hasOwner } from '../../spec/conventions/ownership.ts';
import { isBulk, type Endpoint, type Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError } from '../expect.ts';
import { BULK_ITEMS, itemPointer } from '../../spec/conventions/bulk.ts';
import { findInList } from './list-walk.ts';

const ANY_ID = 'svcspec-conformance-0';

export async function checkAuthentication(ctx: TestContext, data: DataFactory): Promise<void> {
  if (ctx.spec.parts.authentication.statement !== 'given') {
    ctx.skip('authentication', 'authentication', 'credentials are checked', `the authentication part is ${ctx.spec.parts.authentication.statement === 'none' ? 'stated as none' : 'a gap'}`, { kind: 'not-applicable' });
    return;
  }
  for (const e of ctx.spec.endpoints) {
    if (!e.auth) continue;
    const path = e.path.replace(/\{\w+\}/g, ANY_ID);
    const body = e.request.kind === 'none' ? {} : { body: {} };
    if (e.auth.public) {
      await ctx.check('authentication', `${e.id}.public`, `${e.id} is public: answered without credentials`, { pointer: e.pointer, text: `${e.id}: public` }, async () => {
        const ex = await ctx.call(e.method, path, { ...body, as: null, anonymous: true });
        if (ex.response.status === 401 || ex.response.status === 403) throw new Failure(`a public endpoint answered ${ex.response.status}`, ex);
      });
      continue;
    }
    await ctx.check('authentication', `${e.id}.no-credentials`, `${e.id} without credentials: 401 with WWW-Authenticate`, { pointer: e.pointer, text: `${e.id} needs ${e.auth.scopes.length ? e.auth.scopes.join(', ') : 'credentials'}` }, async () => {
      const ex = await ctx.call(e.method, path, { ...body, as: null, anonymous: true });
      expectError(ctx, ex, 'unauthenticated');
      if (!ex.response.headers['www-authenticate']) throw new Failure('the 401 has no WWW-Authenticate challenge (RFC 9110 §11.6.1)', ex);
    });
    if (ctx.main && Object.keys(ctx.main.headers).length) {
      await ctx.check('authentication', `${e.id}.bad-credentials`, `${e.id} with mangled credentials: 401`, { pointer: e.pointer, text: e.id }, async () => {
        const mangled: Principal = { name: 'mangled', headers: mangle(ctx.main!.headers) };
        expectError(ctx, await ctx.call(e.method, path, { ...body, as: mangled }), 'unauthenticated');
      });
    }
    const lacking = ctx.principals.find((p) => p.scopes !== undefined && !ctx.may(p, e));
    if (lacking) {
      await ctx.check('authentication', `${e.id}.missing-scope`, `${e.id} by ${lacking.name}, who lacks ${e.auth.scopes.filter((s) => !lacking.scopes?.includes(s)).join(', ')}: 403`, { pointer: e.pointer, text: `${e.id} needs ${e.auth.scopes.join(', ')}` }, async () => {
        expectError(ctx, await ctx.call(e.method, path, { ...body, as: lacking }), 'forbidden');
      });
    } else if (e.auth.scopes.length) {
      // Counted, not dropped: without a principal lacking a scope, the 403 of this endpoint is not checked.
      ctx.skip('authentication', `${e.id}.missing-scope`, `${e.id} by a principal lacking ${e.auth.scopes.join(' or ')}: 403`, 'no principal given lacks a scope this endpoint needs', { needs: `a credential (with its scopes listed in --credentials) lacking ${e.auth.scopes.join(' or ')}` });
    }
  }
  for (const resource of ctx.spec.resources.filter((r) => hasOwner(r))) await checkOwnership(ctx, data, resource);
}

/** Every credential value changed in its last characters: the same form, not a valid secret. */
function mangle(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = `${v.slice(0, -4)}${v.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
  return out;
}

async function checkOwnership(ctx: TestContext, data: DataFactory, resource: Resource): Promise<void> {
  const title = `${resource.name} is owned: another principal cannot read, change, delete, transition or list the owner's records`;
  await ctx.check('authentication', `${resource.name}.ownership`, title, { pointer: resource.pointer, text: `${resource.name}: owned` }, async () => {
    const endpoints = ctx.spec.endpoints.filter((e) => e.resource === resource.name);
    const all = (p: Principal) => endpoints.every((e) => ctx.may(p, e));
    const owner = ctx.principals.find(all);
    const other = ctx.principals.find((p) => p !== owner && p.name !== owner?.name && all(p));
    if (!owner || !other) throw new Skip('needs two principals (different names) that may call every endpoint of the resource; give them with --credentials', { needs: `a second principal that may call every endpoint of ${resource.name}` });
    const made = await data.create(resource, { as: owner });
    for (const e of endpoints) {
      // Collection endpoints name no record of the owner's; a singleton (select: caller) is the caller's own record by definition (parts/nesting.ts checks that another's never shows).
      if (e.operation === 'bulk-update' || e.operation === 'bulk-delete') {
        // conventions/bulk.ts: the owner's id in another principal's batch is 422 at the item, as a missing record is.
        const id = made.body[data.idField(resource)] ?? made.id;
        const item = e.operation === 'bulk-update' ? { [data.idField(resource)]: id } : id;
        const ex = await ctx.call(e.method, e.path, { body: { [BULK_ITEMS]: [item] }, as: other });
        try {
          expectError(ctx, ex, 'validation-failed', itemPointer(0, e.operation === 'bulk-update' ? `/${data.idField(resource)}` : ''));
        } catch (error) {
          if (error instanceof Failure) throw new Failure(`${e.id} of another principal's record: ${error.message}`, ex);
          throw error;
        }
        continue;
      }
      if (e.operation === 'create' || e.operation === 'list' || isBulk(e.operation) || e.action?.target === 'collection' || e.select === 'caller') continue;
      const body = e.operation === 'update' ? { body: {} } : e.operation === 'replace' ? { body: await data.validBody(resource, { as: other }) } : {};
      const ex = await ctx.call(e.method, data.pathFor(e, made), { ...body, as: other });
      expectErrorAs(ctx, ex, e);
    }
    const list = ctx.endpoint(resource.name, 'list');
    if (list) {
      const seen = await findInList(ctx, data, resource, made.id, other);
      if (seen) throw new Failure(`${other.name} finds ${owner.name}'s ${resource.name} '${made.id}' in the list`, seen.exchange);
    }
  });
}

function expectErrorAs(ctx: TestContext, ex: Parameters<typeof expectError>[1], e: Endpoint): void {
  try {
    expectError(ctx, ex, 'not-found');
  } catch (error) {
    if (error instanceof Failure) throw new Failure(`${e.id} of another principal's record: ${error.message}`, ex);
    throw error;
  }
}
