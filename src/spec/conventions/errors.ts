/**
 * The format's error-body convention (part 7): RFC 9457 problem details with a `code` member
 * naming the catalog entry, unless the spec declares its own shape. Serve renders it, export
 * describes it, the tester and import recognise it.
 */
import type { ErrorMembers, ErrorShape, Spec } from '../model.ts';

/** RFC 9457 problem details, extended with a `code` member naming the catalog entry. */
export const PROBLEM_MEMBERS: ErrorMembers = {
  code: 'code', title: 'title', status: 'status', detail: 'detail', errors: 'errors', type: 'type', instance: 'instance',
};

export function problemShape(pointer: string): ErrorShape {
  return { kind: 'problem', mediaType: 'application/problem+json', members: PROBLEM_MEMBERS, pointer };
}

/** The shape errors are answered in: the spec's, or problem details when it is silent. */
export function errorShape(spec: Spec): ErrorShape {
  return spec.errors.shape ?? problemShape('/errors/shape');
}

/** RFC 9457 §3.1.1: the problem type of a catalog code, a URI naming it (serve renders it, the proxy's own answers too). */
export function problemType(code: string): string {
  return `urn:svcspec:problem:${code}`;
}
