import type { Spec } from '../../spec/model.ts';

/** Part 9: how a version is selected, the versions, the default. */
export function missingVersioning(spec: Spec): string[] {
  const v = spec.versioning;
  const missing: string[] = [];
  if (!v.select) missing.push('how a version is selected');
  if (v.versions.length === 0) missing.push('the versions');
  if (v.default === undefined) missing.push('the default version');
  return missing;
}
