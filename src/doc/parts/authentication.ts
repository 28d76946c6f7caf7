import { authorizationWord } from '../../spec/conventions/challenges.ts';
import type { AuthScheme, Spec } from '../../spec/model.ts';
import { code, codes, facts, maybeText, specText, table, type Block, type Inline } from '../blocks.ts';
import { BASE_URL, duration } from '../describe.ts';

export function authenticationBlocks(spec: Spec): Block[] {
  const a = spec.authentication;
  return [
    ...facts([['How credentials are obtained', a.obtain !== undefined ? specText(a.obtain) : undefined]]),
    ...table(['Scheme', 'Type', 'Sent as', 'Description'], a.schemes.map((s) => [[code(s.name)], [s.type], sentAs(s), maybeText(s.description)])),
    ...table(['Scope', 'Allows'], a.scopes.map((s) => [[code(s.name)], maybeText(s.description)])),
    ...facts([['Scopes needed by default', a.defaultScopes.length ? codes(a.defaultScopes) : undefined]]),
    ...table(['Endpoints', 'Access'], a.rules.map((r) => [[code(r.match)], r.public ? ['public'] : r.scopes.length ? ['scopes ', ...codes(r.scopes)] : ['any credential']])),
  ];
}

function sentAs(s: AuthScheme): Inline[] {
  switch (s.type) {
    case 'apiKey':
      return [`${s.in === 'query' ? 'query parameter' : 'header'} `, code(s.param)];
    case 'basic':
      return [code('Authorization: Basic'), ' (RFC 7617)'];
    case 'bearer': {
      const jwt = s.jwt;
      const details: Inline[] = [];
      if (jwt?.issuer) details.push('; issuer ', code(jwt.issuer));
      if (jwt?.audience) details.push('; audience ', code(jwt.audience));
      if (jwt?.algorithms.length) details.push('; algorithms ', ...codes(jwt.algorithms));
      if (jwt?.jwksUrl) details.push('; keys at ', code(jwt.jwksUrl));
      if (jwt?.jwksFile) details.push('; keys in ', code(jwt.jwksFile));
      if (jwt?.scopesClaim) details.push('; scopes in claim ', code(jwt.scopesClaim));
      return [code(`Authorization: ${authorizationWord(s)}`), s.tokens === 'jwt' ? ' with a JWT' : ' with an opaque token', ...details];
    }
    case 'oauth2': {
      const ttl = duration(s.tokenTtlMs);
      return [code('Authorization: Bearer'), ' with a token from ', code(`POST ${BASE_URL}${s.tokenPath}`), ' (client credentials, RFC 6749 section 4.4)', ...(ttl ? [`, valid ${ttl}`] : [])];
    }
  }
}
