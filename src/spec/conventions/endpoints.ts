/**
 * The endpoint conventions of the format: what a short-form operation (or an explicit one
 * that leaves something out) means. They are the format's own rules, documented in
 * docs/format.md ("Endpoint conventions"), not domain values.
 */
import {
  STANDARD_OPERATIONS,
  type EndpointResponse, type HttpMethod, type Operation, type RequestShape, type StandardOperation,
} from '../model.ts';

export interface Convention {
  readonly method: HttpMethod;
  readonly item: boolean;
  readonly request: RequestShape;
  readonly responses: readonly EndpointResponse[];
}

export const CONVENTIONS: Readonly<Record<StandardOperation | 'transition', Convention>> = {
  create: { method: 'POST', item: false, request: { kind: 'resource', partial: false }, responses: [{ status: 201, body: 'resource' }] },
  read: { method: 'GET', item: true, request: { kind: 'none' }, responses: [{ status: 200, body: 'resource' }] },
  update: { method: 'PATCH', item: true, request: { kind: 'resource', partial: true }, responses: [{ status: 200, body: 'resource' }] },
  replace: { method: 'PUT', item: true, request: { kind: 'resource', partial: false }, responses: [{ status: 200, body: 'resource' }] },
  delete: { method: 'DELETE', item: true, request: { kind: 'none' }, responses: [{ status: 204, body: 'none' }] },
  list: { method: 'GET', item: false, request: { kind: 'none' }, responses: [{ status: 200, body: 'page' }] },
  transition: { method: 'POST', item: true, request: { kind: 'fields', fields: [] }, responses: [{ status: 200, body: 'resource' }] },
};

export function isStandard(op: string): op is StandardOperation {
  return (STANDARD_OPERATIONS as readonly string[]).includes(op);
}

export function conventionalPath(plural: string, operation: Operation, transition?: string): string {
  const { item } = CONVENTIONS[operation];
  const base = `/${plural}`;
  if (operation === 'transition') return `${base}/{id}/${transition}`;
  return item ? `${base}/{id}` : base;
}
