/**
 * Part 5 from components.securitySchemes and the security requirements.
 *
 *   apiKey in header or query         apiKey {in, name}
 *   http basic                        basic
 *   http bearer (bearerFormat JWT)    bearer, tokens jwt (without bearerFormat: opaque, reported)
 *   oauth2 clientCredentials          oauth2 {flow: clientCredentials, tokenPath} when the token URL is under the server
 *   the scopes of every oauth2 flow   scopes
 *   security (document)               default scopes; `[]` or `{}` make endpoints public
 *   security (operation)              public, or require when its scopes differ from the default
 *
 * In svcspec every scheme is accepted wherever a credential is needed, and an endpoint has one
 * list of scopes; OpenAPI's per-operation schemes and alternatives are reported where they differ.
 * A document that applies no security requirement anywhere leaves the part a gap: it does not
 * say which endpoints need a credential.
 */
import type { AuthRule, AuthScheme, Authentication, Endpoint, Scope } from '../../spec/model.ts';
import { child, pointer } from '../../spec/pointer.ts';
import { defined } from '../../load/normalize/read.ts';
import { IMPORT_CODES } from '../codes.ts';
import { isObject, KEY_NAME, keyName, report, resolve, unique, type ImportContext, type Json } from './context.ts';
import type { Placed } from './endpoints.ts';
import { listOf } from './resources.ts';

export type ImportedAuthentication = { readonly authentication: Authentication; readonly gap?: undefined } | { readonly gap: string };

const UNDESCRIBED = 'Named by the security requirements of the OpenAPI document, which does not say what it allows.';

export function importAuthentication(ctx: ImportContext, placed: readonly Placed[]): ImportedAuthentication {
  const declared = isObject(ctx.doc.components) && isObject(ctx.doc.components.securitySchemes) ? ctx.doc.components.securitySchemes : {};
  const schemes = new Map<string, AuthScheme>();
  const scopes = new Map<string, Scope>();
  const taken = new Set<string>();
  for (const [name, value] of Object.entries(declared)) {
    const at = child('/components/securitySchemes', name);
    const r = resolve(ctx, value, at);
    if (!r) continue;
    for (const [scope, description] of flowScopes(r.node)) {
      if (!scopes.has(scope)) scopes.set(scope, { name: scope, description: typeof description === 'string' ? description : UNDESCRIBED, pointer: pointer('authentication', 'scopes', scope) });
    }
    const key = unique(KEY_NAME.test(name) ? name : keyName(name, 'scheme'), taken);
    const scheme = schemeOf(ctx, name, key, r.node, at);
    if (scheme) {
      taken.add(key);
      schemes.set(name, scheme);
    }
  }
  const applied = ctx.doc.security !== undefined || placed.some((p) => p.op.node.security !== undefined);
  if (!applied) return { gap: Object.keys(declared).length ? 'it declares security schemes but applies none of them to an operation' : 'it declares no security' };
  if (schemes.size === 0) return { gap: 'none of its security schemes is one the format has' };

  const root = requirement(ctx, ctx.doc.security, '/security', schemes, "The document's default security");
  const defaultScopes = root.public ? [] : root.scopes;
  const rules: { endpoint: Endpoint; public: boolean; scopes: string[] }[] = [];
  const restricted = new Map<string, { count: number; example: string; at: string }>();
  const dangling = new Map<string, { count: number; example: string; at: string }>();
  for (const { op, endpoint } of placed) {
    const own = op.node.security;
    const need = own === undefined ? root : requirement(ctx, own, child(op.pointer, 'security'), schemes, `${op.method.toUpperCase()} ${op.path}`);
    // A requirement naming a scheme components.securitySchemes does not declare: the document's slip, said as such.
    for (const name of need.named.filter((n) => !(n in declared))) {
      const seen = dangling.get(name);
      if (seen) seen.count++;
      else dangling.set(name, { count: 1, example: `${op.method.toUpperCase()} ${op.path}`, at: own === undefined ? '/security' : child(op.pointer, 'security') });
    }
    for (const s of need.scopes) if (!scopes.has(s)) scopes.set(s, { name: s, description: UNDESCRIBED, pointer: pointer('authentication', 'scopes', s) });
    if (need.public) {
      rules.push({ endpoint, public: true, scopes: [] });
      continue;
    }
    if (!sameSet(need.scopes, defaultScopes)) rules.push({ endpoint, public: false, scopes: need.scopes });
    // The schemes it names that the document declares (an undeclared one is said above).
    const named = need.named.filter((n) => n in declared);
    if (named.length && need.schemes.size < schemes.size) {
      const names = listOf(named, 4).replace(/ and /, ' or ');
      const seen = restricted.get(names);
      if (seen) seen.count++;
      else restricted.set(names, { count: 1, example: `${op.method.toUpperCase()} ${op.path}`, at: own === undefined ? '/security' : child(op.pointer, 'security') });
    }
  }
  for (const [names, { count, example, at }] of restricted) report(ctx, IMPORT_CODES.authSchemes, { count, example, schemes: names }, at);
  for (const [scheme, { count, example, at }] of dangling) report(ctx, IMPORT_CODES.authUndeclared, { scheme, count, example }, at);
  return {
    authentication: defined({
      schemes: [...schemes.values()],
      scopes: [...scopes.values()],
      defaultScopes,
      rules: compress(rules, placed.map((p) => p.endpoint)),
    }),
  };
}

