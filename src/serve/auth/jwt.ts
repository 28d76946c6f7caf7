/**
 * Bearer JWTs (RFC 7519) verified with jose: the signature against the spec's keys (a JWKS
 * URL, fetched and cached by jose's remote key set, or a JWKS file beside the spec), the
 * algorithms the spec allows (never `none`: jose refuses it for asymmetric keys, and the
 * allow-list is the spec's), `iss` and `aud` when the spec names them, and `exp`/`nbf`.
 *
 * The principal is the `sub` claim; the scopes come from the spec's `scopesClaim` (default
 * `scope`), a space-separated string (RFC 8693 §4.2) or a list of strings.
 *
 * A JWKS URL that cannot be fetched (unreachable, a time-out, an answer other than 200, not a
 * key set) is the service's fault, never the client's: the request is answered 503
 * `unavailable` with Retry-After, the body saying only that tokens cannot be verified now;
 * the URL and the cause go to the log, once per failed fetch. A failed fetch is remembered
 * for JWKS_FAILURE_CACHE_MS (a negative cache): meanwhile no request fetches again, so an
 * outage of the identity provider is not multiplied by the service's traffic. When keys were
 * fetched before, they go on verifying tokens while a refresh fails (stale-if-error), as
 * jose alone would refuse every token once its cache (10 minutes) has aged.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose';
import type { AuthScheme } from '../../spec/model.ts';
import { SetupError } from '../errors.ts';

type JwtScheme = Extract<AuthScheme, { type: 'bearer' }>;

export interface JwtVerified {
  readonly subject: string;
  readonly issuer?: string;
  readonly scopes: readonly string[];
  /** Epoch milliseconds, when the token says. */
  readonly expiresAt?: number;
}

export type JwtOutcome = { readonly ok: true; readonly token: JwtVerified } | { readonly ok: false; readonly reason: string; readonly fault?: boolean; readonly log?: string };

/** How long a failed JWKS fetch is remembered: tokens needing the keys are refused meanwhile without fetching again. */
export const JWKS_FAILURE_CACHE_MS = 10_000;

/** The keys cannot be had now; `log` is set on the request whose fetch failed (the operator's line), not on those refused by the negative cache. */
class KeysUnavailable extends Error {
  readonly log: string | undefined;
  constructor(log: string | undefined) {
    super('the keys to verify tokens cannot be fetched now');
    this.name = 'KeysUnavailable';
    this.log = log;
  }
}

export type JwtVerifier = (token: string, now: number) => Promise<JwtOutcome>;

type Jose = typeof import('jose');
let joseModule: Promise<Jose> | undefined;
/** jose (46 modules) is loaded with the first token, not at start-up (issue #20): a spec's JWT scheme costs nothing until one is presented. */
const jose = (): Promise<Jose> => (joseModule ??= import('jose'));

/** The verifier of a scheme, its keys resolved at start-up. Throws (a start-up error) when the spec gives no keys or the file cannot be read. */
export function jwtVerifier(scheme: JwtScheme, specFile: string): JwtVerifier {
  const settings = scheme.jwt;
  if (!settings || settings.algorithms.length === 0) throw new SetupError(`scheme '${scheme.name}' takes JWTs but the spec gives no jwt.algorithms to accept`);
  const makeKeys = keySet(scheme, specFile);
  let keys: JWTVerifyGetKey | undefined;
  const claim = settings.scopesClaim ?? 'scope';
  return async (token, now) => {
    const module = await jose();
    const { errors, jwtVerify } = module;
    try {
      keys ??= makeKeys(module);
      const { payload } = await jwtVerify(token, keys, {
        algorithms: [...settings.algorithms],
        ...(settings.issuer !== undefined ? { issuer: settings.issuer } : {}),
        ...(settings.audience !== undefined ? { audience: settings.audience } : {}),
        currentDate: new Date(now),
      });
      if (typeof payload.sub !== 'string' || payload.sub === '') return { ok: false, reason: 'the token has no subject (sub)' };
      return { ok: true, token: verified(payload, claim) };
    } catch (error) {
      return refusal(error, errors);
    }
  };
}

