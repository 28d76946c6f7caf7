/**
 * The endpoint conventions of the format: what a short-form operation (or an explicit one
 * that leaves something out) means. They are the format's own rules, documented in
 * docs/format.md ("Endpoint conventions"), not domain values.
 */
import {
  STANDARD_OPERATIONS,
  type Endpoint, type EndpointResponse, type HttpMethod, type Operation, type RequestShape, type StandardOperation,
} from '../model.ts';

export interface Convention {
  readonly method: HttpMethod;
  readonly item: boolean;
  readonly request: RequestShape;
  readonly responses: readonly EndpointResponse[];
}

export const CONVENTIONS: Readonly<Record<Operation, Convention>> = {
  create: { method: 'POST', item: false, request: { kind: 'resource', partial: false }, responses: [{ status: 201, body: 'resource' }] },
  read: { method: 'GET', item: true, request: { kind: 'none' }, responses: [{ status: 200, body: 'resource' }] },
  update: { method: 'PATCH', item: true, request: { kind: 'resource', partial: true }, responses: [{ status: 200, body: 'resource' }] },
  replace: { method: 'PUT', item: true, request: { kind: 'resource', partial: false }, responses: [{ status: 200, body: 'resource' }] },
  delete: { method: 'DELETE', item: true, request: { kind: 'none' }, responses: [{ status: 204, body: 'none' }] },
  list: { method: 'GET', item: false, request: { kind: 'none' }, responses: [{ status: 200, body: 'page' }] },
  transition: { method: 'POST', item: true, request: { kind: 'fields', fields: [] }, responses: [{ status: 200, body: 'resource' }] },
  // An action on a record by default: POST /{plural}/{id}/{name}, no body, the record back.
  action: { method: 'POST', item: true, request: { kind: 'none' }, responses: [{ status: 200, body: 'resource' }] },
  // POST /{plural}/bulk with { items: [...] } (src/spec/conventions/bulk.ts), 201 { items: [records] }.
  'bulk-create': { method: 'POST', item: false, request: { kind: 'resource', partial: false }, responses: [{ status: 201, body: 'items' }] },
  // PATCH /{plural} with { items: [{ id, ...merge patch }] }, 200 { items: [records] }: the
  // collection itself, so no record path (`PATCH /{plural}/{id}`) is shadowed by a literal segment.
  'bulk-update': { method: 'PATCH', item: false, request: { kind: 'resource', partial: true }, responses: [{ status: 200, body: 'items' }] },
  // POST /{plural}/bulk-delete with { items: [id, ...] }, 204: a DELETE with a body has no
  // generally defined semantics (RFC 9110 §9.3.5), so a body-carrying delete is a POST.
  'bulk-delete': { method: 'POST', item: false, request: { kind: 'none' }, responses: [{ status: 204, body: 'none' }] },
};

export function isStandard(op: string): op is StandardOperation {
  return (STANDARD_OPERATIONS as readonly string[]).includes(op);
}

/** The path of an endpoint that gives none; `name` is the transition's or the action's name. */
export function conventionalPath(plural: string, operation: Operation, name?: string): string {
  const { item } = CONVENTIONS[operation];
  const base = `/${plural}`;
  if (operation === 'transition' || operation === 'action') return `${base}/{id}/${name}`;
  if (operation === 'bulk-create') return `${base}/bulk`;
  if (operation === 'bulk-update') return base;
  if (operation === 'bulk-delete') return `${base}/bulk-delete`;
  return item ? `${base}/{id}` : base;
}

/**
 * Whether the reference service performs an action itself: a record action that states
 * effects is performed by them (its guards, then its effects, in one transaction); any other
 * action's behaviour is prose, which serve answers with 501 until a handler is given.
 * Serve, check, the export and the tester say the same of it.
 */
export function performedByReference(endpoint: Pick<Endpoint, 'operation' | 'action'>): boolean {
  return endpoint.operation === 'action' && endpoint.action?.target === 'record' && (endpoint.action.rules?.effects.length ?? 0) > 0;
}

/**
 * The methods a path answers (its `Allow`, RFC 9110 §10.2.1): those its endpoints declare, HEAD
 * beside GET (§9.3.2: a server that answers GET answers HEAD), and OPTIONS (§9.3.7). serve
 * answers so, and the proxy's own 405 says the same.
 */
export function allowedMethods(declared: Iterable<string>): string[] {
  const served = new Set(declared);
  if (served.has('GET')) served.add('HEAD');
  served.add('OPTIONS');
  return [...served];
}
