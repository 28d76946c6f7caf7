/**
 * Part 9 at run time: every live version of the spec served at once, from the same stored
 * records, each through its own view (src/spec/conventions/versions.ts): its own fields, its
 * own validators, its own presentation. Everything is resolved at start-up; a request costs
 * a header, query or URL read and a Map lookup (header selection: and an onSend look at the
 * ETag).
 *
 * Selection, as `versioning.select` declares it:
 *   header   `API-Version: 2`: one route per endpoint, whose handler is the selected
 *            version's; the response names the version and varies on the header
 *            (src/serve/versioning/headers.ts)
 *   query    `?version=2`: the same, read from the query (list queries accept the parameter)
 *   path     `/v2/books`: each live version's routes under its prefix; a request whose
 *            prefix names an unknown or retired version, for a path the API serves, is
 *            refused as such rather than with a plain 404
 *   (none)   a spec with one version, or a default, and no `select`: that version, always
 *
 * A request that names no version gets `versioning.default`; with a single version declared
 * and no default, that version (there is nothing to choose). With several and no default,
 * none is invented: the request is refused with unknown-version, which lists the versions.
 * (Path selection: the paths without a prefix are served in the default version, and are
 * refused so when there is none.) The errors, in the spec's shape and codes:
 *   unknown-version  400  a name the spec does not declare (or none, and no default)
 *   version-retired  410  a retired version (RFC 9110 §15.5.11), the default included
 * They are answered in the onRequest phase, before authentication: which version is asked
 * for decides what the rest of the request means. Only the spec's endpoints are refused:
 * /docs, OPTIONS, 405 and 404 answers do not depend on a version.
 *
 * A deprecated version's responses, errors included, carry Deprecation, Sunset and Link
 * (headers.ts). With header selection, every response names its version and varies on the
 * header, and the entity tags of the versions other than the default carry the version
 * (`"1a.3@1"`, headers.ts): added on the way out, taken off If-Match and If-None-Match on
 * the way in, so the handlers compare the store's tags as ever. No versions (the part a
 * gap, `none`, or no versions listed): nothing here runs, and the resources are served whole.
 *
 * Data across versions: a version writes only its fields (and their defaults); a record
 * created in one version has no value for a field only another version has. Update (a
 * merge patch) keeps the members the version does not see; replace (PUT) copies them over
 * (representation.ts keepUnseen). An Idempotency-Key's fingerprint includes the version.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteHandlerMethod } from 'fastify';
import type { Endpoint, Version } from '../../spec/model.ts';
import type { ServeContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { declareView } from '../representation.ts';
import { handlerFor, registerRoutes } from '../routes.ts';
import { deprecationHeaders } from '../../spec/conventions/deprecation.ts';
import { tagSuffix, unversionedTags, versionedTag } from './headers.ts';
import { resourceAt } from '../../spec/conventions/versions.ts';

/** A live (current or deprecated) version, ready to serve. */
export interface ServedVersion {
  readonly name: string;
  /** The context of the version: the views of the resources in `resources`. */
  readonly ctx: ServeContext;
  /** The version's path prefix (path selection), else ''. */
  readonly prefix: string;
  /** Set on every response in this version; undefined when there are none. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The same, as [name, value] pairs: set one by one on every request, with no Object.keys made. */
  readonly headerPairs?: readonly (readonly [string, string])[];
  /** The entity-tag suffix of the version (header selection, but for the default version), else undefined. */
  readonly tag?: string;
}

export type Selection =
  | { readonly by: 'header'; readonly name: string }
  | { readonly by: 'query'; readonly name: string }
  | { readonly by: 'path'; readonly prefix: string }
  | { readonly by: 'none' };

export interface VersionPlan {
  readonly select: Selection;
  /** The service's own context: every field of every resource. */
  readonly base: ServeContext;
  readonly live: ReadonlyMap<string, ServedVersion>;
  readonly retired: ReadonlySet<string>;
  /** The version of a request that names none: declared, or the only one; undefined when there is none. */
  readonly fallback?: string;
  /** The live versions' names, in declared order, for messages. */
  readonly names: readonly string[];
}

