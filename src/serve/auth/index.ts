/**
 * Part 5 at run time: who is calling, and may they (onRequest, after versioning, before
 * rate limits). Each endpoint needs what the spec says (src/load/normalize/authentication.ts
 * `endpointAuth`): public, or a credential of any declared scheme holding every scope the
 * endpoint requires.
 *
 *   no credentials            401 with a `WWW-Authenticate` challenge per scheme (RFC 9110 §11.6.1)
 *   invalid credentials       401, the challenge saying why (`error="invalid_token"`, RFC 6750 §3.1)
 *   a scope missing           403; a bearer token gets `error="insufficient_scope"` and the scopes
 *   public endpoint           anyone; credentials sent anyway are verified (a bad one is 401:
 *                             the client meant to be someone), so owned records and
 *                             per-credential rate limits still know who it is
 *
 * Records of an owned resource belong to the principal that created them: src/serve/auth/ownership.ts.
 * The token endpoint of an oauth2 scheme: src/serve/auth/token-endpoint.ts.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { AuthScheme, Endpoint } from '../../spec/model.ts';
import type { ServeContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { authorizationWord, challenges, realmOf } from '../../spec/conventions/challenges.ts';
import type { Principal } from '../principal.ts';
import { schemeReaders, type SchemeReader, type Verified } from './schemes.ts';
import { JWKS_FAILURE_CACHE_MS } from './jwt.ts';
import { registerTokenEndpoints, startTokenSweep } from './token-endpoint.ts';

/** `service`: routes of the service's own that are guarded like endpoints (the event stream and webhook subscriptions, src/serve/events). */
export function registerAuthentication(app: FastifyInstance, ctx: ServeContext, service: Iterable<Endpoint> = []): void {
  const { spec } = ctx;
  if (spec.parts.authentication.statement !== 'given' || spec.authentication.schemes.length === 0) return;
  const readers = schemeReaders(spec.authentication.schemes, ctx.store.credentials, spec.source.file);
  const realm = realmOf(spec);
  const byEndpoint = new Map<Endpoint, EndpointGuard>();
  for (const e of [...spec.endpoints, ...service]) if (e.auth) byEndpoint.set(e, guardOf(e, readers, realm));

  // A route-level onRequest hook per guarded endpoint, its guard bound once: nothing is looked
  // up per request. Registered before the rate limits' (src/serve/limits/rate.ts), so it runs first.
  // Callback style: a client whose credentials were verified within the cache's second is
  // admitted synchronously, without a promise; anything else takes the full way (admit).
  app.addHook('onRoute', (route) => {
    const endpoint = route.config?.endpoint;
    const guard = endpoint && byEndpoint.get(endpoint);
    if (!guard) return;
    const hook: onRequestHookHandler = (request, _reply, done) => {
      const now = ctx.now();
      if (admitCached(guard, request, now)) return done();
      admit(guard, request, now).then(() => done(), done);
    };
    route.onRequest = [...(route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]), hook];
  });
  registerTokenEndpoints(app, ctx);
  startTokenSweep(app, ctx);
}

/**
 * admit() when the answer is in the verified-credentials cache: the first scheme whose
 * credentials are present is a cache hit and the principal holds every scope needed. True
 * when the request is admitted so; false when admit() must decide (it decides the same).
 */
function admitCached(guard: EndpointGuard, request: FastifyRequest, now: number): boolean {
  for (const reader of guard.readers) {
    const raw = reader.raw(request);
    // Nothing sent for this scheme, or sent malformed: admit() decides (it says which).
    if (raw === undefined) {
      if (reader.presented(request) === undefined) continue;
      return false;
    }
    const principal = reader.cached(raw, now);
    if (principal === undefined) return false;
    for (const s of guard.scopes) if (!principal.scopes.has(s)) return false;
    request.principal = principal;
    return true;
  }
  return false;
}

