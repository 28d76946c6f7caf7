/**
 * The records a run makes, as the tester keeps them to clean up (./data.ts, ./late.ts): read
 * from an answer, and the paths that reach them. Pure functions of an exchange and the spec.
 */
import { fillPath, idParam, parentParams } from '../spec/conventions/paths.ts';
import type { Endpoint, Resource } from '../spec/model.ts';
import type { Principal } from './context.ts';
import type { Made } from './data.ts';
import type { Exchange } from './http.ts';

const asRecord = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The record a 2xx answer carries, with its id; undefined where it carries none. */
export function answeredMade(resource: Resource, idField: string, ex: Exchange, as?: Principal): Made | undefined {
  const body = asRecord(ex.response.json);
  const id = body?.[idField];
  if (ex.response.status >= 300 || !body || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return { resource, id: String(id), sent: {}, body, exchange: ex, ...(as ? { as } : {}) };
}

/** The records of a bulk write's answer (`{ items: [records] }`). */
export function itemsMade(resource: Resource, idField: string, ex: Exchange, member: string, as?: Principal): Made[] {
  const items = ex.response.status < 300 ? asRecord(ex.response.json)?.[member] : undefined;
  if (!Array.isArray(items)) return [];
  const out: Made[] = [];
  for (const record of items) {
    const body = asRecord(record);
    const id = body?.[idField];
    if (body && (typeof id === 'string' || typeof id === 'number')) out.push({ resource, id: String(id), sent: {}, body, exchange: ex, ...(as ? { as } : {}) });
  }
  return out;
}

/**
 * A create that succeeded but whose record could not be read (no body, and its Location not
 * served): the record is there all the same. Its id is the Location's last segment, as the
 * convention writes it; its body is unknown.
 */
export function unreadMade(resource: Resource, ex: Exchange, as?: Principal): Made | undefined {
  const location = ex.response.headers.location;
  if (ex.response.status < 200 || ex.response.status >= 300 || !location) return undefined;
  const last = new URL(location, 'http://x').pathname.split('/').filter(Boolean).at(-1);
  return last === undefined ? undefined : { resource, id: decodeURIComponent(last), sent: {}, body: {}, exchange: ex, ...(as ? { as } : {}) };
}

/**
 * A Location (RFC 9110 §10.2.2) as a path of the API: resolved against the base URL (RFC 3986
 * §5.2), then taken relative to it, and without the version prefix a path-selected version
 * puts in front (`/v2`: ctx.call puts it back). undefined where it points outside the base URL
 * or is no URI reference at all.
 */
export function locationPath(location: string, baseUrl: string, versionPrefix = ''): string | undefined {
  const base = new URL(`${baseUrl}/`);
  let url: URL;
  try {
    url = new URL(location, base);
  } catch {
    return undefined;
  }
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return undefined;
  const path = `/${url.pathname.slice(base.pathname.length)}${url.search}`;
  return versionPrefix && path.startsWith(`${versionPrefix}/`) ? path.slice(versionPrefix.length) : path;
}

/** The path of an item endpoint for a record. */
export function itemPath(endpoint: Endpoint, id: string): string {
  const names = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const param = idParam(endpoint) ?? (names.includes('id') ? 'id' : names.at(-1));
  return endpoint.path.replace(`{${param}}`, encodeURIComponent(id));
}

/** The path of an endpoint for a record made: its id, and its parents (a nested path) from its refs. */
export function pathFor(endpoint: Endpoint, made: Pick<Made, 'id' | 'body'>): string {
  const values: Record<string, string | number> = {};
  for (const p of parentParams(endpoint)) {
    const v = made.body[p.field];
    if (typeof v === 'string' || typeof v === 'number') values[p.name] = v;
  }
  return fillPath(itemPath(endpoint, made.id), values);
}

/**
 * A nested create's body as sent: the ref its path gives is left out where the create lists
 * the fields it takes without it (`request: [body]` under `/articles/{articleId}/comments`),
 * as the reference refuses a member the list does not take. Kept in what the run made, to
 * compare with the answer.
 */
export function sentThrough(endpoint: Endpoint, body: Record<string, unknown>): Record<string, unknown> {
  if (endpoint.request.kind !== 'fields') return body;
  const listed = endpoint.request.fields;
  const drop = parentParams(endpoint).map((p) => p.field).filter((f) => !listed.includes(f) && f in body);
  if (!drop.length) return body;
  const out = { ...body };
  for (const f of drop) delete out[f];
  return out;
}
