/**
 * Credentials for serve tests: a client holding every scope the spec declares, so tests
 * of the other parts act as an authorized caller of any endpoint, and clients of chosen
 * scopes for the authentication tests themselves.
 */
import type { Spec } from '../../../src/spec/model.ts';
import { issueCredential, issuingSchemes } from '../../../src/serve/auth/credentials.ts';
import { hashSecret, joinToken, newCredentialId, newSecret } from '../../../src/serve/auth/secrets.ts';
import type { Store } from '../../../src/store/store.ts';

/** The headers of a client of the first issuing scheme (a token, for an oauth2 scheme) with the given scopes; none when the spec needs none. */
export async function credentialHeaders(spec: Spec, store: Store, options: { scopes?: readonly string[]; principal?: string } = {}): Promise<Record<string, string>> {
  if (spec.parts.authentication.statement !== 'given' || spec.authentication.schemes.length === 0) return {};
  const scopes = options.scopes ?? spec.authentication.scopes.map((s) => s.name);
  const scheme = issuingSchemes(spec).find((s) => s.type !== 'oauth2' && !(s.type === 'apiKey' && s.in === 'query'));
  if (scheme) {
    const r = await issueCredential(spec, store.credentials, { scheme: scheme.name, scopes, ...(options.principal ? { principal: options.principal } : {}) });
    if (!r.ok) throw new Error(r.message);
    return { ...r.issued.headers };
  }
  const oauth = spec.authentication.schemes.find((s) => s.type === 'oauth2');
  if (!oauth) throw new Error('the spec has no scheme the tests can issue credentials for');
  // A token as the token endpoint would issue it (the endpoint itself is tested in auth.test.ts).
  const id = newCredentialId('token');
  const secret = newSecret();
  await store.credentials.put({ id, scheme: oauth.name, kind: 'token', secretHash: hashSecret(secret), scopes: [...scopes], principal: options.principal ?? id, createdAt: Date.now(), expiresAt: Date.now() + 3_600_000 });
  return { authorization: `Bearer ${joinToken(id, secret)}` };
}

/**
 * The principals the tester acts as against a service on `store`: ann and bob holding every
 * declared scope (ownership needs two), and carl holding only the first (for the 403 checks);
 * none when the spec needs no credentials.
 */
export async function testerPrincipals(spec: Spec, store: Store): Promise<{ name: string; headers: Record<string, string>; scopes: string[] }[]> {
  if (spec.parts.authentication.statement !== 'given' || !spec.authentication.schemes.length) return [];
  const all = spec.authentication.scopes.map((s) => s.name);
  const out: { name: string; headers: Record<string, string>; scopes: string[] }[] = [];
  for (const name of ['ann', 'bob']) out.push({ name, headers: await credentialHeaders(spec, store, { principal: name }), scopes: all });
  if (all.length > 1) out.push({ name: 'carl', headers: await credentialHeaders(spec, store, { principal: 'carl', scopes: [all[0]] }), scopes: [all[0]] });
  return out;
}
