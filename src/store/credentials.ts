/**
 * Credentials the service itself issues (part 5): API keys, HTTP basic user/passwords,
 * OAuth 2.0 client ids/secrets, and opaque bearer tokens (minted by `svcspec credentials
 * create`, or issued at the token endpoint of an oauth2 scheme).
 *
 * Only a hash of each secret is kept. Secrets are 256 random bits, so a fast hash (SHA-256)
 * is enough: nothing can be guessed from it, unlike a person's password, which would need a
 * slow one (RFC 9106). The verifier looks a credential up by its public id and compares the
 * hashes in constant time (src/serve/auth/credentials.ts).
 */

export type CredentialKind = 'apiKey' | 'basic' | 'client' | 'token';

export interface CredentialRecord {
  /** The public part: named in lists and revocations, sent as the user or client id. */
  readonly id: string;
  /** The scheme of the spec it was issued for, by name. */
  readonly scheme: string;
  readonly kind: CredentialKind;
  /** base64url SHA-256 of the secret. */
  readonly secretHash: string;
  readonly scopes: readonly string[];
  /** Who acts with it: the owner key of the records it creates. */
  readonly principal: string;
  readonly label?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** For an issued token; epoch milliseconds. */
  readonly expiresAt?: number;
  /** For an issued token: the client credential it was issued to (revoked with it). */
  readonly issuedTo?: string;
  /** Epoch milliseconds; a revoked credential authenticates nothing. */
  readonly revokedAt?: number;
}

export interface CredentialStore {
  /** Fails if the id is taken (ids are random; a clash is a bug, not a retry). */
  put(credential: CredentialRecord): Promise<void>;
  get(id: string): Promise<CredentialRecord | undefined>;
  /** Every credential but issued tokens, oldest first. */
  list(): Promise<readonly CredentialRecord[]>;
  /** Marks a credential revoked, with the tokens issued to it; false if there is none with this id or it was revoked already. */
  revoke(id: string, at: number): Promise<boolean>;
  /** Forgets issued tokens that expired before this time (epoch ms). */
  expire(before: number): Promise<number>;
}
