/**
 * How the import reads a path: the route a request reaches, the resource its segments name,
 * whether it is a collection or an item path, and the record's parameter written `{id}`.
 */
import type { Resource } from '../../spec/model.ts';

/** The collection path and, for an item path, its last parameter. */
export interface PathShape {
  readonly base: string;
  readonly param?: string;
}

/**
 * The path a request reaches: no fragment nor query (RFC 3986 §3.4, §3.5). OpenAPI path keys
 * may carry them to tell apart operations of one route (Box's `/files/{file_id}#add_shared_link`),
 * but a client never sends a fragment: the endpoint is written at the route itself.
 */
export function pathOf(path: string): string {
  return path.replace(/[?#].*$/, '') || '/';
}

/**
 * The resource a sub-path of one record acts on: `/pet/{petId}/uploadImage` acts on a pet,
 * whatever its bodies are (a generic answer, an image).
 */
export function recordOf(path: string, resources: readonly Resource[]): string | undefined {
  const segments = path.split('/').filter(Boolean);
  for (let i = 0; i + 2 < segments.length; i++) {
    if (segments[i].startsWith('{') || !/^\{[^}]+\}$/.test(segments[i + 1])) continue;
    const match = resources.find((r) => sameName(segments[i], r.name));
    if (match) return match.name;
  }
  return undefined;
}

/** `pets` names `pet`, `special-events` names `specialEvent`. */
export function sameName(segment: string, name: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  const s = norm(segment);
  const n = norm(name);
  return s === n || s === `${n}s` || s === `${n}es` || (n.endsWith('y') && s === `${n.slice(0, -1)}ies`);
}

/** A collection path (`/pets`) or an item path (`/pets/{petId}`), when every other segment is static. */
export function pathShape(path: string): PathShape | undefined {
  const segments = path.split('/').filter(Boolean);
  const isParam = (s: string) => /^\{[^}]+\}$/.test(s);
  const last = segments.at(-1);
  // A custom method (`/attachments:batchDelete`, `/items/{id}:archive`, AIP-136) is no collection nor record path: an action.
  if (last !== undefined && /:[A-Za-z]\w*$/.test(last)) return undefined;
  if (last !== undefined && isParam(last) && !segments.slice(0, -1).some(isParam) && segments.length > 1) {
    return { base: `/${segments.slice(0, -1).join('/')}`, param: last.slice(1, -1) };
  }
  if (segments.length > 0 && !segments.some(isParam)) return { base: `/${segments.join('/')}` };
  return undefined;
}


/** The path with the record's parameter written `{id}`, where it is the one after the main collection path. */
export function endpointPath(path: string, base: string | undefined): { path: string; idParam?: string; renamed?: Readonly<Record<string, string>> } {
  if (base === undefined || !path.startsWith(`${base}/`)) return { path };
  const m = /^\/\{([^}]+)\}(\/.*)?$/.exec(path.slice(base.length));
  if (!m) return { path };
  let rest = m[2] ?? '';
  // `{id}` is the record's now: a parameter of the rest already named id (`/articles/{slug}/comments/{id}`)
  // is named after the segment before it, `{commentId}`, so one route never binds two values to one name.
  const renamed: Record<string, string> = {};
  if (rest.includes('{id}')) {
    rest = rest.replace(/(?:\/([^/{}]+))?\/\{id\}/, (_whole, segment: string | undefined) => {
      const name = uniqueParam(`${singular(segment ?? 'item')}Id`, path);
      renamed[name] = 'id';
      return `${segment === undefined ? '' : `/${segment}`}/{${name}}`;
    });
  }
  return { path: `${base}/{id}${rest}`, idParam: m[1], ...(Object.keys(renamed).length ? { renamed } : {}) };
}

/** `comments` -> `comment`, `categories` -> `category`, `addresses` -> `address`, `boxes` -> `box`, a name without a plural ending as it is; camelCase. */
export function singular(segment: string): string {
  const word = /ies$/.test(segment) ? segment.replace(/ies$/, 'y') : /(ss|us|x|ch|sh)es$/.test(segment) ? segment.replace(/es$/, '') : segment.replace(/([^s])s$/, '$1');
  return word.replace(/[^A-Za-z0-9]+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase()).replace(/^[^A-Za-z]+/, '') || 'item';
}

function uniqueParam(name: string, path: string): string {
  let candidate = name;
  for (let n = 2; path.includes(`{${candidate}}`); n++) candidate = `${name}${n}`;
  return candidate;
}

