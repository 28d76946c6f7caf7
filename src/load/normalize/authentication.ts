import type { AuthRule, AuthScheme, Authentication, Endpoint, EndpointAuth } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { parseDuration } from '../../spec/units.ts';
import { defined, entries, isRecord, str, strs } from './read.ts';

export const NO_AUTHENTICATION: Authentication = { schemes: [], scopes: [], defaultScopes: [], rules: [] };

export function normalizeAuthentication(raw: unknown, pointer: string): Authentication {
  if (!isRecord(raw)) return NO_AUTHENTICATION;
  const rules: AuthRule[] = [
    ...strs(raw.public).map((match, i) => ({ match, public: true, scopes: [], pointer: child(pointer, 'public', i) })),
    ...entries(raw.require).map(([match, scopes]) => ({ match, public: false, scopes: strs(scopes), pointer: child(pointer, 'require', match) })),
  ];
  return defined({
    schemes: entries(raw.schemes).flatMap(([name, s]) => normalizeScheme(name, s, child(pointer, 'schemes', name))),
    obtain: str(raw.obtain),
    scopes: entries(raw.scopes).map(([name, description]) => defined({ name, description: str(description), pointer: child(pointer, 'scopes', name) })),
    defaultScopes: isRecord(raw.default) ? strs(raw.default.scopes) : [],
    rules,
  });
}

function normalizeScheme(name: string, raw: unknown, pointer: string): AuthScheme[] {
  if (!isRecord(raw)) return [];
  const description = str(raw.description);
  const base = defined({ name, description, pointer });
  switch (raw.type) {
    case 'apiKey':
      return [{ ...base, type: 'apiKey', in: raw.in === 'query' ? 'query' : 'header', param: str(raw.name) ?? '' }];
    case 'bearer': {
      const jwt = isRecord(raw.jwt) ? raw.jwt : undefined;
      return [defined({
        ...base,
        type: 'bearer' as const,
        tokens: raw.tokens === 'jwt' ? ('jwt' as const) : ('opaque' as const),
        prefix: str(raw.prefix),
        jwt: jwt
          ? defined({ issuer: str(jwt.issuer), audience: str(jwt.audience), algorithms: strs(jwt.algorithms), jwksUrl: str(jwt.jwksUrl), jwksFile: str(jwt.jwksFile), scopesClaim: str(jwt.scopesClaim) })
          : undefined,
      })];
    }
    case 'basic':
      return [{ ...base, type: 'basic' }];
    case 'oauth2':
      return [defined({ ...base, type: 'oauth2' as const, flow: 'clientCredentials' as const, tokenPath: str(raw.tokenPath) ?? '', tokenTtlMs: parseDuration(str(raw.tokenTtl) ?? '') })];
    default:
      return [];
  }
}

/** The rules by what they match, built once per spec so each endpoint looks its rules up. */
export function rulesByMatch(auth: Authentication): ReadonlyMap<string, readonly AuthRule[]> {
  const byMatch = new Map<string, AuthRule[]>();
  for (const rule of auth.rules) byMatch.set(rule.match, [...(byMatch.get(rule.match) ?? []), rule]);
  return byMatch;
}

/**
 * What an endpoint needs. An exact rule beats a `resource.*` rule; `public` beats `require`
 * at the same precision; otherwise the default scopes apply. A part stated as `none`
 * makes every endpoint public.
 */
export function endpointAuth(
  auth: Authentication,
  statement: 'given' | 'none' | 'gap',
  endpoint: Pick<Endpoint, 'id' | 'resource'>,
  byMatch: ReadonlyMap<string, readonly AuthRule[]> = rulesByMatch(auth),
): EndpointAuth | undefined {
  if (statement === 'gap') return undefined;
  if (statement === 'none') return { public: true, schemes: [], scopes: [] };
  const applicable = byMatch.get(endpoint.id) ?? byMatch.get(`${endpoint.resource}.*`) ?? [];
  if (applicable.some((r) => r.public)) return { public: true, schemes: [], scopes: [] };
  const required = applicable.find((r) => !r.public);
  return { public: false, schemes: auth.schemes.map((s) => s.name), scopes: required ? required.scopes : auth.defaultScopes };
}
