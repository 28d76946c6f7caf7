/**
 * Reading and verifying what a request presents for each scheme of the spec (part 5).
 *
 *   apiKey   the header or query parameter the scheme names; `sk…_<secret>` issued by svcspec
 *   bearer   `Authorization: Bearer <token>` (RFC 6750 §2.1): an opaque `st…_<secret>` issued
 *            by svcspec, or a JWT (src/serve/auth/jwt.ts)
 *   oauth2   `Authorization: Bearer <token>` with a token from the scheme's token endpoint
 *   basic    `Authorization: Basic base64(id:secret)` (RFC 7617 §2)
 *
 * A verified credential is remembered for a second (JWTs: until they expire, at most a
 * minute), so a busy client costs one look-up a second, not one per request; a revocation
 * takes effect within that second. The cache is one Map per scheme keyed by what was
 * presented, as it was presented: the guards are on every request (issue #4 allows them
 * 15%), and a digest per request was their largest single cost. What that key gives away:
 *   - timing: a Map compares the contents of two strings only when their hashes are equal,
 *     and V8 seeds its string hash randomly per process, so a guess learns nothing from how
 *     long a miss takes (the store's own check stays constant-time: secrets.ts);
 *   - memory: a secret the process was sent is kept while it is cached, and expired entries
 *     are dropped by a verification (at most once a second) or when read, so an unused
 *     secret stays at most until then; the database never holds one (only SHA-256 of it, src/store/credentials.ts).
 */
import { authorizationWord } from '../../spec/conventions/challenges.ts';
import type { FastifyRequest } from 'fastify';
import type { AuthScheme } from '../../spec/model.ts';
import type { CredentialStore } from '../../store/credentials.ts';
import type { Principal } from '../principal.ts';
import { jwtVerifier, type JwtVerifier } from './jwt.ts';
import { secretMatches, splitToken } from './secrets.ts';

/** What a request presented for a scheme: the raw credential, or a defect in how it was sent. */
export type Presented = { readonly raw: string } | { readonly malformed: string };

/** A failure with `fault` is the service's (503); `log` is the operator's line about it, never sent to the client. */
export type Verified = { readonly ok: true; readonly principal: Principal } | { readonly ok: false; readonly reason: string; readonly fault?: boolean; readonly log?: string };

export interface SchemeReader {
  readonly scheme: AuthScheme;
  /** What the request carries for this scheme; undefined when nothing. */
  presented(request: FastifyRequest): Presented | undefined;
  /** The credential as `presented` reads it when it is well-formed, else undefined: the cache's key, with no object made (every guarded request asks). */
  raw(request: FastifyRequest): string | undefined;
  verify(raw: string, now: number): Promise<Verified>;
  /** The principal of credentials verified within the cache's time, without a look-up; else undefined. */
  cached(raw: string, now: number): Principal | undefined;
}

export const STORED_CACHE_MS = 1_000;
const JWT_CACHE_MS = 60_000;
const CACHE_LIMIT = 10_000;

export function schemeReaders(schemes: readonly AuthScheme[], credentials: CredentialStore, specFile: string): SchemeReader[] {
  return schemes.map((scheme) => {
    const verify = verifierOf(scheme, credentials, specFile);
    const cache = new VerifiedCache();
    return {
      scheme,
      presented: presenterOf(scheme),
      raw: rawOf(scheme),
      verify: async (raw: string, now: number) => {
        const hit = cache.get(raw, now);
        if (hit) return { ok: true, principal: hit };
        const result = await verify(raw, now);
        if (result.ok) cache.put(raw, result.principal, result.until, now);
        return result;
      },
      cached: (raw: string, now: number) => cache.get(raw, now),
    };
  });
}

/** Verified credentials of one scheme, by what was presented (see the header). */
class VerifiedCache {
  readonly #entries = new Map<string, { readonly principal: Principal; readonly until: number }>();
  #sweptAt = 0;
  get(presented: string, now: number): Principal | undefined {
    const e = this.#entries.get(presented);
    if (!e) return undefined;
    if (e.until > now) return e.principal;
    this.#entries.delete(presented);
    return undefined;
  }
  put(presented: string, principal: Principal, until: number, now: number): void {
    // Bounded: a flood of distinct credentials empties it rather than growing it. A put is
    // a verification: it drops what has expired, at most once a second.
    if (this.#entries.size >= CACHE_LIMIT) this.#entries.clear();
    else if (now - this.#sweptAt >= STORED_CACHE_MS) {
      this.#sweptAt = now;
      for (const [key, e] of this.#entries) if (e.until <= now) this.#entries.delete(key);
    }
    if (until > now) this.#entries.set(presented, { principal, until });
  }
}

// ---- reading ---------------------------------------------------------------------------

function single(value: string | string[] | undefined): Presented | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 1 ? { raw: value[0] } : { malformed: 'it is given more than once' };
  return { raw: value };
}

/** `Authorization: <scheme> <credentials>`; the scheme name is case-insensitive (RFC 9110 §11.1): `word` is Basic, Bearer or a bearer scheme's prefix. */
function authorization(request: FastifyRequest, word: string): Presented | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const space = header.indexOf(' ');
  const name = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  if (name !== word.toLowerCase()) return undefined;
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  return value === '' ? { malformed: `the Authorization header names ${word} but carries no credentials` } : { raw: value };
}

