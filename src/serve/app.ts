/**
 * The app factory of the reference service: the spec and a store in, a Fastify instance
 * out. It never listens; tests use `inject()` or `listen()` themselves, and the CLI listens.
 *
 * The request pipeline, one module per part of the spec:
 *   HTTP layer  what the parser or the router refuses before any route runs (431, 414, a bad
 *               percent-encoding, a bad request line), in the declared shape (./http-layer.ts)
 *   onRequest   no Host (400) or shutting down (503) first; the time-out (8), so it covers the whole
 *               request; then versioning (9); a method the path does not take (405, OPTIONS);
 *               authentication (5), rate limits (8, per credential, so after authentication)
 *   parsing     JSON bodies only (415 otherwise), size cap (413), malformed or not I-JSON (400)
 *   handler     resources (2) and states (3) by endpoint (4), validation, ETags, idempotency;
 *               writes append their events (6) in their transactions
 *   events      the stream and webhook subscription routes, the delivery worker (6)
 *   errors      every failure in the declared shape (7)
 *   onResponse  one structured log line per request
 *   beside      /healthz and /readyz for orchestrators (./health.ts), the documents (./docs.ts)
 */
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Endpoint, Spec } from '../spec/model.ts';
import { bodyLimit as bodyLimitOf } from '../spec/conventions/body.ts';
import { StoreUnavailableError, type Store } from '../store/store.ts';
import { registerAuthentication } from './auth/index.ts';
import { planEmitting } from './events/emit.ts';
import { registerEvents, serviceEndpoints, type EventServeOptions } from './events/index.ts';
import { createContext } from './context.ts';
import { serveDocument } from './docs.ts';
import { HttpError, renderError, SetupError } from './errors.ts';
import type { ActionHandlers } from './actions.ts';

import { registerHealth } from './health.ts';
import { refuseEarly, httpLayerOptions } from './http-layer.ts';
import { startIdempotencySweep } from './idempotency.ts';
import { registerConditional } from './promises.ts';
import { parseStrictJson } from './json-body.ts';
import { registerRateLimits, type RateCounter } from './limits/rate.ts';
import { abandonableStore, registerTimeouts } from './limits/timeout.ts';
import { tableLayouts } from './list-query.ts';
import { answerOtherMethods, answerUnroutedMethods, refuseUnroutedMethods, routeEveryMethod } from './methods.ts';
import { registerRoutes } from './routes.ts';
import { closeIdleOnShutdown } from './shutdown.ts';
import { planVersions, registerVersionedRoutes, registerVersionSelection } from './versioning/index.ts';
import './principal.ts';

export interface AppOptions {
  readonly spec: Spec;
  readonly store: Store;
  /** Epoch milliseconds; tests pass a fake clock. */
  readonly now?: () => number;
  /** A pino logger configuration, or false for silence (the default for tests). */
  readonly logger?: FastifyServerOptions['logger'];
  /** Webhook delivery settings (part 6): the SSRF guard, concurrency, polling. */
  readonly events?: EventServeOptions;
  /** The behaviour of the spec's prose actions, by endpoint id (src/serve/actions.ts). */
  readonly handlers?: ActionHandlers;
  /** Where rate-limit windows are counted; default: this process's memory (src/serve/limits/rate.ts, ./limits/shared.ts). */
  readonly rateCounter?: RateCounter;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The spec endpoint a route serves; hooks of the part modules read it. */
    endpoint?: Endpoint;
  }
}