/** The key set's source, checked at start-up (a start-up error when it is unreadable); the key set itself is made once jose is loaded. */
function keySet(scheme: JwtScheme, specFile: string): (jose: Jose) => JWTVerifyGetKey {
  const settings = scheme.jwt as NonNullable<JwtScheme['jwt']>;
  if (settings.jwksFile !== undefined) {
    const file = resolve(dirname(specFile), settings.jwksFile);
    let jwks: JSONWebKeySet;
    try {
      jwks = JSON.parse(readFileSync(file, 'utf8')) as JSONWebKeySet;
    } catch (error) {
      throw new SetupError(`scheme '${scheme.name}': the JWKS file ${file} cannot be read: ${(error as Error).message}`);
    }
    if (!Array.isArray(jwks?.keys)) throw new SetupError(`scheme '${scheme.name}': ${file} is not a JWKS (RFC 7517 §5: an object with a "keys" list)`);
    return ({ createLocalJWKSet }) => createLocalJWKSet(jwks);
  }
  if (settings.jwksUrl !== undefined) {
    const url = new URL(settings.jwksUrl);
    return (module) => remoteKeys(url, module);
  }
  throw new SetupError(`scheme '${scheme.name}' takes JWTs but the spec gives neither jwt.jwksUrl nor jwt.jwksFile to verify them with`);
}

/** jose's remote key set, with the negative cache and stale-if-error of the header. */
function remoteKeys(url: URL, { createLocalJWKSet, createRemoteJWKSet, errors }: Jose): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(url);
  let stale: JWTVerifyGetKey | undefined;
  let staleOf: JSONWebKeySet | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  const fallback = (log: string | undefined): JWTVerifyGetKey => {
    if (stale) return stale;
    throw new KeysUnavailable(log);
  };
  return async (header, token) => {
    if (Date.now() - failedAt < JWKS_FAILURE_CACHE_MS) return fallback(undefined)(header, token);
    try {
      const key = await remote(header, token);
      const known = remote.jwks();
      if (known && known !== staleOf) {
        staleOf = known;
        stale = createLocalJWKSet(known);
      }
      return key;
    } catch (error) {
      if (!fetchFailed(error, errors)) throw error;
      failedAt = Date.now();
      const cause = error instanceof Error ? error.message + (error.cause instanceof Error ? ` (${error.cause.message})` : '') : String(error);
      return fallback(`the JWKS at ${url.href} could not be fetched: ${cause}`)(header, token);
    }
  };
}

/** Whether jose failed to fetch the key set (rather than found no key, or a bad token). */
function fetchFailed(error: unknown, errors: Jose['errors']): boolean {
  if (!(error instanceof errors.JOSEError)) return true; // fetch's own TypeError, a DNS failure
  // A plain JOSEError: no 200 answer, or not JSON; the subclasses are about keys and tokens.
  return error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error.code === 'ERR_JOSE_GENERIC';
}

function verified(payload: JWTPayload, claim: string): JwtVerified {
  const raw = payload[claim];
  const scopes = typeof raw === 'string' ? raw.split(' ').filter(Boolean) : Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
  return {
    subject: payload.sub as string,
    scopes,
    ...(payload.iss !== undefined ? { issuer: payload.iss } : {}),
    ...(payload.exp !== undefined ? { expiresAt: payload.exp * 1000 } : {}),
  };
}

const CLAIM_REASONS: Record<string, string> = {
  missing: 'is missing',
  check_failed: 'does not hold a value this service accepts',
  invalid: 'is not well-formed',
};

/** jose's refusals in our words; a key set that cannot be fetched is the service's fault, not the client's. */
function refusal(error: unknown, errors: Jose['errors']): JwtOutcome {
  if (error instanceof KeysUnavailable) return { ok: false, fault: true, reason: error.message, ...(error.log !== undefined ? { log: error.log } : {}) };
  if (error instanceof errors.JWTExpired) return { ok: false, reason: 'the token has expired' };
  // jose's reasons (`missing`, `check_failed`, `invalid`) in words: its codes are not the client's to read.
  if (error instanceof errors.JWTClaimValidationFailed) {
    // jose reports the typ header and the time claims through the same error.
    if (error.claim === 'nbf') return { ok: false, reason: 'the token is not valid yet (nbf)' };
    if (error.claim === 'iat') return { ok: false, reason: "the token's issue time (iat) is not accepted" };
    if (error.claim === 'typ') return { ok: false, reason: "the token's type (its typ header) is not accepted" };
    return { ok: false, reason: `the token's ${error.claim} claim ${CLAIM_REASONS[error.reason] ?? 'is not accepted'}` };
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return { ok: false, reason: 'the token is signed with an algorithm this service does not accept' };
  if (error instanceof errors.JWKSNoMatchingKey) return { ok: false, reason: 'no key of this service matches the token' };
  if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'the token signature does not verify' };
  // Anything else of jose's (a malformed token, a key of an unsupported type) is the token's.
  if (!(error instanceof errors.JOSEError)) return { ok: false, fault: true, reason: 'tokens cannot be verified now', log: `verifying a JWT failed: ${String(error)}` };
  return { ok: false, reason: 'the token is not a well-formed signed JWT' };
}
