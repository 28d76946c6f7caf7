/**
 * Conditional requests (RFC 9110 §13) on records, and the compare-and-set that makes them
 * safe: a change is written only if the record still has the version it was read at, so
 * two concurrent updates carrying the same If-Match never both succeed.
 *
 * Order (RFC 9110 §13.2.1, §13.2.2): a missing record is 404 before any precondition is
 * looked at; If-Match is evaluated before the request content is processed, so a stale
 * tag is 412 even when the body would not validate.
 */
import type { FastifyRequest } from 'fastify';
import type { DomainStep } from '../store/domain.ts';
import type { EventMaker } from '../store/events.ts';
import type { Expectation, StoredRecord, Store } from '../store/store.ts';
import { HttpError } from './errors.ts';
import { etagOf } from './representation.ts';

/** An entity-tag list (RFC 9110 §8.8.3): `*`, or tags with their weakness. Unparseable members are dropped. */
export function parseEntityTags(header: string): '*' | { readonly weak: boolean; readonly opaque: string }[] {
  if (header.trim() === '*') return '*';
  const tags: { weak: boolean; opaque: string }[] = [];
  for (const m of header.matchAll(/(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g)) tags.push({ weak: m[1] !== undefined, opaque: m[2] });
  return tags;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** RFC 9110 §13.1.1: strong comparison; `*` matches any current record. */
export function ifMatchPasses(header: string, record: StoredRecord): boolean {
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  const current = etagOf(record);
  return tags.some((t) => !t.weak && t.opaque === current);
}

/** RFC 9110 §13.1.2: weak comparison; true when the client's copy is current (answer 304). */
export function ifNoneMatchHits(header: string, record: StoredRecord): boolean {
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  const current = etagOf(record);
  return tags.some((t) => t.opaque === current);
}

export function ifMatchOf(request: FastifyRequest): string | undefined {
  return headerValue(request, 'if-match');
}

export function ifNoneMatchOf(request: FastifyRequest): string | undefined {
  return headerValue(request, 'if-none-match');
}

export function preconditionFailed(current: StoredRecord | undefined): HttpError {
  return new HttpError('precondition-failed', {
    detail: 'The record has changed since the ETag in If-Match was issued; read it again and retry with its current ETag.',
    ...(current ? { headers: { etag: etagOf(current) } } : {}),
  });
}

export function notFound(resource: string, id: string): HttpError {
  return new HttpError('not-found', { detail: `There is no ${resource} with id '${id}'.` });
}

/** How often an unconditional change re-reads a record that kept changing under it. */
const ATTEMPTS = 8;

export interface ChangeOptions {
  /** The If-Match header, when the request has one. */
  readonly ifMatch?: string;
  /** More to expect of the record (a transition's states, an owner); the version is added here. */
  readonly expect?: Omit<Expectation, 'version'>;
  /** The error for a record that is no longer in an expected state (a transition lost a race). */
  readonly stateMismatch?: (current: StoredRecord) => HttpError;
  /** The events the change triggers (part 6), written in its transaction. */
  readonly events?: EventMaker;
  /** Whether the record is there at this address (a nested path's parent); 404 when not. */
  readonly belongs?: (current: StoredRecord) => boolean;
  /** The domain rules of the change (src/serve/domain), run in its transaction. */
  readonly domain?: DomainStep;
}

/**
 * Reads a record, checks If-Match, computes the new data and writes it with compare-and-set
 * on the version read. With If-Match, losing the race is 412 (the client's tag is stale);
 * without, the change is computed again on the fresh record (no lost update).
 */
export async function changeRecord(
  store: Store,
  resource: string,
  id: string,
  compute: (current: StoredRecord) => Promise<Record<string, unknown>> | Record<string, unknown>,
  options: ChangeOptions = {},
): Promise<StoredRecord> {
  const { ifMatch } = options;
  const owner = options.expect?.owner;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await store.get(resource, id);
    // A record of another owner is not there for this caller: 404 before any precondition.
    if (!current || (owner !== undefined && current.owner !== owner) || (options.belongs && !options.belongs(current))) throw notFound(resource, id);
    if (ifMatch !== undefined && !ifMatchPasses(ifMatch, current)) throw preconditionFailed(current);
    const data = await compute(current);
    const write = options.events || options.domain ? { ...(options.events ? { events: options.events } : {}), ...(options.domain ? { domain: options.domain } : {}) } : undefined;
    const result = await store.update(resource, id, data, { ...options.expect, version: current.version }, write);
    if (result.ok) return result.record;
    if (result.reason === 'missing') throw notFound(resource, id);
    if (result.reason === 'state' && options.stateMismatch) throw options.stateMismatch(result.current);
    if (ifMatch !== undefined) throw preconditionFailed(result.current);
  }
  throw new HttpError('internal', { detail: `The ${resource} '${id}' changed on every attempt to write it; try again.` });
}

/**
 * Removes a record, honouring If-Match with compare-and-set and the owner; returns the
 * record as it was. With `belongs` (a nested path) the removal is also compare-and-set on
 * the version read, so a record moved to another parent meanwhile is not removed here.
 */
export async function removeRecord(store: Store, resource: string, id: string, ifMatch: string | undefined, owner?: string, events?: EventMaker, belongs?: (current: StoredRecord) => boolean, attempt = 1, domain?: DomainStep): Promise<StoredRecord> {
  const current = await store.get(resource, id);
  if (!current || (owner !== undefined && current.owner !== owner) || (belongs && !belongs(current))) throw notFound(resource, id);
  if (ifMatch !== undefined && !ifMatchPasses(ifMatch, current)) throw preconditionFailed(current);
  const expect = { ...(ifMatch !== undefined || belongs ? { version: current.version } : {}), ...(owner !== undefined ? { owner } : {}) };
  const result = await store.remove(resource, id, expect, events || domain ? { ...(events ? { events } : {}), ...(domain ? { domain } : {}) } : undefined);
  if (result.ok) return current;
  if (result.reason === 'missing') throw notFound(resource, id);
  // Changed between the read and the removal: look again (belongs may no longer hold).
  if (ifMatch === undefined && attempt < ATTEMPTS) return removeRecord(store, resource, id, ifMatch, owner, events, belongs, attempt + 1, domain);
  throw preconditionFailed(result.current);
}
