/**
 * Which endpoint of the spec a request is: its version (part 9: a header, a query
 * parameter or a path prefix), then its path against every endpoint's template (part 4).
 * Pure: the proxy's judge reads it for every exchange, strict mode before forwarding.
 */
import type { Endpoint, Spec, Version } from '../spec/model.ts';
import { templatePattern } from '../spec/conventions/paths.ts';

export interface Route {
  /** The endpoint, when the path and method are one the spec declares. */
  readonly endpoint?: Endpoint;
  /** The path matches a declared template, but not with this method (405, RFC 9110 §15.5.6). */
  readonly otherMethods?: readonly string[];
  /** The path parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The path after the version prefix, without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The version asked for (undefined: none asked; the default applies), and the version it names when declared. */
  readonly versionAsked?: string;
  readonly version?: Version;
}

interface Compiled {
  readonly endpoint: Endpoint;
  readonly re: RegExp;
  readonly names: readonly string[];
}

export class Router {
  readonly #spec: Spec;
  readonly #compiled: Compiled[];
  readonly #prefix?: RegExp;

  constructor(spec: Spec) {
    this.#spec = spec;
    // The most specific template first, as a router picks (find-my-way, and serve through
    // it): segment by segment, fixed text before a parameter with fixed text beside it
    // (`{id}:archive`) before a plain parameter, so `/books/search` wins over `/books/{id}` and
    // `/items/{id}:archive` over `/items/{id}`.
    this.#compiled = spec.endpoints
      // No trailing slash (src/spec/conventions/paths.ts): services route `/parcels/` differently
      // (svcspec serve as an item with an empty id, Express as the collection); a path the spec
      // does not declare is not judged.
      .map((endpoint) => ({ endpoint, ...templatePattern(endpoint.path) }))
      .sort((a, b) => bySpecificity(a.endpoint.path, b.endpoint.path));
    const select = spec.versioning.select;
    if (select?.by === 'path') {
      const [before, after = ''] = select.prefix.split('{version}');
      const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      this.#prefix = new RegExp(`^${esc(before)}([^/]+)${esc(after)}(?=/|$)`);
    }
  }

  route(method: string, url: string): Route {
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    let versionAsked: string | undefined;
    const select = this.#spec.versioning.select;
    if (this.#prefix) {
      const m = this.#prefix.exec(path);
      if (m) {
        versionAsked = m[1];
        path = path.slice(m[0].length) || '/';
      }
    } else if (select?.by === 'query') versionAsked = query.get(select.name) ?? undefined;
    const version = this.#spec.versioning.versions.find((v) => v.name === versionAsked);
    const base = { path, query, ...(versionAsked !== undefined ? { versionAsked } : {}), ...(version ? { version } : {}) };
    const others: string[] = [];
    for (const c of this.#compiled) {
      const m = c.re.exec(path);
      if (!m) continue;
      if (c.endpoint.method !== method) {
        others.push(c.endpoint.method);
        continue;
      }
      const params: Record<string, string> = {};
      try {
        c.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
      } catch {
        return { ...base, params: {} };
      }
      return { ...base, endpoint: c.endpoint, params };
    }
    return { ...base, params: {}, ...(others.length ? { otherMethods: [...new Set(others)] } : {}) };
  }

  /** The version asked for in a header (header selection is read from the request's fields). */
  withHeaderVersion(route: Route, headers: Readonly<Record<string, string>>): Route {
    const select = this.#spec.versioning.select;
    if (select?.by !== 'header') return route;
    const asked = headers[select.name.toLowerCase()];
    if (asked === undefined) return route;
    const version = this.#spec.versioning.versions.find((v) => v.name === asked);
    return { ...route, versionAsked: asked, ...(version ? { version } : {}) };
  }

  /** The version a request is served in: the one asked for, else the default. */
  effectiveVersion(route: Route): Version | undefined {
    if (route.versionAsked !== undefined) return route.version;
    const d = this.#spec.versioning.default;
    return this.#spec.versioning.versions.find((v) => v.name === d) ?? this.#spec.versioning.versions.find((v) => v.status === 'current');
  }
}

/** A segment of a path template: 0 fixed text, 1 a parameter with fixed text beside it, 2 a parameter alone. */
function rank(segment: string): number {
  if (!segment.includes('{')) return 0;
  return /^\{[^}]*\}$/.test(segment) ? 2 : 1;
}

/** A total order of path templates, most specific first, segment by segment (then by text, then the shorter). */
export function bySpecificity(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const x = sa[i] as string;
    const y = sb[i] as string;
    const d = rank(x) - rank(y);
    if (d !== 0) return d;
    if (x !== y) return x < y ? -1 : 1;
  }
  return sa.length - sb.length;
}
