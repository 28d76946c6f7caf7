/**
 * What the judge knows of one exchange before the parts look at it: the endpoint it is,
 * the version it is served in, who sent it (a principal's identity, derived from the
 * credential of a declared scheme, never the secret itself), its JSON body, and what in
 * the request the spec does not allow.
 */
import { authorizationWord } from '../spec/conventions/challenges.ts';
import { createHash } from 'node:crypto';
import type { Exchange } from '../conformance/http.ts';
import type { AuthScheme, Endpoint, Spec, Version } from '../spec/model.ts';
import type { Finding, RequestProblem } from './finding.ts';
import type { Route } from './route.ts';

export interface Seen {
  readonly seq: number;
  readonly exchange: Exchange;
  readonly route: Route;
  readonly endpoint?: Endpoint;
  /** The version it is served in (asked for, else the default); undefined without versioning. */
  readonly version?: Version;
  /** The principal, as a digest of the credential it sent (undefined: none sent). */
  readonly principal?: string;
  /** The request's body as JSON; undefined without one, or when it is not JSON. */
  readonly body?: unknown;
  readonly problems: readonly RequestProblem[];
  readonly ok: boolean;
}

/** A finding of a part: the judge adds the sequence number and the exchange. */
export type Found = Omit<Finding, 'seq' | 'exchange' | 'rule'> & { readonly pointer: string; readonly text: string };

const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 16);

/**
 * Who sent a request, by the credential of a declared scheme it carries. A JWT names its
 * subject (`sub`, RFC 7519 §4.1.2), read without verifying (the service verifies; the proxy
 * only tells principals apart); Basic its user (RFC 7617 §2); an API key or an opaque token
 * is itself the identity, kept only as a digest.
 */
export function principalOf(spec: Spec, headers: Readonly<Record<string, string>>, query: URLSearchParams, tokens: ReadonlyMap<string, string>): string | undefined {
  for (const scheme of spec.authentication.schemes) {
    const credential = credentialOf(scheme, headers, query);
    if (credential === undefined) continue;
    if (scheme.type === 'basic') {
      const user = Buffer.from(credential, 'base64').toString('utf8').split(':')[0];
      return `basic:${user}`;
    }
    if (scheme.type === 'bearer' || scheme.type === 'oauth2') {
      const owner = tokens.get(credential);
      if (owner) return owner;
      const parts = credential.split('.');
      if (parts.length === 3) {
        try {
          const sub = (JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { sub?: unknown }).sub;
          if (typeof sub === 'string') return `sub:${sub}`;
        } catch {
          // Not a JWT after all: the token itself is the identity.
        }
      }
    }
    return `${scheme.name}:${digest(credential)}`;
  }
  return undefined;
}

/** The credential a scheme reads from a request, if it carries one. */
export function credentialOf(scheme: AuthScheme, headers: Readonly<Record<string, string>>, query: URLSearchParams): string | undefined {
  if (scheme.type === 'apiKey') return scheme.in === 'header' ? headers[scheme.param.toLowerCase()] || undefined : query.get(scheme.param) || undefined;
  const auth = headers.authorization;
  if (!auth) return undefined;
  const m = /^(\w+)\s+(.+)$/.exec(auth.trim());
  if (!m) return undefined;
  const kind = m[1].toLowerCase();
  return kind === authorizationWord(scheme).toLowerCase() ? m[2] : undefined;
}

export { digest };
