import type { Spec } from '../../spec/model.ts';

/** Part 8: rate, size, time-outs, and pagination where there are lists. */
export function missingLimits(spec: Spec): string[] {
  const l = spec.limits;
  const missing: string[] = [];
  if (!l.rate && !l.none?.rate) missing.push('rate limits');
  if (!l.body) missing.push('the request body size limit');
  if (!l.timeouts && !l.none?.timeouts) missing.push('time-outs');
  if (!l.pagination && spec.endpoints.some((e) => e.operation === 'list')) missing.push('pagination bounds and defaults');
  return missing;
}