/** The versions to serve, or undefined when the spec has none (then nothing of part 9 runs). */
export function planVersions(ctx: ServeContext): VersionPlan | undefined {
  const { spec } = ctx;
  const { versioning } = spec;
  if (spec.parts.versioning.statement !== 'given' || versioning.versions.length === 0) return undefined;
  const select: Selection = versioning.select ?? { by: 'none' };
  const fallback = versioning.default ?? (versioning.versions.length === 1 ? versioning.versions[0].name : undefined);
  if (select.by === 'none' && fallback === undefined) return undefined; // check's error (version-select-missing): nothing to select by
  const live = new Map<string, ServedVersion>();
  for (const version of versioning.versions) if (version.status !== 'retired') live.set(version.name, serveVersion(ctx, version, select, fallback));
  return {
    select,
    base: ctx,
    live,
    retired: new Set(versioning.versions.filter((v) => v.status === 'retired').map((v) => v.name)),
    ...(fallback !== undefined ? { fallback } : {}),
    names: [...live.keys()],
  };
}

function serveVersion(ctx: ServeContext, version: Version, select: Selection, fallback: string | undefined): ServedVersion {
  const prefix = select.by === 'path' ? select.prefix.replace('{version}', version.name) : '';
  const resources = new Map([...ctx.resources].map(([name, r]) => {
    const view = resourceAt(ctx.spec, r, version.name);
    declareView(view, { base: r, version: version.name, prefix });
    return [name, view] as const;
  }));
  const headers: Record<string, string> = deprecationHeaders(version);
  let tag: string | undefined;
  if (select.by === 'header') {
    headers[select.name.toLowerCase()] = version.name;
    headers.vary = select.name;
    if (version.name !== fallback) tag = tagSuffix(version.name);
  }
  return {
    name: version.name,
    ctx: { ...ctx, resources },
    prefix,
    ...(Object.keys(headers).length ? { headers, headerPairs: Object.entries(headers) } : {}),
    ...(tag !== undefined ? { tag } : {}),
  };
}

// ---- onRequest: which version -----------------------------------------------------

/**
 * The onRequest hook of part 9 (and, for header selection, the onSend hook that puts the
 * version into entity tags). Callback style: no promise per request.
 */
export function registerVersionSelection(app: FastifyInstance, plan: VersionPlan): void {
  const { select } = plan;
  const fallback = plan.fallback === undefined ? undefined : plan.live.get(plan.fallback);
  if (select.by === 'path') {
    const refuse = pathRefusals(plan);
    const head = prefixPattern(select.prefix);
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const m = head.exec(request.url);
      // A route without a prefix is the default version's (there are such routes only when it is live).
      // A method a path lacks finds no route, but is on a path of the API (../methods.ts): a 405 to come, in its version.
      const routed = !request.is404 || request.unroutedPath !== undefined;
      const served = (m ? plan.live.get(m[1]) : undefined) ?? (routed ? fallback : undefined);
      if (served !== undefined) {
        use(served, request, reply);
        return done();
      }
      done(routed ? undefined : refuse(request.url, m));
    });
    return;
  }
  const name = select.by === 'none' ? '' : select.name.toLowerCase();
  const read = select.by === 'header' ? (request: FastifyRequest) => request.headers[name]
    : select.by === 'query' ? (request: FastifyRequest) => (request.query as Record<string, unknown>)[name]
    : () => undefined;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const given = read(request);
    const served = given === undefined ? fallback : typeof given === 'string' ? plan.live.get(given) : undefined;
    if (served !== undefined) {
      use(served, request, reply);
      return done();
    }
    // Only the spec's endpoints depend on a version; /docs, OPTIONS, 405 and 404 answer as ever.
    if (request.routeOptions.config?.endpoint === undefined) return done();
    done(refusal(plan, given));
  });
  if ([...plan.live.values()].some((v) => v.tag !== undefined)) {
    app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
      // Most answers are in a version without a suffix (the default's): one Map look-up, no header read.
      const tag = request.apiVersion === undefined ? undefined : plan.live.get(request.apiVersion)?.tag;
      if (tag !== undefined) {
        const etag = reply.getHeader('etag');
        if (typeof etag === 'string') reply.header('etag', versionedTag(etag, tag));
      }
      done(null, payload);
    });
  }
}

function use(served: ServedVersion, request: FastifyRequest, reply: FastifyReply): void {
  request.apiVersion = served.name;
  const pairs = served.headerPairs;
  if (pairs) for (let i = 0; i < pairs.length; i++) void reply.header(pairs[i]![0], pairs[i]![1]);
  if (served.tag !== undefined) {
    // The raw headers, so every later reader (concurrency.ts) sees the store's tags.
    const { headers } = request.raw;
    if (typeof headers['if-match'] === 'string') headers['if-match'] = unversionedTags(headers['if-match'], served.tag);
    if (typeof headers['if-none-match'] === 'string') headers['if-none-match'] = unversionedTags(headers['if-none-match'], served.tag);
  }
}

