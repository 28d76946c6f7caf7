/**
 * Methods on a path that exists (RFC 9110 §15.5.6, §9.3.7): whatever serves the path — an
 * endpoint of the spec, the event stream, the webhook subscription routes, the health
 * checks, the documents — a method it does not serve is 405 with `Allow`, and OPTIONS is
 * 204 with `Allow`. "Any method" is every method Node's HTTP parser reads (http.METHODS:
 * TRACE, PURGE, PROPFIND, QUERY, …), not only the five Fastify routes by default; an
 * unknown path is 404 whatever the method. CONNECT is not a request to a path.
 *
 * The 405 is given in onRequest, before a body is read: a method the path does not take
 * gets its answer whatever it sends, not a 400 or 415 about a body nobody would read.
 */
import { allowedMethods } from '../spec/conventions/endpoints.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';

// getBuiltinModule, not an ES import of node:http: why in src/serve/events/delivery.ts.
const { METHODS } = process.getBuiltinModule('node:http');

/** What the routes registered so far serve, by URL (as registered); filled by an onRoute hook. */
export interface RouteMethods {
  readonly byUrl: Map<string, Set<string>>;
  /** The methods Fastify routes by default (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS). */
  readonly standard: ReadonlySet<string>;
  /** Each path's pattern and Allow, for the methods answered without a route (see answerUnroutedMethods). */
  readonly unrouted: { readonly pattern: RegExp; readonly allow: string; readonly url: string }[];
}

/** Every method the parser reads that Fastify does not route by default, made routable. Call before registering routes. */
export function routeEveryMethod(app: FastifyInstance): RouteMethods {
  const standard = new Set(app.supportedMethods);
  for (const method of METHODS) {
    if (method === 'CONNECT' || app.supportedMethods.includes(method)) continue;
    app.addHttpMethod(method);
  }
  const byUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = byUrl.get(route.url) ?? new Set<string>();
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) methods.add(m);
    byUrl.set(route.url, methods);
  });
  return { byUrl, standard, unrouted: [] };
}

function refuse(request: FastifyRequest, allow: string, sendsAllow: boolean): HttpError {
  if (!sendsAllow) return new HttpError('method-not-allowed', { detail: `There is no ${request.method} ${request.url.split('?')[0]}.` });
  return new HttpError('method-not-allowed', { detail: `${request.method} is not allowed here; allowed: ${allow}.`, headers: { allow } });
}

/**
 * 405 and OPTIONS for every path registered so far. Call after every route is registered.
 * A spec may answer an undeclared method as another situation (`for: [not-found,
 * method-not-allowed]`): `sendsAllow` false then, as Allow goes with 405 only (RFC 9110 §15.5.6).
 *
 * Mostly without routes: a method a path does not serve finds no route (request.is404), and
 * answerUnroutedMethods answers it from the paths' patterns, whichever method it is. A route
 * per path and method was a hundred router entries for a small spec, each compiling a
 * function, and a tenth of serve's start-up (issue #20).
 */
export function answerOtherMethods(app: FastifyInstance, methods: RouteMethods, sendsAllow = true): void {
  // Registering routes below fires the onRoute hook; work from a copy.
  const paths = [...methods.byUrl].map(([url, routed]) => ({ url, served: new Set(allowedMethods(routed)), pattern: urlPattern(url) }));
  for (const { url, served, pattern } of paths) {
    const allow = [...served].join(', ');
    methods.unrouted.push({ pattern, allow, url });
    // A fixed path is matched before a templated one (OpenAPI 3.1 §4.8.8.2; the router does the
    // same only per method): where /books/{id} takes GET, GET /books/bulk would reach it. Such
    // methods get a 405 route on the fixed path: a handful, not one per path and method.
    // Each parameter (not `::`, a colon) as a value no fixed text holds.
    const concrete = url.replace(GROUP, '').replace(/::|:[^/.:(-]+/g, (m) => (m === '::' ? ':' : '\u0000'));
    const captured = [...methods.standard].filter((m) => !served.has(m) && paths.some((p) => p.url !== url && p.served.has(m) && p.pattern.test(concrete)));
    if (captured.length === 0) continue;
    app.route({
      method: captured,
      url,
      onRequest: async (request) => {
        throw refuse(request, allow, sendsAllow);
      },
      handler: async () => undefined,
    });
  }
  // A concrete path that several patterns match (/books/bulk and /books/:id) is the most
  // specific one's, as the router would pick it: a fixed segment before a parameter.
  methods.unrouted.sort((a, b) => bySpecificity(a.url, b.url));
}

/**
 * A total order of route URLs in which, of two that match one concrete path, the one with a
 * fixed segment where the other has a parameter comes first: segment by segment, a fixed one
 * before a parameter, fixed ones by their text (paths that can never match the same one just
 * need some consistent place), then the shorter first.
 */
export function bySpecificity(a: string, b: string): number {
  // A parameter's own pattern (`:id(^[^/:]+)`) may hold a '/': segments are cut without it.
  const sa = a.replace(GROUP, '').split('/');
  const sb = b.replace(GROUP, '').split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const x = sa[i] as string;
    const y = sb[i] as string;
    const rx = segmentRank(x);
    const ry = segmentRank(y);
    if (rx !== ry) return rx - ry;
    if (x !== y) return x < y ? -1 : 1;
  }
  return sa.length - sb.length;
}

