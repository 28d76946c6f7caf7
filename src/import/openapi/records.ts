/**
 * What the endpoints tell of the resources' fields once they are placed: who assigns an id
 * the create does not take, and which schema-required fields a client cannot be held to send.
 */
import type { Resource } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { IMPORT_CODES } from '../codes.ts';
import { report, type ImportContext } from './context.ts';
import type { Placed } from './endpoints.ts';
import { idAssignment, listOf } from './resources.ts';

/**
 * A record without an `id` property whose item paths all name one parameter that is also one
 * of its properties (`/special-events/{eventId}` and `eventId`, Redocly's Museum API) is
 * identified by it: the path says which value finds the record. Otherwise the id stays
 * unwritten (IMPORT_CODES.resourceId).
 */
export function idFromPaths(ctx: ImportContext, r: Resource, placed: readonly Placed[]): Resource {
  if (r.id !== undefined) return r;
  const names = new Set(placed.filter((p) => p.endpoint.resource === r.name && p.idParam !== undefined).map((p) => p.idParam!));
  if (names.size !== 1) return r;
  const [name] = names;
  const field = r.fields.find((f) => f.name === name);
  if (!field || (field.type !== 'string' && field.type !== 'integer')) return r;
  const { assigned, how } = idAssignment(field);
  const at = placed.find((p) => p.endpoint.resource === r.name && p.idParam === name)!.op.pointer;
  report(ctx, IMPORT_CODES.resourceIdRead, { resource: r.name, field: name, why: `, which its item paths name ({${name}})`, how }, at);
  return { ...r, id: { field: name, assigned, pointer: child(r.pointer, 'id') } };
}

/**
 * A writable `id` reads as given by the client (resources.ts), unless the create takes only
 * other fields (petstore-expanded's `NewPet`): then the service assigns it, as an integer
 * (sequence) or text (service).
 */
export function serviceIdWhenCreateOmits(r: Resource, placed: readonly Placed[]): Resource {
  if (r.id?.assigned !== 'client') return r;
  const create = placed.find((p) => p.endpoint.resource === r.name && p.endpoint.operation === 'create')?.endpoint;
  if (!create || create.request.kind !== 'fields' || create.request.fields.includes(r.id.field)) return r;
  const field = r.fields.find((f) => f.name === r.id!.field);
  return { ...r, id: { ...r.id, assigned: field?.type === 'integer' ? 'sequence' : 'service' } };
}

/**
 * A required field the create's body leaves out is not the client's to send: OpenAPI
 * schemas shared by requests and responses say `required` of the answer (Box's `type`,
 * "always `group`", which its `POST /groups` does not take). In the format, `required` is
 * what a client must send on create and replace, so such a field is written optional and
 * reported; else every record the create makes would break its own resource, and the first
 * update of it would be refused.
 */
export function optionalWhenCreateOmits(ctx: ImportContext, r: Resource, placed: readonly Placed[]): Resource {
  const create = placed.find((p) => p.endpoint.resource === r.name && p.endpoint.operation === 'create');
  if (!create || create.endpoint.request.kind !== 'fields') return r;
  const taken = new Set(create.endpoint.request.fields);
  const omitted = r.fields.filter((f) => f.required && !f.readOnly && !f.hasDefault && f.name !== r.id?.field && !taken.has(f.name));
  if (!omitted.length) return r;
  const names = new Set(omitted.map((f) => f.name));
  report(ctx, IMPORT_CODES.requiredNotSent, { resource: r.name, fields: listOf(omitted.map((f) => `'${f.name}'`)), method: create.op.method.toUpperCase(), path: create.op.path }, child(create.op.pointer, 'requestBody'));
  return { ...r, fields: r.fields.map((f) => (names.has(f.name) ? { ...f, required: false } : f)) };
}
