/**
 * The HTTP error catalog of svcspec: the situations the runtime itself answers with an
 * error, each with the status it uses (the strict reading of the HTTP RFCs) and the
 * catalog code it falls back to when the spec's own errors catalog has no entry for it.
 * A spec maps a situation to its own code by naming the code after the situation, or
 * with `for: <situation>` on a catalog entry. docs/http-errors.md is generated from this.
 */
import type { ErrorCode, Spec } from './model.ts';

export interface HttpErrorSituation {
  readonly situation: string;
  readonly status: number;
  readonly title: string;
  readonly when: string;
  /** The RFC section that fixes the status. */
  readonly rfc: string;
}

export const HTTP_ERRORS = [
  { situation: 'malformed-request', status: 400, title: 'Malformed request', when: 'The request is not well-formed HTTP (a bad request line, no Host, a bad header), or its path cannot be decoded (a bad percent-encoding); it is answered before routing.', rfc: 'RFC 9112 §3, RFC 9110 §7.2, RFC 3986 §2.1' },
  { situation: 'request-timeout', status: 408, title: 'Request timeout', when: 'The client did not send the whole request (its headers, or its body) in time; the connection is closed.', rfc: 'RFC 9110 §15.5.9' },
  { situation: 'uri-too-long', status: 414, title: 'URI too long', when: 'A path segment is longer than the service reads (100 characters), or the request target is longer than the HTTP parser reads.', rfc: 'RFC 9110 §15.5.15' },
  { situation: 'headers-too-large', status: 431, title: 'Request header fields too large', when: 'The header fields are larger than the HTTP parser reads (Node.js: 16 KiB in all); the connection is closed.', rfc: 'RFC 6585 §5' },
  { situation: 'malformed-body', status: 400, title: 'Malformed request body', when: 'The body is not well-formed I-JSON: not JSON, not UTF-8, an unpaired surrogate, or arrays and objects nested deeper than 1,000 levels.', rfc: 'RFC 9110 §15.5.1, RFC 7493 §2.1, RFC 8259 §9' },
  { situation: 'validation-failed', status: 422, title: 'Validation failed', when: 'The body or the query breaks a rule of the spec; every failing field is listed with its JSON pointer.', rfc: 'RFC 9110 §15.5.21' },
  { situation: 'unauthenticated', status: 401, title: 'Authentication required', when: 'Credentials are missing or invalid; the response carries WWW-Authenticate.', rfc: 'RFC 9110 §15.5.2, §11.6.1' },
  { situation: 'forbidden', status: 403, title: 'Forbidden', when: 'The credential is valid but lacks a scope the endpoint needs.', rfc: 'RFC 9110 §15.5.4' },
  { situation: 'not-found', status: 404, title: 'Not found', when: 'No such path, or no such record visible to the caller.', rfc: 'RFC 9110 §15.5.5' },
  { situation: 'method-not-allowed', status: 405, title: 'Method not allowed', when: 'The path exists but not with this method; the response carries Allow.', rfc: 'RFC 9110 §15.5.6' },
  { situation: 'invalid-transition', status: 409, title: 'Transition not allowed', when: 'The record is not in a state the transition starts from; the body names the current state and the transitions allowed from it.', rfc: 'RFC 9110 §15.5.10' },
  { situation: 'rule-refused', status: 409, title: 'Refused by a rule', when: 'A domain rule of the spec refused the write (a uniqueness, a rule over the record, a guard, a reference still in use); the code the spec binds to the rule answers it, and this default only where that code is missing from the catalog (check reports it).', rfc: 'RFC 9110 §15.5.10' },
  { situation: 'already-exists', status: 409, title: 'Already exists', when: 'The caller already has the one record a `perOwner: one` resource allows.', rfc: 'RFC 9110 §15.5.10' },
  { situation: 'version-retired', status: 410, title: 'Version retired', when: 'The version asked for is retired.', rfc: 'RFC 9110 §15.5.11' },
  { situation: 'precondition-failed', status: 412, title: 'Precondition failed', when: 'If-Match does not match the current ETag of the record.', rfc: 'RFC 9110 §13.1.1, §15.5.13' },
  { situation: 'payload-too-large', status: 413, title: 'Request body too large', when: 'The body exceeds the size limit.', rfc: 'RFC 9110 §15.5.14' },
  { situation: 'unsupported-media-type', status: 415, title: 'Unsupported media type', when: 'The body is not application/json.', rfc: 'RFC 9110 §15.5.16' },
  { situation: 'idempotency-key-reused', status: 422, title: 'Idempotency key reused', when: 'An Idempotency-Key is sent again with a different body.', rfc: 'draft-ietf-httpapi-idempotency-key-header §2.7' },
  { situation: 'unknown-version', status: 400, title: 'Unknown version', when: 'The version asked for is not one of the spec.', rfc: 'RFC 9110 §15.5.1' },
  { situation: 'rate-limited', status: 429, title: 'Too many requests', when: 'The rate limit is exhausted; the response carries Retry-After and RateLimit fields.', rfc: 'RFC 6585 §4' },
  { situation: 'internal', status: 500, title: 'Internal error', when: 'An unexpected fault; it is logged, and no stack trace leaves the process.', rfc: 'RFC 9110 §15.6.1' },
  { situation: 'not-implemented', status: 501, title: 'Not implemented', when: 'An action whose behaviour the spec states in prose, and for which no handler was supplied: the reference cannot perform it.', rfc: 'RFC 9110 §15.6.2' },
  { situation: 'unavailable', status: 503, title: 'Service unavailable', when: 'The service cannot answer now: it is shutting down, its database file was deleted or replaced under it, or the keys to verify tokens cannot be fetched; the response carries Retry-After.', rfc: 'RFC 9110 §15.6.4' },
  { situation: 'timeout', status: 503, title: 'Request timed out', when: 'The request ran past the time-out; its work is abandoned.', rfc: 'RFC 9110 §15.6.4' },
] as const satisfies readonly HttpErrorSituation[];

export type Situation = (typeof HTTP_ERRORS)[number]['situation'];

export const SITUATIONS: readonly string[] = HTTP_ERRORS.map((e) => e.situation);

/** What a spec answers a situation with: its own code (by name or `for:`), else the default above. */
export interface ResolvedSituation {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  /**
   * Whether the spec states how the situation is answered (a code of its catalog, or the
   * time-out's status in limits.timeouts); false where the runtime's default answers it, which
   * the tester holds no other implementation to (src/conformance/expect.ts expectError).
   */
  readonly stated?: boolean;
}

/**
 * Resolves every situation against a spec's catalog once. The reference service answers
 * with it and the conformance tester expects it: both read the same rule of the format,
 * neither the other's code.
 */
export function resolveSituations(spec: Spec): (situation: Situation) => ResolvedSituation {
  const bySituation = new Map<string, ErrorCode>();
  for (const e of spec.errors.catalog) for (const s of e.situations) if (!bySituation.has(s)) bySituation.set(s, e);
  const resolved = new Map<string, ResolvedSituation>();
  for (const d of HTTP_ERRORS) {
    const declared = bySituation.get(d.situation);
    // The time-out status is the one limits.timeouts declares, when it declares one.
    const status = declared?.status ?? (d.situation === 'timeout' && spec.limits.timeouts ? spec.limits.timeouts.status : d.status);
    const stated = declared !== undefined || (d.situation === 'timeout' && spec.limits.timeouts !== undefined);
    resolved.set(d.situation, { code: declared?.code ?? d.situation, status, title: declared?.title ?? d.title, stated });
  }
  return (situation) => resolved.get(situation) as ResolvedSituation;
}
