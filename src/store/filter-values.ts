/**
 * The value a list filter carries, read the same way by both adapters' SQL builders
 * (./sqlite-list.ts, ./postgres-list.ts): a filter built by serve always has the shape its
 * operator takes, so another shape is a bug, said as one.
 */
import type { FieldFilter, ScalarValue } from './store.ts';

/** The one value of `eq`, `ne`, `lt`, … */
export function scalarOf(filter: FieldFilter): ScalarValue {
  const v = filter.value;
  if (v === undefined || Array.isArray(v)) throw new TypeError(`bug: filter ${filter.op} on '${filter.field}' takes one value`);
  return v as ScalarValue;
}

/** The text of `prefix` and `contains`. */
export function stringOf(filter: FieldFilter): string {
  const v = filter.value;
  if (typeof v !== 'string') throw new TypeError(`bug: filter ${filter.op} on '${filter.field}' takes a string`);
  return v;
}
