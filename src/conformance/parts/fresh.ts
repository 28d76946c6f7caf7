/**
 * A valid body whose refs point at records made for it alone, so that the records the
 * protocol checks make do not count against a rule the spec states on a shared parent (one
 * member's loan limit, say): each check of a promise is about the promise, not the quota.
 */
import type { Resource } from '../../spec/model.ts';
import type { Principal } from '../context.ts';
import type { DataFactory } from '../data.ts';

export async function freshBody(data: DataFactory, resource: Resource, as?: Principal, depth = 0): Promise<Record<string, unknown>> {
  const body = await data.validBody(resource, as ? { as } : {});
  // Parents' parents too (an order's saved address, which only its owner may name), a few levels down.
  if (depth > 2) return body;
  for (const field of data.createFields(resource, data.ctx.version)) {
    if (field.type !== 'ref' || !(field.name in body) || field.resource === resource.name) continue;
    const target = data.ctx.resource(field.resource ?? '');
    if (!target || !data.createEndpointOrUndefined(target)) continue;
    const made = await data.create(target, { ...(as ? { as } : {}), body: await freshBody(data, target, as, depth + 1) });
    body[field.name] = target.id?.assigned === 'sequence' && /^\d+$/.test(made.id) ? Number(made.id) : made.id;
  }
  return body;
}
