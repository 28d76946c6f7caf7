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
  { situation: 'malformed-body', status: 400, title: 'Malformed request body', when: 'The body is not well-formed JSON.', rfc: 'RFC 9110 §15.5.1' },
  { situation: 'validation-failed', status: 422, title: 'Validation failed', when: 'The body or the query breaks a rule of the spec; every failing field is listed with its JSON pointer.', rfc: 'RFC 9110 §15.5.21' },
  { situation: 'unauthenticated', status: 401, title: 'Authentication required', when: 'Credentials are missing or invalid; the response carries WWW-Authenticate.', rfc: 'RFC 9110 §15.5.2, §11.6.1' },
  { situation: 'forbidden', status: 403, title: 'Forbidden', when: 'The credential is valid but lacks a scope the endpoint needs.', rfc: 'RFC 9110 §15.5.4' },
  { situation: 'not-found', status: 404, title: 'Not found', when: 'No such path, or no such record visible to the caller.', rfc: 'RFC 9110 §15.5.5' },
  { situation: 'method-not-allowed', status: 405, title: 'Method not allowed', when: 'The path exists but not with this method; the response carries Allow.', rfc: 'RFC 9110 §15.5.6' },
  { situation: 'invalid-transition', status: 409, title: 'Transition not allowed', when: 'The record is not in a state the transition starts from; the body names the current state and the transitions allowed from it.', rfc: 'RFC 9110 §15.5.10' },
  { situation: 'already-exists', status: 409, title: 'Already exists', when: 'The caller already has the one record a `perOwner: one` resource allows.', rfc: 'RFC 9110 §15.5.10' },
  { situation: 'version-retired', status: 410, title: 'Version retired', when: 'The version asked for is retired.', rfc: 'RFC 9110 §15.5.11' },
  { situation: 'precondition-failed', status: 412, title: 'Precondition failed', when: 'If-Match does not match the current ETag of the record.', rfc: 'RFC 9110 §13.1.1, §15.5.13' },
  { situation: 'payload-too-large', status: 413, title: 'Request body too large', when: 'The body exceeds the size limit.', rfc: 'RFC 9110 §15.5.14' },
  { situation: 'unsupported-media-type', status: 415, title: 'Unsupported media type', when: 'The body is not application/json.', rfc: 'RFC 9110 §15.5.16' },
  { situation: 'idempotency-key-reused', status: 422, title: 'Idempotency key reused', when: 'An Idempotency-Key is sent again with a different body.', rfc: 'draft-ietf-httpapi-idempotency-key-header §2.7' },
  { situation: 'unknown-version', status: 400, title: 'Unknown version', when: 'The version asked for is not one of the spec.', rfc: 'RFC 9110 §15.5.1' },
  { situation: 'rate-limited', status: 429, title: 'Too many requests', when: 'The rate limit is exhausted; the response carries Retry-After and RateLimit fields.', rfc: 'RFC 6585 §4' },
  { situation: 'internal', status: 500, title: 'Internal error', when: 'An unexpected fault; it is logged, and no stack trace leaves the process.', rfc: 'RFC 9110 §15.6.1' },
  { situation: 'timeout', status: 503, title: 'Request timed out', when: 'The request ran past the time-out; its work is abandoned.', rfc: 'RFC 9110 §15.6.4' },
] as const satisfies readonly HttpErrorSituation[];

export type Situation = (typeof HTTP_ERRORS)[number]['situation'];

export const SITUATIONS: readonly string[] = HTTP_ERRORS.map((e) => e.situation);

/** What a spec answers a situation with: its own code (by name or `for:`), else the default above. */
export interface ResolvedSituation {
  readonly code: string;
  readonly status: number;
  readonly title: string;
}

/**
 * Resolves every situation against a spec's catalog once. The reference service answers
 * with it and the conformance tester expects it: both read the same rule of the format,
 * neither the other's code.
 */
export function resolveSituations(spec: Spec): (situation: Situation) => ResolvedSituation {
  const bySituation = new Map<string, ErrorCode>();
  for (const e of spec.errors.catalog) if (e.situation && !bySituation.has(e.situation)) bySituation.set(e.situation, e);
  const resolved = new Map<string, ResolvedSituation>();
  for (const d of HTTP_ERRORS) {
    const declared = bySituation.get(d.situation);
    // The time-out status is the one limits.timeouts declares, when it declares one.
    const status = declared?.status ?? (d.situation === 'timeout' && spec.limits.timeouts ? spec.limits.timeouts.status : d.status);
    resolved.set(d.situation, { code: declared?.code ?? d.situation, status, title: declared?.title ?? d.title });
  }
  return (situation) => resolved.get(situation) as ResolvedSituation;
}
