/**
 * Object-level authorization (OWASP API1:2023): records of an owned resource belong to the
 * principal that created them. To anyone else they do not exist: read, update, replace,
 * delete and transitions answer 404 (not 403, which would confirm the id), and lists leave
 * them out. The owner is kept by the store beside the record, never in its data.
 *
 * An anonymous caller (a public endpoint, no credentials) acts as the empty owner key: it
 * creates records owned by nobody and sees only those (check warns of public endpoints on
 * owned resources: auth-owned-endpoint-public).
 *
 * A resource with `visibility: { parent: <field> }` has owners too: a record is stored with
 * its parent's owner, and a caller may only create one under a parent it sees (its own),
 * so it is seen, listed and changed by exactly those who see the parent
 * (src/serve/nesting.ts parentVisible checks the ref on every write).
 */
import type { FastifyRequest } from 'fastify';
import { hasOwner } from '../../spec/conventions/ownership.ts';
import type { Resource } from '../../spec/model.ts';
import type { StoredRecord } from '../../store/store.ts';

/** The owner key of anonymous callers. */
export const NO_OWNER = '';

/**
 * Whether the caller of a request may see a record of a resource: any record of a resource
 * without owners, only its own of one with them. A ref to a record it may not see is
 * answered as a ref to none (src/serve/validation.ts).
 */
export function visibleTo(resources: ReadonlyMap<string, Resource>, request: FastifyRequest): (resource: string, record: StoredRecord) => boolean {
  return (name, record) => {
    const resource = resources.get(name);
    if (!resource || !hasOwner(resource)) return true;
    return record.owner === (request.principal?.id ?? NO_OWNER);
  };
}

/** The owner key a request acts as on a resource; undefined when the resource is not owned. */
export function ownerOf(resource: Resource, request: FastifyRequest): string | undefined {
  if (!hasOwner(resource)) return undefined;
  return request.principal?.id ?? NO_OWNER;
}
