/**
 * Part 5 on the wire: a request to an endpoint that is not public carries the credential
 * of one of its schemes (an API key in its header or query parameter, a Bearer token, Basic
 * credentials); without one the service must answer `unauthenticated`. Whether a credential
 * is valid, and which scopes it holds, only the service knows: the proxy judges presence.
 * The tokens an OAuth 2.0 token endpoint issues are tied to the client that asked for them
 * (RFC 6749 §4.4), so one client with several tokens is one principal to the owner checks.
 */
import { authorizationWord } from '../../spec/conventions/challenges.ts';
import type { AuthScheme, Endpoint, Spec } from '../../spec/model.ts';
import type { Exchange } from '../../conformance/http.ts';
import type { RequestProblem } from '../finding.ts';
import { credentialOf, digest } from '../seen.ts';
import { isObject } from './values.ts';

export function authProblems(spec: Spec, endpoint: Endpoint, headers: Readonly<Record<string, string>>, query: URLSearchParams): RequestProblem[] {
  const auth = endpoint.auth;
  if (!auth || auth.public || spec.parts.authentication.statement !== 'given') return [];
  const schemes = spec.authentication.schemes.filter((s) => auth.schemes.length === 0 || auth.schemes.includes(s.name));
  if (!schemes.length || schemes.some((s) => credentialOf(s, headers, query) !== undefined)) return [];
  return [{ part: 'authentication', id: 'credential-missing', situation: 'unauthenticated', message: `${endpoint.id} needs a credential (${schemes.map(describe).join(' or ')}); the request carries none`, pointer: endpoint.pointer, text: `${endpoint.id}: not public` }];
}

function describe(s: AuthScheme): string {
  if (s.type === 'apiKey') return `${s.name}: ${s.in} ${s.param}`;
  return `${s.name}: ${authorizationWord(s)} in Authorization`;
}

/** The token an OAuth 2.0 token endpoint issued, and the client it was issued to; undefined for any other exchange. */
export function issuedToken(spec: Spec, path: string, ex: Exchange): { token: string; owner: string } | undefined {
  const scheme = spec.authentication.schemes.find((s) => s.type === 'oauth2' && s.tokenPath === path);
  if (!scheme || ex.response.status !== 200 || !isObject(ex.response.json)) return undefined;
  const token = ex.response.json.access_token;
  if (typeof token !== 'string') return undefined;
  // RFC 6749 §2.3.1: the client authenticates by Basic, or by client_id in the form body.
  let client: string | undefined;
  const auth = ex.request.headers.authorization;
  if (auth && /^basic\s/i.test(auth)) client = Buffer.from(auth.trim().split(/\s+/)[1] ?? '', 'base64').toString('utf8').split(':')[0];
  client ??= new URLSearchParams(ex.request.body ?? '').get('client_id') ?? (() => {
    try {
      const parsed = JSON.parse(ex.request.body ?? '') as { client_id?: unknown };
      return typeof parsed.client_id === 'string' ? parsed.client_id : undefined;
    } catch {
      return undefined;
    }
  })() ?? undefined;
  return client ? { token, owner: `client:${digest(client)}` } : undefined;
}
