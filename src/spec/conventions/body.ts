/**
 * The format's request body limit (part 8): the largest request body is `limits.body.maxSize`
 * where the spec declares it, else the runtime's safety default (src/spec/defaults.ts, which
 * `check` lists as a default, never as the spec's value). serve refuses a larger body with
 * 413 (`payload-too-large`); the proxy holds and judges a body up to it and relays a larger
 * one without holding it. One definition, so the two agree on where the line is.
 */
import { SAFETY } from '../defaults.ts';
import type { Spec } from '../model.ts';

export interface BodyLimit {
  /** The largest request body, in bytes. */
  readonly maxBytes: number;
  /** Whether the spec declares it (a larger body breaks the spec) or the runtime defaults it (it does not). */
  readonly declared: boolean;
  /** Where the spec declares it. */
  readonly pointer?: string;
}

export function bodyLimit(spec: Spec): BodyLimit {
  const body = spec.limits.body;
  return body ? { maxBytes: body.maxBytes, declared: true, pointer: body.pointer } : { maxBytes: SAFETY.bodyMaxBytes, declared: false };
}