/** Fastify's schema compilers, for a service whose routes declare no schema: one that did would be a bug. */
function noSchemaCompiler(): never {
  throw new Error('bug: a route declares a Fastify schema; svcspec validates requests itself (src/serve/validation.ts)');
}

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const { spec, store } = options;
  // The part modules' store refuses the calls of a request abandoned by its time-out (src/serve/limits/timeout.ts).
  const now = options.now ?? Date.now;
  checkHandlers(spec, options.handlers);
  const ctx = createContext(spec, abandonableStore(store), now, planEmitting(spec, now), options.handlers);
  const bodyLimit = bodyLimitOf(spec).maxBytes;
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    // Strict JSON: a body with __proto__ or constructor.prototype is refused, not merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ...httpLayerOptions(ctx, Boolean(options.logger)),
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true },
    // No route declares a Fastify schema: requests are validated by src/serve/validation.ts
    // and answers are written as text. Compilers of our own keep Fastify from loading its
    // Ajv and fast-json-stringify compilers, a tenth of start-up, for nothing.
    schemaController: { compilersFactory: { buildValidator: noSchemaCompiler, buildSerializer: noSchemaCompiler } },
  });

  const routeMethods = routeEveryMethod(app);
  const sendsAllow = ctx.resolveError('method-not-allowed').status === 405;
  acceptJsonOnly(app);
  closeIdleOnShutdown(app);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const httpError = ctx.domain.httpError(error) ?? toHttpError(error, bodyLimit);
    if (httpError.situation === 'internal') request.log.error({ err: error }, 'unexpected fault');
    // Loud: acknowledging nothing more is the right answer, but an operator must act.
    if (error instanceof StoreUnavailableError) request.log.error({ reason: error.message }, 'the database is unavailable; writes are refused');
    const bound = httpError.options.code !== undefined ? ctx.errorCode(httpError.options.code) : undefined;
    // A domain rule's bound code answers as the catalog says; the situation's default where the catalog lacks it (check reports that).
    const resolved = bound ? { code: bound.code, status: bound.status, title: bound.title } : ctx.resolveError(httpError.situation);
    const rendered = renderError(ctx.errorShape, resolved, httpError, request.url);
    void reply.code(rendered.status).headers(rendered.headers).type(rendered.contentType).send(rendered.body);
  });
  app.setNotFoundHandler((request) => {
    throw new HttpError('not-found', { detail: `There is no ${request.method} ${request.url.split('?')[0]}.` });
  });
  // Without a logger the line would go nowhere: the hook is not registered, and costs nothing.
  if (options.logger) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
      done();
    });
  }

  // Stable request shapes (Fastify's advice): every request has these, set by the part modules.
  app.decorateRequest('principal', undefined);
  app.decorateRequest('apiVersion', undefined);
  // ---- onRequest part modules, in this order (see the header) ----
  refuseEarly(app);
  registerTimeouts(app, ctx);
  answerUnroutedMethods(app, routeMethods);
  // versioning (9), then authentication (5), go here
  const versions = planVersions(ctx);
  if (versions) registerVersionSelection(app, versions);
  refuseUnroutedMethods(app, sendsAllow);
  const eventEndpoints = serviceEndpoints(spec);
  registerAuthentication(app, ctx, eventEndpoints.values());
  registerRateLimits(app, ctx, options.rateCounter);
  registerConditional(app, ctx);
  // ---- end of the onRequest part modules ----

  await store.migrate(tableLayouts(ctx));
  if (versions) registerVersionedRoutes(app, versions);
  else registerRoutes(app, ctx);
  registerEvents(app, ctx, eventEndpoints, options.events);
  // Events written through another instance on the same database wake this one's streams and
  // delivery at once (the store's notice comes after their COMMIT), not at the next poll.
  const bus = ctx.events?.bus;
  if (bus && store.watchEvents) {
    const stop = store.watchEvents(() => bus.notify());
    app.addHook('onClose', async () => stop());
  }
  startIdempotencySweep(app, ctx);
  serveDocument(app, spec);
  registerHealth(app, { spec, store, now });
  // Last: every route is known, so each path's other methods get their 405 (./methods.ts).
  answerOtherMethods(app, routeMethods, sendsAllow);
  return app;
}

/** A handler must be a function for an action of the spec: a misspelt id would otherwise leave the action at 501 unnoticed. */
function checkHandlers(spec: Spec, handlers: ActionHandlers | undefined): void {
  const [problem] = handlerProblems(spec, handlers);
  if (problem) throw new SetupError(problem);
}

/** Why handlers do not fit a spec: one naming no action of it, or one that is no function. `serve --watch` asks before it reloads. */
export function handlerProblems(spec: Spec, handlers: ActionHandlers | undefined): string[] {
  const out: string[] = [];
  for (const [id, handler] of Object.entries(handlers ?? {})) {
    const endpoint = spec.endpoints.find((e) => e.id === id);
    if (!endpoint || endpoint.operation !== 'action') {
      const actions = spec.endpoints.filter((e) => e.operation === 'action').map((e) => e.id);
      out.push(`a handler is given for '${id}', which is not an action of the spec (its actions: ${actions.join(', ') || 'none'})`);
    } else if (typeof handler !== 'function') out.push(`the handler for '${id}' is not a function`);
  }
  return out;
}

/** The API reference at GET /docs, the spec's document at /docs/spec and the exports (./docs.ts), unless the spec uses those paths itself. */
export { DOCS_PATH } from './docs.ts';

/**
 * Bodies are JSON (RFC 8259) or JSON merge patches (RFC 7396) for PATCH, and I-JSON
 * (./json-body.ts); anything else is 415.
 */
function acceptJsonOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  parseStrictJson(app);
}

/** Fastify's own errors, mapped to the situations of the HTTP error catalog. */
function toHttpError(error: FastifyError, bodyLimit: number): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreUnavailableError) return new HttpError('unavailable', { detail: 'The service cannot store anything now; an operator has been alerted. Try again later.', headers: { 'retry-after': '30' } });
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError('unsupported-media-type', { detail: 'Request bodies must be application/json.' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError('payload-too-large', { detail: `The body is larger than the limit of ${bodyLimit} bytes.` });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpError('malformed-body', { detail: 'The body is empty, but its Content-Type says JSON: send a JSON document, or neither a body nor a Content-Type.' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HttpError('malformed-body', { detail: `The body is not well-formed JSON: ${error.message}` });
    default:
      break;
  }
  if (error instanceof SyntaxError || error.statusCode === 400) return new HttpError('malformed-body', { detail: `The body is not well-formed JSON: ${error.message}` });
  return new HttpError('internal', { detail: 'An unexpected fault; it has been logged.' });
}
