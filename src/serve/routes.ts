/**
 * Part 4 at run time: one route per endpoint of the spec, under {base_url}. Other methods
 * on a path that exists (405, OPTIONS) are answered for every route of the app together
 * (./methods.ts); an unknown path is 404 (the not-found handler).
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Endpoint } from '../spec/model.ts';
import type { ServeContext } from './context.ts';
import { requestEnvelope } from '../spec/conventions/envelope.ts';
import { unwrapping } from './envelope.ts';
import { actionHandler } from './actions.ts';
import { bulkHandler } from './bulk.ts';
import { bulkChangeHandler } from './bulk-change.ts';
import { listHandler } from './pagination.ts';
import { pathParamsGuard } from './path-params.ts';
import { resourceHandler } from './resources.ts';
import { transitionHandler } from './states.ts';

/**
 * `/loans/{id}/approve` -> `/loans/:id/approve`; a literal colon (`/levels:trim`) is `::` to
 * find-my-way, not a parameter. A parameter right before a colon (`/items/{id}:archive`, the
 * custom methods of Google's API design guide) is given its pattern, `:id(^[^/:]+)`, as
 * find-my-way reads a name up to `/`, `-` or `.` only and would take `id::archive` for one.
 */
export function routePath(template: string): string {
  return template.replaceAll(':', '::').replace(/\{(\w+)\}(?=::)/g, ':$1(^[^/:]+)').replace(/\{(\w+)\}/g, ':$1');
}

export function handlerFor(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  if (endpoint.operation === 'list') return listHandler(ctx, endpoint);
  if (endpoint.operation === 'action') return actionHandler(ctx, endpoint);
  if (endpoint.operation === 'bulk-create') return bulkHandler(ctx, endpoint);
  if (endpoint.operation === 'bulk-update' || endpoint.operation === 'bulk-delete') return bulkChangeHandler(ctx, endpoint);
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
  for (const endpoint of ctx.spec.endpoints) {
    if (!ctx.resources.has(endpoint.resource)) continue; // check reports it; nothing to serve
    // Path parameters of a shape of their own are checked before the handler (./path-params.ts).
    const guard = pathParamsGuard(ctx, endpoint);
    // A record sent inside its envelope (./envelope.ts) is taken out before the handler reads it.
    const member = requestEnvelope(ctx.spec, endpoint);
    const make = member === undefined ? () => handler(endpoint) : () => unwrapping(member, handler(endpoint), (error) => ctx.domain.httpError(error));
    app.route({ method: endpoint.method, url: prefix + routePath(endpoint.path), config: { endpoint }, ...(guard ? { preHandler: guard } : {}), handler: onFirstRequest(make) });
  }
}

/**
 * A route's handler, made on the route's first request rather than at start-up (issue #20):
 * making one prepares the endpoint's request validators, representation and events for each
 * version served, a third of building the app, and a service's first request needs one
 * endpoint's. The makers only prepare (they register nothing and refuse no spec: check and
 * the readiness verdict did that before), so the service answers as it would with every
 * handler made at start.
 */
export function onFirstRequest(make: () => RouteHandlerMethod): RouteHandlerMethod {
  let made: RouteHandlerMethod | undefined;
  // A maker that throws is a bug: the route answers it as one (500, logged by the error
  // handler) on every request, but the maker runs once, so a bug is not rebuilt per request.
  let failed: { readonly error: unknown } | undefined;
  return function (this: FastifyInstance, request, reply) {
    if (made === undefined) {
      if (failed) throw failed.error;
      try {
        made = make();
      } catch (error) {
        failed = { error };
        throw error;
      }
    }
    return made.call(this, request, reply);
  };
}
