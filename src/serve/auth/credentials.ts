/**
 * Issuing credentials the way the spec says clients obtain them (part 5): `svcspec
 * credentials create|list|revoke` calls these, and so do tests. Findings are values: a
 * scheme or scope the spec does not declare comes back as a message with did-you-mean.
 *
 * What each scheme type issues:
 *   apiKey           an API key `sk…_<secret>`, sent in the header or query parameter the scheme names
 *   bearer (opaque)  a token `st…_<secret>`, sent as `Authorization: Bearer` (RFC 6750 §2.1)
 *   basic            a user id and password, sent as `Authorization: Basic` (RFC 7617)
 *   oauth2           a client id and secret, exchanged at the scheme's token endpoint (RFC 6749 §4.4)
 *   bearer (jwt)     nothing: JWTs come from the identity provider; the service only verifies them
 */
import { authorizationWord } from '../../spec/conventions/challenges.ts';
import type { AuthScheme, Spec } from '../../spec/model.ts';
import { didYouMean } from '../../spec/diagnostics.ts';
import type { CredentialKind, CredentialRecord, CredentialStore } from '../../store/credentials.ts';
import { hashSecret, joinToken, newCredentialId, newSecret } from './secrets.ts';

export interface IssueRequest {
  /** The scheme's name in the spec; may be left out when only one scheme issues credentials. */
  readonly scheme?: string;
  readonly scopes: readonly string[];
  /** Who acts with it (the owner of the records it creates); the credential's id when left out. */
  readonly principal?: string;
  readonly label?: string;
  /** Epoch milliseconds. */
  readonly now?: number;
}

export interface Issued {
  readonly credential: CredentialRecord;
  /** Shown once: only its hash is kept. */
  readonly secret: string;
  /** How a client sends it, ready to use: header or query parameter lines. */
  readonly usage: readonly string[];
  /** The headers to send (for tests and scripts); empty for a query key or a client secret. */
  readonly headers: Readonly<Record<string, string>>;
}

export type IssueResult = { readonly ok: true; readonly issued: Issued } | { readonly ok: false; readonly message: string };

export function kindOf(scheme: AuthScheme): CredentialKind | undefined {
  switch (scheme.type) {
    case 'apiKey':
      return 'apiKey';
    case 'basic':
      return 'basic';
    case 'oauth2':
      return 'client';
    case 'bearer':
      return scheme.tokens === 'opaque' ? 'token' : undefined;
  }
}

/** The schemes for which the service issues credentials itself. */
export function issuingSchemes(spec: Spec): AuthScheme[] {
  return spec.authentication.schemes.filter((s) => kindOf(s) !== undefined);
}

function pickScheme(spec: Spec, name: string | undefined): AuthScheme | string {
  const schemes = spec.authentication.schemes;
  if (spec.parts.authentication.statement !== 'given' || schemes.length === 0) return 'The spec declares no authentication scheme, so there are no credentials to issue.';
  const issuing = issuingSchemes(spec);
  if (name === undefined) {
    if (issuing.length === 1) return issuing[0];
    if (issuing.length === 0) return noneIssued(spec);
    return `The spec has several schemes that issue credentials; name one with --scheme: ${issuing.map((s) => s.name).join(', ')}.`;
  }
  const scheme = schemes.find((s) => s.name === name);
  if (!scheme) return `The spec has no scheme '${name}'.${didYouMean(name, schemes.map((s) => s.name))} Its schemes: ${schemes.map((s) => s.name).join(', ')}.`;
  if (kindOf(scheme) === undefined) return noneIssued(spec, scheme);
  return scheme;
}

function noneIssued(spec: Spec, scheme?: AuthScheme): string {
  const which = scheme ? `Scheme '${scheme.name}' takes JWTs` : 'Every scheme of the spec takes JWTs';
  const obtain = spec.authentication.obtain ? ` The spec says: ${spec.authentication.obtain.trim()}` : '';
  return `${which} signed by an identity provider; the service verifies them but does not issue them.${obtain}`;
}

/** Declared scopes only; with none declared, no scope can be granted. */
function checkScopes(spec: Spec, scopes: readonly string[]): string | undefined {
  const declared = spec.authentication.scopes.map((s) => s.name);
  for (const scope of scopes) {
    if (declared.includes(scope)) continue;
    if (declared.length === 0) return `The spec declares no scopes, so '${scope}' cannot be granted.`;
    return `The spec declares no scope '${scope}'.${didYouMean(scope, declared)} Its scopes: ${declared.join(', ')}.`;
  }
  return undefined;
}

export async function issueCredential(spec: Spec, store: CredentialStore, request: IssueRequest): Promise<IssueResult> {
  const scheme = pickScheme(spec, request.scheme);
  if (typeof scheme === 'string') return { ok: false, message: scheme };
  const refused = checkScopes(spec, request.scopes);
  if (refused) return { ok: false, message: refused };
  const kind = kindOf(scheme) as CredentialKind;
  const id = newCredentialId(kind);
  const secret = newSecret();
  const credential: CredentialRecord = {
    id,
    scheme: scheme.name,
    kind,
    secretHash: hashSecret(secret),
    scopes: [...new Set(request.scopes)],
    principal: request.principal ?? id,
    createdAt: request.now ?? Date.now(),
    ...(request.label !== undefined ? { label: request.label } : {}),
  };
  await store.put(credential);
  return { ok: true, issued: { credential, secret, ...usageOf(scheme, id, secret) } };
}

function usageOf(scheme: AuthScheme, id: string, secret: string): Pick<Issued, 'usage' | 'headers'> {
  switch (scheme.type) {
    case 'apiKey': {
      const key = joinToken(id, secret);
      if (scheme.in === 'query') return { usage: [`?${scheme.param}=${key}`], headers: {} };
      return { usage: [`${scheme.param}: ${key}`], headers: { [scheme.param.toLowerCase()]: key } };
    }
    case 'bearer': {
      const value = `${authorizationWord(scheme)} ${joinToken(id, secret)}`;
      return { usage: [`Authorization: ${value}`], headers: { authorization: value } };
    }
    case 'basic': {
      const value = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
      return { usage: [`user ${id}, password ${secret}`, `Authorization: ${value}`], headers: { authorization: value } };
    }
    case 'oauth2':
      return {
        usage: [`client_id=${id}`, `client_secret=${secret}`, `POST {base_url}${scheme.tokenPath} with grant_type=client_credentials (RFC 6749 §4.4) for an access token`],
        headers: {},
      };
  }
}

export async function listCredentials(store: CredentialStore): Promise<readonly CredentialRecord[]> {
  return store.list();
}

export async function revokeCredential(store: CredentialStore, id: string, now = Date.now()): Promise<{ readonly ok: boolean; readonly message: string }> {
  const found = await store.get(id);
  if (!found || found.kind === 'token') return { ok: false, message: `There is no credential '${id}'.` };
  if (found.revokedAt !== undefined) return { ok: false, message: `Credential '${id}' was revoked already, at ${new Date(found.revokedAt).toISOString()}.` };
  await store.revoke(id, now);
  return { ok: true, message: `Revoked credential '${id}' (${found.scheme}, principal ${found.principal}).` };
}
