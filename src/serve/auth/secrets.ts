/**
 * The form of the secrets the service issues, and their verification.
 *
 *   <prefix>_<id>_<secret>      prefix by kind: `sk` API key, `st` bearer token, and for basic
 *                               and client credentials the id and secret are given apart
 *
 * The id is public (it names the credential in lists and revocations, and is the user or
 * client id); the secret is 256 random bits, base64url. Only SHA-256 of the secret is stored
 * (why a fast hash suffices: src/store/credentials.ts). Verification looks the id up and
 * compares the hashes with `timingSafeEqual`, so the time taken says nothing about how much
 * of a guess was right.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CredentialKind } from '../../store/credentials.ts';

const PREFIX: Readonly<Record<CredentialKind, string>> = { apiKey: 'sk', token: 'st', basic: 'u', client: 'c' };

/** 80 random bits: unique among any number of credentials one service will ever hold. */
export function newCredentialId(kind: CredentialKind): string {
  return `${PREFIX[kind]}${randomBytes(10).toString('hex')}`;
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** The single string a client sends for an API key or an opaque token. */
export function joinToken(id: string, secret: string): string {
  return `${id}_${secret}`;
}

/** The id and secret of a presented API key or token; undefined when it is not of that form. */
export function splitToken(presented: string): { readonly id: string; readonly secret: string } | undefined {
  const i = presented.indexOf('_');
  if (i <= 0 || i === presented.length - 1) return undefined;
  return { id: presented.slice(0, i), secret: presented.slice(i + 1) };
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret));
  const b = Buffer.from(storedHash);
  return a.length === b.length && timingSafeEqual(a, b);
}
