import type { Spec } from '../../spec/model.ts';

/** Part 2: resources, each with fields and an id. */
export function missingResources(spec: Spec): string[] {
  const missing: string[] = [];
  if (spec.resources.length === 0) missing.push('any resource');
  for (const r of spec.resources) {
    if (r.fields.length === 0) missing.push(`the fields of '${r.name}'`);
    if (!r.id) missing.push(`which field is the id of '${r.name}' and how it is assigned`);
  }
  return missing;
}