/** The error for a request whose version is not live: unknown, none without a default, or retired. */
function refusal(plan: VersionPlan, given: unknown): HttpError {
  const how = selectionHint(plan);
  if (given === undefined) {
    if (plan.fallback !== undefined && plan.retired.has(plan.fallback)) {
      return new HttpError('version-retired', { detail: `This request names no version, and the default, '${plan.fallback}', is retired; ${how}.` });
    }
    return new HttpError('unknown-version', { detail: `This request names no version, and the API has no default; ${how}.` });
  }
  if (typeof given === 'string' && plan.retired.has(given)) return new HttpError('version-retired', { detail: `Version '${given}' is retired and no longer served; ${how}.` });
  const shown = typeof given === 'string' ? `'${given}' is` : Array.isArray(given) ? `A version given ${given.length} times is` : 'That is';
  return new HttpError('unknown-version', { detail: `${shown} not a version of this API; ${how}.` });
}

function selectionHint(plan: VersionPlan): string {
  const names = plan.names.map((n) => `'${n}'`);
  const list = names.length === 0 ? 'no version is served any more' : names.length === 1 ? `the version served is ${names[0]}` : `the versions served are ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const { select } = plan;
  const where = select.by === 'header' ? `, named in the ${select.name} header` : select.by === 'query' ? `, named in the query parameter '${select.name}'` : select.by === 'path' ? `, named in the path prefix ${select.prefix}` : '';
  return `${list}${where}`;
}

/** `/v{version}` as a pattern that reads the version off the start of a URL. */
function prefixPattern(prefix: string): RegExp {
  const at = prefix.indexOf('{version}');
  return new RegExp(`^${escape(prefix.slice(0, at))}([^/?#]+)${escape(prefix.slice(at + '{version}'.length))}(?=[/?#]|$)`);
}

/**
 * For path selection, the answer to a URL no route serves: unknown-version or
 * version-retired when the URL is one of the API's paths under a prefix naming an unknown or
 * retired version, or without a prefix (no version named); otherwise undefined (a 404).
 */
function pathRefusals(plan: VersionPlan): (url: string, m: RegExpExecArray | null) => HttpError | undefined {
  const served = new Set<string>();
  for (const v of plan.live.values()) for (const e of v.ctx.spec.endpoints) if (v.ctx.resources.has(e.resource)) served.add(e.path);
  const apiPath = new RegExp(`^(?:${[...served].map((p) => p.split(/\{\w+\}/).map(escape).join('[^/]+')).join('|')})$`);
  return (url, m) => {
    const path = url.split('?')[0];
    if (m && apiPath.test(path.slice(m[0].length))) return refusal(plan, m[1]);
    if (apiPath.test(path)) return refusal(plan, undefined);
    return undefined;
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// ---- the routes -----------------------------------------------------------------------

/**
 * The endpoints' routes. Header and query selection: one route per endpoint, its handler the
 * selected version's (compiled per version at start-up). Path selection: each live
 * version's routes under its prefix, and the default version's without one.
 */
export function registerVersionedRoutes(app: FastifyInstance, plan: VersionPlan): void {
  const versions = [...plan.live.values()];
  if (plan.select.by === 'path') {
    // find-my-way reads `:` as a parameter; `::` is a colon.
    for (const v of versions) registerRoutes(app, v.ctx, { prefix: v.prefix.replaceAll(':', '::') });
    const fallback = plan.fallback === undefined ? undefined : plan.live.get(plan.fallback);
    if (fallback) registerRoutes(app, fallback.ctx);
    return;
  }
  // With every version retired the routes still exist, for the hook to answer 410 on them.
  if (versions.length === 0) return registerRoutes(app, plan.base);
  registerRoutes(app, versions[0].ctx, { handler: (endpoint) => pick(versions, endpoint) });
}

function pick(versions: readonly ServedVersion[], endpoint: Endpoint): RouteHandlerMethod {
  if (versions.length === 1) return handlerFor(versions[0].ctx, endpoint);
  const handlers = new Map(versions.map((v) => [v.name, handlerFor(v.ctx, endpoint)]));
  return function (this: FastifyInstance, request, reply) {
    // The onRequest hook has set a live version on every request that reaches an endpoint.
    const handler = handlers.get(request.apiVersion as string) as RouteHandlerMethod;
    return handler.call(this, request, reply);
  };
}