async function admit(guard: EndpointGuard, request: FastifyRequest, now: number): Promise<void> {
  const principal = await authenticate(guard, request, now);
  if (principal) request.principal = principal;
  else if (!guard.public) throw unauthenticated(guard, 'This endpoint needs credentials.');
  if (guard.public) return;
  const missing = guard.scopes.filter((s) => !(principal as Principal).scopes.has(s));
  if (missing.length) throw forbidden(guard, missing, (principal as Principal).scheme);
}

interface EndpointGuard {
  readonly public: boolean;
  readonly scopes: readonly string[];
  readonly readers: readonly SchemeReader[];
  readonly realm: string;
}

function guardOf(endpoint: Endpoint, readers: readonly SchemeReader[], realm: string): EndpointGuard {
  const auth = endpoint.auth as NonNullable<Endpoint['auth']>;
  // A public endpoint still reads every scheme, to know who calls (see the header).
  const accepted = auth.public ? readers : readers.filter((r) => auth.schemes.includes(r.scheme.name));
  return { public: auth.public, scopes: auth.scopes, readers: accepted, realm };
}

/**
 * The principal of the first scheme whose credentials verify. Several schemes may read the
 * same header (an opaque and a JWT bearer scheme, say); one that fails leaves it to the next.
 */
async function authenticate(guard: EndpointGuard, request: FastifyRequest, now: number): Promise<Principal | undefined> {
  let refused: { readonly reader: SchemeReader; readonly result: Verified & { ok: false } } | undefined;
  for (const reader of guard.readers) {
    const presented = reader.presented(request);
    if (presented === undefined) continue;
    if ('malformed' in presented) throw unauthenticated(guard, `The ${describe(reader.scheme)} is malformed: ${presented.malformed}.`, reader.scheme);
    const result = await reader.verify(presented.raw, now);
    if (result.ok) return result.principal;
    refused ??= { reader, result };
  }
  if (!refused) return undefined;
  if (refused.result.fault) {
    // The service's fault, said the same way however it failed; the cause is the operator's (./jwt.ts).
    if (refused.result.log !== undefined) request.log.error({ reason: refused.result.log }, 'credentials cannot be verified');
    throw new HttpError('unavailable', { detail: `Credentials cannot be verified now: ${refused.result.reason}. Try again shortly.`, headers: { 'retry-after': String(Math.ceil(JWKS_FAILURE_CACHE_MS / 1000)) } });
  }
  throw unauthenticated(guard, `The ${describe(refused.reader.scheme)} was refused: ${refused.result.reason}.`, refused.reader.scheme);
}

function describe(scheme: AuthScheme): string {
  switch (scheme.type) {
    case 'apiKey':
      return `API key (${scheme.in} ${scheme.param})`;
    case 'basic':
      return 'Basic authorization';
    default:
      return 'bearer token';
  }
}


function unauthenticated(guard: EndpointGuard, detail: string, refusedBy?: AuthScheme): HttpError {
  const ways = guard.readers.map((r) => describe(r.scheme));
  return new HttpError('unauthenticated', {
    detail: `${detail} Send ${[...new Set(ways)].join(', or ')}.`,
    headers: { 'www-authenticate': challenges(guard.readers.map((r) => r.scheme), guard.realm, refusedBy) },
  });
}

function forbidden(guard: EndpointGuard, missing: readonly string[], by: string): HttpError {
  // RFC 6750 §3.1: the insufficient_scope challenge is for a bearer token; an API key gets none.
  const type = guard.readers.find((r) => r.scheme.name === by)?.scheme.type;
  const bearer = type === 'bearer' || type === 'oauth2';
  return new HttpError('forbidden', {
    detail: `These credentials lack the scope${missing.length > 1 ? 's' : ''} this endpoint needs: ${missing.join(', ')}.`,
    extra: { missingScopes: missing },
    ...(bearer ? { headers: { 'www-authenticate': `${authorizationWord(guard.readers.find((r) => r.scheme.name === by)!.scheme)} realm="${guard.realm}", error="insufficient_scope", scope="${guard.scopes.join(' ')}"` } } : {}),
  });
}
