import type { Spec } from '../../spec/model.ts';

/** Part 5: schemes, how credentials are obtained, and what each endpoint needs. */
export function missingAuthentication(spec: Spec): string[] {
  const a = spec.authentication;
  const missing: string[] = [];
  if (a.schemes.length === 0) missing.push('the authentication scheme');
  if (!a.obtain) missing.push('how credentials are obtained (obtain)');
  return missing;
}
