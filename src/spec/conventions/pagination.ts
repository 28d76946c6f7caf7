/**
 * The format's pagination convention (part 8): the settings a list runs with and the name
 * of the sort parameter. Read by serve (to answer), export (to describe) and the tester (to
 * page), so the three cannot drift. docs/format.md "Pagination" is the reader's copy.
 */
import { SAFETY } from '../defaults.ts';
import type { Limits, Spec } from '../model.ts';

/** The query parameter that orders a list: `sort=title,-pages`. */
export const SORT_PARAM = 'sort';

/** The spec's pagination without its source pointer (a safety default has none). */
export type PageSettings = Omit<NonNullable<Limits['pagination']>, 'pointer'>;

/**
 * The spec's pagination, or the documented safety default when the spec is silent
 * (src/spec/defaults.ts): cursor pages of SAFETY.pageSize, default and maximum, clamped,
 * with the format's default parameter names.
 */
export function pageSettings(spec: Spec): PageSettings {
  const p = spec.limits.pagination;
  if (!p) return { style: 'cursor', defaultSize: SAFETY.pageSize, maxSize: SAFETY.pageSize, overMax: 'clamp', sizeParam: 'limit', positionParam: 'cursor' };
  // A size missing from the spec loads as 0 (check reports it); the safety bound stands in.
  const maxSize = p.maxSize >= 1 ? p.maxSize : SAFETY.pageSize;
  const defaultSize = p.defaultSize >= 1 ? Math.min(p.defaultSize, maxSize) : Math.min(SAFETY.pageSize, maxSize);
  return { style: p.style, defaultSize, maxSize, overMax: p.overMax, sizeParam: p.sizeParam, positionParam: p.positionParam };
}
