/**
 * A valid body whose refs point at records made for it alone, so that the records the
 * protocol checks make do not count against a rule the spec states on a shared parent (one
 * member's loan limit, say): each check of a promise is about the promise, not the quota.
 * Each referenced record is made as DataFactory.freshTarget makes one: the guards of the
 * referring create that read it hold for it (a fresh member has room for a loan), and an
 * owned one (an order's saved address) is made by the principal that makes the referring
 * record, since another principal's owned record is not there for it.
 */
import type { Resource } from '../../spec/model.ts';
import type { Principal } from '../context.ts';
import type { DataFactory } from '../data.ts';

export async function freshBody(data: DataFactory, resource: Resource, as?: Principal): Promise<Record<string, unknown>> {
  // Shared refs first (one record per resource for the run), each replaced below by a record of its own.
  const body = await data.validBody(resource, { ...(as ? { as } : {}), refs: 'shared' });
  for (const field of data.createFields(resource, data.ctx.version)) {
    if (field.type !== 'ref' || !(field.name in body) || field.resource === resource.name) continue;
    // A ref a guard, count or uniqueness reads validBody already pointed at a record made for it that nothing accepted names yet.
    if (data.domain.freshRef(resource, field.name)) continue;
    const target = data.ctx.resource(field.resource ?? '');
    if (!target || !data.createEndpointOrUndefined(target)) continue;
    // A scarce quota (helpdesk: 5 tickets a minute) is kept for the target's own checks; the shared record serves.
    if (data.scarce(target)) continue;
    body[field.name] = await data.freshTarget(resource, field, as);
  }
  return body;
}
