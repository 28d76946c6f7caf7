/**
 * The format's id convention (parts 2 and 4): which field addresses a record, how the API
 * types it, and which path parameter carries it. docs/format.md "Endpoint conventions".
 */
import type { IdAssignment, Resource } from '../model.ts';

export interface IdRule {
  readonly field: string;
  readonly assigned: IdAssignment;
  /** How the API types the id: sequence ids are integers, uuids text, client ids as their field says. */
  readonly type: 'string' | 'integer';
}

/**
 * The id field and its assignment. A resource without `id` (check warns: resource-id-missing,
 * and lists the runtime default) is still served: its records are addressed by a field named
 * `id` (the path convention `/{plural}/{id}` of docs/format.md), numbered by the service when
 * the resource declares `id` an integer, else a service-assigned UUID, so that the ids it
 * hands out have the type the spec gives the field.
 */
export function idOf(resource: Resource): IdRule {
  const field = resource.id?.field ?? 'id';
  const assigned = resource.id?.assigned ?? (resource.fields.find((f) => f.name === 'id')?.type === 'integer' ? 'sequence' : 'uuid');
  if (assigned === 'sequence') return { field, assigned, type: 'integer' };
  if (assigned === 'uuid' || assigned === 'service') return { field, assigned, type: 'string' };
  const declared = resource.fields.find((f) => f.name === field);
  return { field, assigned, type: declared?.type === 'integer' ? 'integer' : 'string' };
}

/** The id as the API shows it. Stored ids are text; integer ids are shown as numbers. */
export function apiId(rule: IdRule, stored: string): string | number {
  if (rule.type !== 'integer') return stored;
  const n = Number(stored);
  return Number.isSafeInteger(n) ? n : stored;
}

/** The path parameter that holds the id: `{id}` by the convention, else the last one. */
export function idParamOf(path: string): string {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  return names.includes('id') ? 'id' : (names.at(-1) ?? 'id');
}
