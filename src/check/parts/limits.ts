import type { Spec } from '../../spec/model.ts';

/** Part 8: rate, size, time-outs, and pagination where there are lists. */
export function missingLimits(spec: Spec): string[] {
  const l = spec.limits;
  const missing: string[] = [];
  if (!l.rate && !l.none?.rate) missing.push('rate limits');
  if (!l.body) missing.push('the request body size limit');
  if (!l.timeouts && !l.none?.timeouts) missing.push('time-outs');
  if (!l.pagination && spec.endpoints.some((e) => e.operation === 'list')) missing.push('pagination bounds and defaults');
  const p = l.pagination;
  // What a larger size gets means nothing without a largest size (`maxSize: none`).
  const overMaxUnsaid = p !== undefined && p.overMax === undefined && p.maxSize !== Number.POSITIVE_INFINITY;
  if (p && (p.defaultSize === undefined || p.maxSize === undefined || overMaxUnsaid)) {
    const unsaid = [p.defaultSize === undefined ? 'the default page size' : '', p.maxSize === undefined ? 'the largest page size' : '', overMaxUnsaid ? 'what a larger size gets (overMax)' : ''].filter(Boolean);
    missing.push(unsaid.length > 1 ? `${unsaid.slice(0, -1).join(', ')} and ${unsaid.at(-1)}` : unsaid[0]!);
  }
  return missing;
}