/** presenterOf's credential when well-formed, as a string: an API key in a header sent once, else what presented gives. */
function rawOf(scheme: AuthScheme): SchemeReader['raw'] {
  if (scheme.type === 'apiKey' && scheme.in === 'header') {
    const lower = scheme.param.toLowerCase();
    return (request) => {
      const value = request.headers[lower];
      return typeof value === 'string' ? value : undefined;
    };
  }
  const presented = presenterOf(scheme);
  return (request) => {
    const p = presented(request);
    return p !== undefined && 'raw' in p ? p.raw : undefined;
  };
}

function presenterOf(scheme: AuthScheme): SchemeReader['presented'] {
  switch (scheme.type) {
    case 'apiKey': {
      const name = scheme.param;
      if (scheme.in === 'header') {
        const lower = name.toLowerCase();
        return (request) => single(request.headers[lower]);
      }
      return (request) => single((request.query as Record<string, string | string[] | undefined> | undefined)?.[name]);
    }
    case 'bearer':
    case 'oauth2':
    case 'basic': {
      const word = authorizationWord(scheme);
      return (request) => authorization(request, word);
    }
  }
}

// ---- verifying -------------------------------------------------------------------------

type Verify = (raw: string, now: number) => Promise<(Verified & { ok: false }) | { readonly ok: true; readonly principal: Principal; readonly until: number }>;

function verifierOf(scheme: AuthScheme, credentials: CredentialStore, specFile: string): Verify {
  if (scheme.type === 'bearer' && scheme.tokens === 'jwt') return fromJwt(scheme.name, jwtVerifier(scheme, specFile));
  if (scheme.type === 'basic') {
    return async (raw, now) => {
      const decoded = Buffer.from(raw, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon <= 0) return { ok: false, reason: 'the Basic credentials are not base64 of user-id:password (RFC 7617 §2)' };
      return stored(credentials, scheme.name, decoded.slice(0, colon), decoded.slice(colon + 1), now);
    };
  }
  return async (raw, now) => {
    const parts = splitToken(raw);
    if (!parts) return { ok: false, reason: scheme.type === 'apiKey' ? 'the API key is not one this service issued' : 'the token is not one this service issued' };
    return stored(credentials, scheme.name, parts.id, parts.secret, now);
  };
}

async function stored(credentials: CredentialStore, scheme: string, id: string, secret: string, now: number): ReturnType<Verify> {
  const c = await credentials.get(id);
  // One answer for every way of being wrong: a client learns nothing about which ids exist.
  const refused = { ok: false as const, reason: 'the credentials are not valid' };
  if (!c || c.scheme !== scheme || !secretMatches(secret, c.secretHash)) return refused;
  if (c.kind === 'client') return { ok: false, reason: 'a client secret is exchanged at the token endpoint; send the access token it gives' };
  if (c.revokedAt !== undefined) return { ok: false, reason: 'the credentials have been revoked' };
  if (c.expiresAt !== undefined && c.expiresAt <= now) return { ok: false, reason: 'the token has expired' };
  const until = Math.min(now + STORED_CACHE_MS, c.expiresAt ?? Infinity);
  return { ok: true, until, principal: { id: c.principal, scheme, scopes: new Set(c.scopes), credential: c.issuedTo ?? c.id, ...(c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}) } };
}

function fromJwt(scheme: string, verify: JwtVerifier): Verify {
  return async (raw, now) => {
    const r = await verify(raw, now);
    if (!r.ok) return r;
    const { subject, issuer, scopes, expiresAt } = r.token;
    const until = Math.min(now + JWT_CACHE_MS, expiresAt ?? Infinity);
    return { ok: true, until, principal: { id: subject, scheme, scopes: new Set(scopes), credential: `${issuer ?? ''}|${subject}`, ...(expiresAt !== undefined ? { expiresAt } : {}) } };
  };
}
