/**
 * Part 4 at run time: one route per endpoint of the spec, under {base_url}. A path that
 * exists answers other methods with 405 and `Allow` (RFC 9110 §15.5.6), OPTIONS with 204
 * and `Allow` (RFC 9110 §9.3.7); an unknown path is 404 (the not-found handler).
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Endpoint } from '../spec/model.ts';
import type { ServeContext } from './context.ts';
import { HttpError } from './errors.ts';
import { actionHandler } from './actions.ts';
import { bulkHandler } from './bulk.ts';
import { listHandler } from './pagination.ts';
import { resourceHandler } from './resources.ts';
import { transitionHandler } from './states.ts';

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `/loans/{id}/approve` -> `/loans/:id/approve` */
export function routePath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

export function handlerFor(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  if (endpoint.operation === 'list') return listHandler(ctx, endpoint);
  if (endpoint.operation === 'action') return actionHandler(ctx, endpoint);
  if (endpoint.operation === 'bulk-create') return bulkHandler(ctx, endpoint);
  return endpoint.operation === 'transition' ? transitionHandler(ctx, endpoint) : resourceHandler(ctx, endpoint);
}

export interface RouteOptions {
  /** Put before every path: a version's prefix when the version is selected by path (part 9). */
  readonly prefix?: string;
  /** The handler of an endpoint; handlerFor(ctx, endpoint) unless given (one that picks a version's). */
  readonly handler?: (endpoint: Endpoint) => RouteHandlerMethod;
}

export function registerRoutes(app: FastifyInstance, ctx: ServeContext, options: RouteOptions = {}): void {
  const { prefix = '', handler = (endpoint: Endpoint) => handlerFor(ctx, endpoint) } = options;
  const methodsByPath = new Map<string, Set<string>>();
  for (const endpoint of ctx.spec.endpoints) {
    if (!ctx.resources.has(endpoint.resource)) continue; // check reports it; nothing to serve
    const url = prefix + routePath(endpoint.path);
    app.route({ method: endpoint.method, url, config: { endpoint }, handler: handler(endpoint) });
    const methods = methodsByPath.get(url) ?? new Set<string>();
    methods.add(endpoint.method);
    methodsByPath.set(url, methods);
  }
  // A spec may answer an undeclared method as another situation (`for: [not-found,
  // method-not-allowed]`): Allow goes with 405 only (RFC 9110 §15.5.6), never with a 404.
  const sendsAllow = ctx.resolveError('method-not-allowed').status === 405;
  for (const [url, methods] of methodsByPath) {
    const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    const others = ALL_METHODS.filter((m) => !methods.has(m));
    if (others.length) {
      app.route({
        method: [...others],
        url,
        handler: async (request) => {
          if (!sendsAllow) throw new HttpError('method-not-allowed', { detail: `There is no ${request.method} ${request.url.split('?')[0]}.` });
          throw new HttpError('method-not-allowed', { detail: `${request.method} is not allowed here; allowed: ${allow}.`, headers: { allow } });
        },
      });
    }
    app.route({ method: 'OPTIONS', url, handler: async (_request, reply) => reply.code(204).header('allow', allow).send() });
  }
}
