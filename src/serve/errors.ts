/**
 * Part 7 at run time: every failure answers in the spec's declared error shape and code.
 * Handlers raise one error type, HttpError, naming the situation (src/spec/http-errors.ts);
 * the spec's catalog decides the code, status and title (a code named after the situation,
 * or `for: <situation>`), else the documented default. RFC 9457 problem details by default.
 */
import { problemType } from '../spec/conventions/errors.ts';
import type { ErrorShape } from '../spec/model.ts';
import type { ResolvedSituation, Situation } from '../spec/http-errors.ts';

export interface FieldViolation {
  /** JSON pointer into the request body (or `/query/<name>` for a query parameter). */
  readonly pointer: string;
  readonly message: string;
}

export interface HttpErrorOptions {
  readonly detail?: string;
  readonly errors?: readonly FieldViolation[];
  /** Members added to the body (the current state of a record, say). */
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** A catalog code to answer with instead of the situation's own (a domain rule's bound error). */
  readonly code?: string;
}

export class HttpError extends Error {
  readonly situation: Situation;
  readonly options: HttpErrorOptions;
  constructor(situation: Situation, options: HttpErrorOptions = {}) {
    super(options.detail ?? situation);
    this.name = 'HttpError';
    this.situation = situation;
    this.options = options;
  }
}

/** A situation as the spec answers it (src/spec/http-errors.ts resolveSituations). */
export type ResolvedError = ResolvedSituation;

export interface RenderedError {
  readonly status: number;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

/**
 * The body of an error in the declared shape. `instance` is the request target; an error of
 * the HTTP layer answered before the target could be read has none, and leaves it out
 * (RFC 9457 §3.1.5: the member is optional).
 */
export function renderError(shape: ErrorShape, resolved: ResolvedError, error: HttpError, instance: string | undefined): RenderedError {
  const m = shape.members;
  const body: Record<string, unknown> = {};
  // RFC 9457 §3.1.1: `type` is a URI identifying the problem type; ours names the catalog code.
  if (shape.kind === 'problem' && m.type) body[m.type] = problemType(resolved.code);
  if (m.title) body[m.title] = resolved.title;
  if (m.status) body[m.status] = resolved.status;
  if (m.detail && error.options.detail) body[m.detail] = error.options.detail;
  if (shape.kind === 'problem' && m.instance && instance !== undefined) body[m.instance] = instance;
  if (m.code) body[m.code] = resolved.code;
  if (m.errors && error.options.errors?.length) body[m.errors] = error.options.errors;
  for (const [k, v] of Object.entries(error.options.extra ?? {})) if (!(k in body)) body[k] = v;
  return { status: resolved.status, contentType: shape.mediaType, headers: { ...error.options.headers }, body };
}

/** The spec cannot be served as it stands (a JWKS file that cannot be read, say): a refusal at start-up, not a bug. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupError';
  }
}
