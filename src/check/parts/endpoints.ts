import type { Spec } from '../../spec/model.ts';

/** Part 4: every resource is reachable through at least one endpoint. */
export function missingEndpoints(spec: Spec): string[] {
  const missing: string[] = [];
  if (spec.endpoints.length === 0) missing.push('any endpoint');
  const served = new Set(spec.endpoints.map((e) => e.resource));
  for (const r of spec.resources) if (!served.has(r.name)) missing.push(`an endpoint for '${r.name}'`);
  return missing;
}
