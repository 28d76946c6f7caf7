/**
 * Expansion at run time (the convention: src/spec/conventions/expand.ts). A referenced
 * record replaces its id only when the caller may read it: a record of an owned resource
 * is embedded for its owner alone, as a read of it would answer 404 to anyone else. One
 * store read per distinct id per request (memoized), however many items name it.
 */
import type { FastifyRequest } from 'fastify';
import type { Endpoint, Resource } from '../spec/model.ts';
import { EXPAND_PARAM, readExpand, refFields, refTarget, type ExpandPath } from '../spec/conventions/expand.ts';
import type { StoredRecord } from '../store/store.ts';
import { ownerOf } from './auth/ownership.ts';
import type { ServeContext } from './context.ts';
import { HttpError } from './errors.ts';
import { isObject, present } from './representation.ts';

/** The paths a request asks to expand; undefined when it asks for none. Refused as validation-failed. */
export function expandPaths(ctx: ServeContext, endpoint: Endpoint, resource: Resource, request: FastifyRequest): readonly ExpandPath[] | undefined {
  const given = (request.query as Record<string, unknown> | undefined)?.[EXPAND_PARAM];
  if (given === undefined) return undefined;
  const raw = Array.isArray(given) ? given.join(',') : String(given);
  const read = readExpand(raw, endpoint.expand, resource, (name) => ctx.resources.get(name));
  if (!read.ok) throw new HttpError('validation-failed', { detail: 'One query parameter is not valid; it is listed with its JSON pointer.', errors: [{ pointer: `/query/${EXPAND_PARAM}`, message: read.message }] });
  return read.paths.length ? read.paths : undefined;
}

/** Expands the paths in presented records (in place), reading each referenced record once. */
export async function expandRecords(ctx: ServeContext, resource: Resource, records: Record<string, unknown>[], paths: readonly ExpandPath[], request: FastifyRequest): Promise<void> {
  const cache = new Map<string, Promise<StoredRecord | undefined>>();
  const fetch = (name: string, id: string) => {
    const key = `${name}\u0000${id}`;
    let found = cache.get(key);
    if (!found) cache.set(key, (found = ctx.store.get(name, id)));
    return found;
  };
  const expandOne = async (at: Resource, value: unknown, rest: ExpandPath): Promise<unknown> => {
    if (typeof value !== 'string' && typeof value !== 'number') return value; // expanded already, or null
    const stored = await fetch(at.name, String(value));
    const owner = ownerOf(at, request);
    if (!stored || (owner !== undefined && stored.owner !== owner)) return value;
    const shown = present(at, stored);
    if (rest.length) await expandIn(at, shown, rest);
    return shown;
  };
  const expandIn = async (at: Resource, record: Record<string, unknown>, path: ExpandPath): Promise<void> => {
    const [first, ...rest] = path;
    const field = refFields(at).find((f) => f.name === first);
    const target = field && refTarget(field);
    const targetResource = target ? ctx.resources.get(target) : undefined;
    if (!field || !targetResource || !(first in record)) return;
    const value = record[first];
    if (Array.isArray(value)) record[first] = await Promise.all(value.map((v) => (isObject(v) ? deeper(targetResource, v, rest) : expandOne(targetResource, v, rest))));
    else if (isObject(value)) await deeper(targetResource, value, rest);
    else record[first] = await expandOne(targetResource, value, rest);
  };
  // A record embedded by an earlier path (`loan` before `loan.book`) is gone into, not fetched again.
  const deeper = async (at: Resource, value: Record<string, unknown>, rest: ExpandPath): Promise<Record<string, unknown>> => {
    if (rest.length) await expandIn(at, value, rest);
    return value;
  };
  // Shorter paths first, so `loan.book` finds `loan` embedded.
  const ordered = [...paths].sort((a, b) => a.length - b.length);
  for (const path of ordered) await Promise.all(records.map((r) => expandIn(resource, r, path)));
}
