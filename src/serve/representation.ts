/**
 * What a client sees of a stored record, shared by resources (2), states (3) and the list
 * operation: the JSON body, the ETag, the Location. Small and pure: no store, no request.
 *
 *   present(resource, record)   the body: writeOnly fields never, the id typed as the API types it
 *   etagOf(record)              a strong entity tag `"<version>-<hash>"` (RFC 9110 §8.8.3)
 *   locationOf(resource, id)    `/{plural}/{id}`, relative to {base_url}
 *   idOf(resource)              the id field and how it is assigned
 *   Outcome                     a response as data (status, headers, body), so it can be replayed
 */
import type { Field, IdAssignment, Resource, Shape } from '../spec/model.ts';
import type { StoredRecord } from '../store/store.ts';

/** A response as data: handlers return it, the idempotency layer stores and replays it. */
export interface Outcome {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON value; undefined for no body (204, 304). */
  readonly body?: unknown;
}

export interface IdRule {
  readonly field: string;
  readonly assigned: IdAssignment;
  /** How the API types the id: sequence ids are integers, uuids text, client ids as their field says. */
  readonly type: 'string' | 'integer';
}

/**
 * The id field and its assignment. A resource without `id` (check warns: resource-id-missing)
 * is still served: its records are addressed by a service-assigned UUID in a field named
 * `id`, the path convention `/{plural}/{id}` of docs/format.md.
 */
export function idOf(resource: Resource): IdRule {
  const field = resource.id?.field ?? 'id';
  const assigned = resource.id?.assigned ?? 'uuid';
  if (assigned === 'sequence') return { field, assigned, type: 'integer' };
  if (assigned === 'uuid') return { field, assigned, type: 'string' };
  const declared = resource.fields.find((f) => f.name === field);
  return { field, assigned, type: declared?.type === 'integer' ? 'integer' : 'string' };
}

/** The id as the API shows it. Stored ids are text; integer ids are shown as numbers. */
export function apiId(rule: IdRule, stored: string): string | number {
  if (rule.type !== 'integer') return stored;
  const n = Number(stored);
  return Number.isSafeInteger(n) ? n : stored;
}

/** The JSON body of a record: the id first, then the fields in declared order, writeOnly ones left out. */
export function present(resource: Resource, record: StoredRecord): Record<string, unknown> {
  const { rule, writeOnly } = presenterOf(resource);
  // The hot path of every read and list: nothing to strip, the stored order is the declared one.
  if (!writeOnly) return { [rule.field]: apiId(rule, record.id), ...record.data };
  const out: Record<string, unknown> = { [rule.field]: apiId(rule, record.id) };
  const data = stripWriteOnly(resource.fields, record.data);
  for (const f of resource.fields) if (f.name in data && f.name !== rule.field) out[f.name] = data[f.name];
  // Members the spec no longer declares (a field removed since the record was written) stay visible.
  for (const [k, v] of Object.entries(data)) if (!(k in out)) out[k] = v;
  return out;
}

function stripWriteOnly(fields: readonly Field[], data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const byName = new Map(fields.map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(data)) {
    const f = byName.get(k);
    if (f?.writeOnly) continue;
    out[k] = f ? stripShape(f, v) : v;
  }
  return out;
}

interface Presenter {
  readonly rule: IdRule;
  /** Whether any field, at any depth, is writeOnly. */
  readonly writeOnly: boolean;
}

const presenters = new WeakMap<Resource, Presenter>();

function presenterOf(resource: Resource): Presenter {
  let p = presenters.get(resource);
  if (!p) presenters.set(resource, (p = { rule: idOf(resource), writeOnly: resource.fields.some(hasWriteOnly) }));
  return p;
}

function hasWriteOnly(shape: Shape): boolean {
  if ('writeOnly' in shape && shape.writeOnly) return true;
  return (shape.properties ?? []).some(hasWriteOnly) || (shape.items !== undefined && hasWriteOnly(shape.items));
}

/** writeOnly members of nested objects (and of objects inside arrays) are left out too. */
function stripShape(shape: Shape, value: unknown): unknown {
  if (shape.type === 'object' && shape.properties && isObject(value)) return stripWriteOnly(shape.properties, value);
  if (shape.type === 'array' && shape.items && Array.isArray(value)) return value.map((v) => stripShape(shape.items as Shape, v));
  return value;
}

/**
 * A strong entity tag (RFC 9110 §8.8.3): the record's insertion sequence and version. The
 * version changes on every write, so the tag does; the sequence is never reused, so a record
 * deleted and re-created under the same client id never matches a tag of its predecessor.
 * Opaque to clients; compared as a whole. No hashing: it is on the path of every response.
 */
export function etagOf(record: StoredRecord): string {
  return `"${record.seq.toString(36)}.${record.version.toString(36)}"`;
}

/** `/{plural}/{id}`, relative to {base_url} (RFC 9110 §10.2.2 allows a relative reference). */
export function locationOf(resource: Resource, id: string | number): string {
  return `/${resource.plural}/${encodeURIComponent(String(id))}`;
}

/** The usual answer with a record: its body, its ETag, and a Location when it was created. */
export function recordOutcome(resource: Resource, record: StoredRecord, status = 200): Outcome {
  const headers: Record<string, string> = { etag: etagOf(record) };
  if (status === 201) headers.location = locationOf(resource, apiId(idOf(resource), record.id));
  return { status, headers, body: present(resource, record) };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
