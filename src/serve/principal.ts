/**
 * Who is calling: set by authentication (part 5) in the onRequest phase, read by rate
 * limits (8, per credential), ownership (object-level authorization) and idempotency (keys
 * are scoped to the caller). Undefined on a public endpoint called without credentials.
 */
export interface Principal {
  /** The owner key of the records this principal creates (object-level authorization). */
  readonly id: string;
  /** The scheme (by its name in the spec) that authenticated the request. */
  readonly scheme: string;
  /** The scopes granted to the credential or token. */
  readonly scopes: ReadonlySet<string>;
  /** The credential the request was made with (an API key's id, a client id, a token's subject); rate limits count per credential. */
  readonly credential: string;
  /** When the credential stops being valid (an issued token, a JWT's `exp`), epoch ms; an open event stream ends then. */
  readonly expiresAt?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication; undefined when the request is anonymous. */
    principal?: Principal;
    /** The API version the request is served in (part 9); undefined when the spec has no versions. */
    apiVersion?: string;
  }
}
