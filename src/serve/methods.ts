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
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.ts';

// getBuiltinModule, not an ES import of node:http: why in src/serve/events/delivery.ts.
const { METHODS } = process.getBuiltinModule('node:http');

/** What the routes registered so far serve, by URL (as registered); filled by an onRoute hook. */
export type RouteMethods = Map<string, Set<string>>;

/** Every method the parser reads that Fastify does not route by default, made routable. Call before registering routes. */
export function routeEveryMethod(app: FastifyInstance): RouteMethods {
  for (const method of METHODS) {
    if (method === 'CONNECT' || app.supportedMethods.includes(method)) continue;
    app.addHttpMethod(method);
  }
  const byUrl: RouteMethods = new Map();
  app.addHook('onRoute', (route) => {
    const methods = byUrl.get(route.url) ?? new Set<string>();
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) methods.add(m);
    byUrl.set(route.url, methods);
  });
  return byUrl;
}

/**
 * 405 and OPTIONS for every path registered so far. Call after every route is registered.
 * A spec may answer an undeclared method as another situation (`for: [not-found,
 * method-not-allowed]`): `sendsAllow` false then, as Allow goes with 405 only (RFC 9110 §15.5.6).
 */
export function answerOtherMethods(app: FastifyInstance, byUrl: RouteMethods, sendsAllow = true): void {
  // Registering routes below fires the onRoute hook; work from a copy.
  for (const [url, served] of [...byUrl].map(([u, m]) => [u, new Set(m)] as const)) {
    if (served.has('GET')) served.add('HEAD');
    const allow = [...served, ...(served.has('OPTIONS') ? [] : ['OPTIONS'])].join(', ');
    if (!served.has('OPTIONS')) app.route({ method: 'OPTIONS', url, handler: async (_request, reply) => reply.code(204).header('allow', allow).send() });
    const others = app.supportedMethods.filter((m) => !served.has(m) && m !== 'OPTIONS');
    if (others.length === 0) continue;
    app.route({
      method: others,
      url,
      onRequest: async (request) => {
        if (!sendsAllow) throw new HttpError('method-not-allowed', { detail: `There is no ${request.method} ${request.url.split('?')[0]}.` });
        throw new HttpError('method-not-allowed', { detail: `${request.method} is not allowed here; allowed: ${allow}.`, headers: { allow } });
      },
      handler: async () => undefined,
    });
  }
}