/**
 * How a segment matches, as find-my-way ranks it: fixed text (`::` is a colon, which a
 * segment may hold, RFC 3986 §3.3) 0, a parameter with fixed text beside it (`:y-:m`,
 * `x.:ext`) 1, a plain parameter 2, a wildcard 3.
 */
function segmentRank(segment: string): number {
  // A colon of the text stays text: `:id::archive` is a parameter and fixed text.
  const plain = segment.replaceAll('::', '\u0001');
  if (plain.includes('*')) return 3;
  if (!plain.includes(':')) return 0;
  return /^:\w+$/.test(plain) ? 2 : 1;
}

/** A parameter's own pattern, `(…)` after its name (./routes.ts). */
const GROUP = /\((?:[^()\\]|\\.)*\)/g;

declare module 'fastify' {
  interface FastifyRequest {
    /** The path a request that found no route is on, when the path exists with other methods (answerUnroutedMethods). */
    unroutedPath?: { readonly allow: string };
  }
}

/**
 * A method without a route on a path that exists: such a request finds no route
 * (request.is404), and this onRequest hook, right after the time-outs' (before version
 * selection, which would take a path it finds no route for as an unknown version's), finds
 * the path it is on. refuseUnroutedMethods answers it after version selection, so the 405 or
 * OPTIONS of a deprecated version carries that version's fields like every other answer.
 */
export function answerUnroutedMethods(app: FastifyInstance, methods: RouteMethods): void {
  app.decorateRequest('unroutedPath', undefined);
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.is404) return done();
    const raw = request.url.split('?')[0] as string;
    let path = raw;
    try {
      path = decodeURI(raw);
    } catch {
      // Malformed escapes: matched as sent (and then 404).
    }
    const hit = methods.unrouted.find((u) => u.pattern.test(path) || u.pattern.test(raw));
    // OPTIONS is answered here for every path (no path routes it). Another method the path's
    // Allow names found no route only if the router and the pattern disagree: a 404 then,
    // never "GET is not allowed; allowed: GET".
    if (hit && (request.method === 'OPTIONS' || !hit.allow.split(', ').includes(request.method))) request.unroutedPath = hit;
    done();
  });
}

/** The answer to a request answerUnroutedMethods placed on a path: OPTIONS 204 with Allow, any other method 405. Register it right after version selection. */
export function refuseUnroutedMethods(app: FastifyInstance, sendsAllow = true): void {
  app.addHook('onRequest', (request, reply, done) => {
    const hit = request.unroutedPath;
    if (!hit) return done();
    if (request.method === 'OPTIONS') {
      void reply.code(204).header('allow', hit.allow).send();
      return;
    }
    done(refuse(request, hit.allow, sendsAllow));
  });
}

/** The index of the ')' that closes the '(' at `open`, escapes and nested groups skipped. */
function closing(url: string, open: number): number {
  let depth = 0;
  for (let i = open; i < url.length; i++) {
    if (url[i] === '\\') i++;
    else if (url[i] === '(') depth++;
    else if (url[i] === ')' && --depth === 0) return i;
  }
  return url.length - 1;
}

/** A route's URL as find-my-way reads it (`:name` a parameter up to `/`, `-` or `.`; `::` a colon) as a regular expression. */
function urlPattern(url: string): RegExp {
  let out = '';
  for (let i = 0; i < url.length; i++) {
    const c = url[i];
    if (c === ':' && url[i + 1] === ':') {
      out += ':';
      i++;
    } else if (c === ':') {
      while (i + 1 < url.length && !'/-.('.includes(url[i + 1])) i++;
      // A parameter's own pattern (`:id(^[^/:]+)`, ./routes.ts): a value up to the next '/' all the same.
      if (url[i + 1] === '(') i = closing(url, i + 1);
      out += '[^/]+?';
    } else if (c === '*') {
      out += '.*';
    } else {
      out += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}