function schemeOf(ctx: ImportContext, name: string, key: string, node: Json, at: string): AuthScheme | undefined {
  const base = defined({ name: key, description: typeof node.description === 'string' ? node.description : undefined, pointer: pointer('authentication', 'schemes', key) });
  const skip = (kind: string) => {
    report(ctx, IMPORT_CODES.authScheme, { scheme: name, kind }, at);
    return undefined;
  };
  switch (node.type) {
    case 'apiKey': {
      // An "API key" in Authorization whose description names its prefix (RealWorld: 'Prefix the token with "Token "') is a token under that word (RFC 9110 §11.4).
      const prefix = node.in === 'header' && String(node.name).toLowerCase() === 'authorization' && typeof node.description === 'string' ? authorizationPrefix(node.description) : undefined;
      if (prefix !== undefined) {
        report(ctx, IMPORT_CODES.authPrefix, { scheme: name, prefix }, at);
        return { ...base, type: 'bearer', tokens: 'opaque', ...(prefix.toLowerCase() === 'bearer' ? {} : { prefix }) };
      }
      if (node.in === 'header' || node.in === 'query') return { ...base, type: 'apiKey', in: node.in, param: String(node.name) };
      return skip(`an API key in a ${String(node.in)}`);
    }
    case 'http': {
      const scheme = String(node.scheme).toLowerCase();
      if (scheme === 'basic') return { ...base, type: 'basic' };
      // Another word than Bearer (`Token`): a bearer token under it; the HTTP schemes of their own (Digest, HOBA, …) the format has not.
      const word = scheme !== 'bearer' && /^[a-z][\w.-]*$/i.test(String(node.scheme)) && !['digest', 'hoba', 'mutual', 'negotiate', 'vapid', 'scram-sha-1', 'scram-sha-256', 'aws4-hmac-sha256'].includes(scheme) ? String(node.scheme) : undefined;
      if (scheme !== 'bearer' && word === undefined) return skip(`HTTP ${String(node.scheme)}`);
      if (word !== undefined) return { ...base, type: 'bearer', tokens: 'opaque', prefix: word };
      if (typeof node.bearerFormat === 'string' && /jwt/i.test(node.bearerFormat)) {
        report(ctx, IMPORT_CODES.authJwtKeys, { scheme: name }, at);
        return { ...base, type: 'bearer', tokens: 'jwt' };
      }
      if (node.bearerFormat === undefined) report(ctx, IMPORT_CODES.authBearer, { scheme: name }, at);
      return { ...base, type: 'bearer', tokens: 'opaque' };
    }
    case 'oauth2': {
      const flows = isObject(node.flows) ? node.flows : {};
      const cc = isObject(flows.clientCredentials) ? flows.clientCredentials : undefined;
      if (!cc) return skip(`OAuth 2.0 with the ${Object.keys(flows).join(', ') || 'no'} flow${Object.keys(flows).length === 1 ? '' : 's'}; the format has client credentials`);
      const tokenPath = underServer(ctx, String(cc.tokenUrl));
      if (!tokenPath) return skip(`OAuth 2.0 client credentials with the token endpoint ${String(cc.tokenUrl)}, not under the server`);
      if (Object.keys(flows).length > 1) report(ctx, IMPORT_CODES.authScheme, { scheme: name, kind: `OAuth 2.0 flows ${Object.keys(flows).filter((f) => f !== 'clientCredentials').join(', ')}` }, child(at, 'flows'));
      return { ...base, type: 'oauth2', flow: 'clientCredentials', tokenPath };
    }
    case 'openIdConnect':
      return skip('OpenID Connect discovery');
    case 'mutualTLS':
      return skip('mutual TLS');
    default:
      return skip(String(node.type));
  }
}

