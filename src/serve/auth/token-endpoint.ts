/**
 * The token endpoint of an oauth2 scheme (RFC 6749 §4.4, client credentials), served at the
 * scheme's `tokenPath` under {base_url}:
 *
 *   POST tokenPath   application/x-www-form-urlencoded (§4.4.2): grant_type=client_credentials,
 *                    optional scope; the client authenticates with HTTP Basic (§2.3.1) or with
 *                    client_id and client_secret in the body, not both (§2.3)
 *   200              {access_token, token_type: "Bearer", expires_in, scope} (§5.1), no-store
 *   400/401          {error, error_description} (§5.2): the shape OAuth clients read, so this
 *                    endpoint answers in it rather than in the spec's error shape
 *
 * Tokens are opaque (`st…_<secret>`), stored hashed with their expiry, bound to the client
 * (revoking the client revokes them) and carry the granted scopes: the client's, or the
 * subset asked for. They live `tokenTtl`, else the safety default (src/spec/defaults.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SAFETY } from '../../spec/defaults.ts';
import type { AuthScheme } from '../../spec/model.ts';
import type { CredentialRecord } from '../../store/credentials.ts';
import type { ServeContext } from '../context.ts';
import { answered } from '../limits/timeout.ts';
import { hashSecret, joinToken, newCredentialId, newSecret, secretMatches } from './secrets.ts';

type OAuthScheme = Extract<AuthScheme, { type: 'oauth2' }>;

const FORM = 'application/x-www-form-urlencoded';

export function registerTokenEndpoints(app: FastifyInstance, ctx: ServeContext): void {
  for (const scheme of ctx.spec.authentication.schemes) {
    if (scheme.type !== 'oauth2' || !scheme.tokenPath.startsWith('/')) continue;
    // Encapsulated: only this route reads form bodies; every other endpoint stays JSON-only.
    void app.register(async (scope) => {
      scope.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => done(null, parseForm(body as string)));
      scope.post(scheme.tokenPath, async (request, reply) => issueToken(ctx, scheme, request, reply));
    });
  }
}

/** Expired tokens are forgotten periodically; an expired one is refused anyway. */
export function startTokenSweep(app: FastifyInstance, ctx: ServeContext, everyMs = 600_000): void {
  if (!ctx.spec.authentication.schemes.some((s) => s.type === 'oauth2')) return;
  const timer = setInterval(() => {
    ctx.store.credentials.expire(ctx.now()).catch((err: unknown) => app.log.warn({ err }, 'token sweep failed'));
  }, everyMs);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}

type Form = Map<string, string[]>;

function parseForm(body: string): Form {
  const form: Form = new Map();
  for (const [k, v] of new URLSearchParams(body)) form.set(k, [...(form.get(k) ?? []), v]);
  return form;
}

class OAuthError {
  readonly status: 400 | 401;
  readonly error: string;
  readonly description: string;
  constructor(status: 400 | 401, error: string, description: string) {
    this.status = status;
    this.error = error;
    this.description = description;
  }
}

async function issueToken(ctx: ServeContext, scheme: OAuthScheme, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  // §5.1: responses with tokens or credentials are not cached.
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  try {
    if (!(request.body instanceof Map)) throw new OAuthError(400, 'invalid_request', `Send the request as ${FORM} (RFC 6749 §4.4.2).`);
    const form = request.body as Form;
    const param = (name: string): string | undefined => {
      const values = form.get(name);
      // §3.2: parameters must not be included more than once.
      if (values && values.length > 1) throw new OAuthError(400, 'invalid_request', `'${name}' is given more than once.`);
      return values?.[0];
    };
    const grant = param('grant_type');
    if (grant === undefined) throw new OAuthError(400, 'invalid_request', "'grant_type' is missing; send grant_type=client_credentials.");
    const client = await authenticateClient(ctx, scheme, request, param);
    if (grant !== 'client_credentials') throw new OAuthError(400, 'unsupported_grant_type', `Only grant_type=client_credentials is served here, not '${grant}'.`);
    const scopes = grantedScopes(client, param('scope'));
    const ttl = scheme.tokenTtlMs ?? SAFETY.tokenTtlMs;
    const now = ctx.now();
    const id = newCredentialId('token');
    const secret = newSecret();
    await ctx.store.credentials.put({
      id, scheme: scheme.name, kind: 'token', secretHash: hashSecret(secret), scopes, principal: client.principal,
      createdAt: now, expiresAt: now + ttl, issuedTo: client.id,
    });
    // A request the time-out answered meanwhile gets no second answer (src/serve/limits/timeout.ts).
    if (answered(reply)) return reply;
    return reply.code(200).send({ access_token: joinToken(id, secret), token_type: 'Bearer', expires_in: Math.floor(ttl / 1000), scope: scopes.join(' ') });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    // §5.2: a client that authenticated with Basic and failed gets a Basic challenge.
    if (error.status === 401) void reply.header('www-authenticate', 'Basic realm="token endpoint", charset="UTF-8"');
    return reply.code(error.status).send({ error: error.error, error_description: error.description });
  }
}

async function authenticateClient(ctx: ServeContext, scheme: OAuthScheme, request: FastifyRequest, param: (n: string) => string | undefined): Promise<CredentialRecord> {
  const header = request.headers.authorization;
  const inBody = param('client_id') !== undefined || param('client_secret') !== undefined;
  let id: string | undefined;
  let secret: string | undefined;
  if (header !== undefined && /^basic /i.test(header)) {
    if (inBody) throw new OAuthError(400, 'invalid_request', 'Authenticate the client one way: HTTP Basic or client_id/client_secret in the body, not both.');
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // §2.3.1: the id and secret are form-urlencoded before they are joined.
    if (colon > 0) [id, secret] = [formDecode(decoded.slice(0, colon)), formDecode(decoded.slice(colon + 1))];
  } else {
    [id, secret] = [param('client_id'), param('client_secret')];
  }
  if (!id || secret === undefined) throw new OAuthError(401, 'invalid_client', 'Authenticate the client: HTTP Basic with the client id and secret, or client_id and client_secret in the body.');
  const client = await ctx.store.credentials.get(id);
  if (!client || client.kind !== 'client' || client.scheme !== scheme.name || !secretMatches(secret, client.secretHash)) {
    throw new OAuthError(401, 'invalid_client', 'The client id or secret is not valid.');
  }
  if (client.revokedAt !== undefined) throw new OAuthError(401, 'invalid_client', 'The client has been revoked.');
  return client;
}

function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** §3.3: the scopes asked for, each one the client holds; all of the client's when none is asked for. */
function grantedScopes(client: CredentialRecord, asked: string | undefined): string[] {
  if (asked === undefined) return [...client.scopes];
  const wanted = [...new Set(asked.split(' ').filter(Boolean))];
  const beyond = wanted.filter((s) => !client.scopes.includes(s));
  if (beyond.length) throw new OAuthError(400, 'invalid_scope', `This client may not have: ${beyond.join(', ')}. It holds: ${client.scopes.join(', ') || 'no scopes'}.`);
  return wanted;
}
