import type { Spec } from '../../spec/model.ts';

/** Part 7: the error body shape and the catalog of codes. */
export function missingErrors(spec: Spec): string[] {
  const missing: string[] = [];
  if (!spec.errors.shape) missing.push('the error body shape');
  if (spec.errors.catalog.length === 0) missing.push('the error codes (catalog)');
  return missing;
}