/** A token URL as a path under {base_url}: relative already, or under the first server's URL. */
function underServer(ctx: ImportContext, url: string): string | undefined {
  if (url.startsWith('/')) return url;
  const servers = Array.isArray(ctx.doc.servers) ? ctx.doc.servers : [];
  const first = isObject(servers[0]) && typeof servers[0].url === 'string' ? servers[0].url.replace(/\/$/, '') : undefined;
  if (first && /^https?:/.test(first) && url.startsWith(`${first}/`)) return url.slice(first.length);
  return undefined;
}

function flowScopes(node: Json): [string, unknown][] {
  if (node.type !== 'oauth2' || !isObject(node.flows)) return [];
  return Object.values(node.flows).flatMap((flow) => (isObject(flow) && isObject(flow.scopes) ? Object.entries(flow.scopes) : []));
}

interface Need {
  readonly public: boolean;
  readonly scopes: string[];
  /** The schemes (OpenAPI names) any alternative accepts, of those the format has. */
  readonly schemes: ReadonlySet<string>;
  /** Every scheme the alternatives name, as OpenAPI names them. */
  readonly named: readonly string[];
}

/** A security requirement list read as the format reads an endpoint: public, or the scopes every alternative needs. */
function requirement(ctx: ImportContext, value: unknown, at: string, schemes: ReadonlyMap<string, AuthScheme>, operation: string): Need {
  const alternatives = Array.isArray(value) ? value.filter(isObject) : [];
  if (alternatives.length === 0 || alternatives.some((a) => Object.keys(a).length === 0)) return { public: true, scopes: [], schemes: new Set(), named: [] };
  const sets = alternatives.map((a) => [...new Set(Object.values(a).flatMap((s) => (Array.isArray(s) ? s.map(String) : [])))].sort());
  const common = sets[0].filter((s) => sets.every((set) => set.includes(s)));
  if (sets.some((s) => !sameSet(s, common))) {
    report(ctx, IMPORT_CODES.authScopes, { operation, alternatives: sets.map((s) => `[${s.join(', ')}]`).join(' or '), scopes: common.length ? common.join(', ') : 'none' }, at);
  }
  for (const a of alternatives) {
    if (Object.keys(a).length > 1) report(ctx, IMPORT_CODES.authCombined, { operation, schemes: listOf(Object.keys(a)) }, at);
  }
  const named = [...new Set(alternatives.flatMap((a) => Object.keys(a)))].sort();
  return { public: false, scopes: common, schemes: new Set(named.filter((n) => schemes.has(n))), named };
}

/** One rule per endpoint, or `resource.*` where every endpoint of a resource has the same one. */
function compress(rules: readonly { endpoint: Endpoint; public: boolean; scopes: string[] }[], endpoints: readonly Endpoint[]): AuthRule[] {
  const out: AuthRule[] = [];
  const done = new Set<string>();
  for (const rule of rules) {
    const { resource } = rule.endpoint;
    if (done.has(resource)) continue;
    const all = endpoints.filter((e) => e.resource === resource);
    const mine = rules.filter((r) => r.endpoint.resource === resource);
    const alike = mine.length === all.length && mine.length > 1 && mine.every((r) => r.public === rule.public && sameSet(r.scopes, rule.scopes));
    if (alike) {
      done.add(resource);
      out.push(ruleOf(`${resource}.*`, rule.public, rule.scopes));
    } else {
      out.push(ruleOf(rule.endpoint.id, rule.public, rule.scopes));
    }
  }
  return out;
}

function ruleOf(match: string, isPublic: boolean, scopes: readonly string[]): AuthRule {
  return { match, public: isPublic, scopes: [...scopes], pointer: isPublic ? pointer('authentication', 'public') : pointer('authentication', 'require', match) };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/**
 * The word a description says an Authorization header starts with: named as its prefix
 * (`Prefix the token with "Token "`), or shown in an example line of its own (RealWorld's
 * indented `Token xxxxxx.yyyyyyy.zzzzzz`). Undefined where it says neither.
 */
function authorizationPrefix(description: string): string | undefined {
  const named = /prefix\w*\b[^"'`\n]*["'`]([A-Za-z][\w.-]*)\s*["'`]/i.exec(description)?.[1];
  if (named !== undefined) return named;
  return /(?:^|\n)[ \t]+([A-Z][A-Za-z]*)[ \t]+[A-Za-z0-9._~+/-]+=*[ \t]*(?:\n|$)/.exec(description)?.[1];
}
