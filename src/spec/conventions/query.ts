/**
 * The format's query convention (part 4, a list's `query`): which operators a filter may
 * declare for which field types, and how a filter is spelled in a query string. Serve
 * parses it, export describes it, the tester writes it: one definition.
 *
 *   style brackets (the default)   title[prefix]=Du   year[gte]=2000   author[in]=a,b
 *   style colon (json-server)      title:prefix=Du    year:gte=2000
 *   style suffix                   title_prefix=Du    year_gte=2000
 * `eq` is the bare field in every style (`year=2000`); `in` takes comma-separated values;
 * `exists` takes `true` (present and not null) or `false` (null or absent).
 */
import type { Field, FilterOperator, ListQueryDecl, QueryStyle } from '../model.ts';

const ORDERED: ReadonlySet<FilterOperator> = new Set(['lt', 'lte', 'gt', 'gte']);
const TEXT: ReadonlySet<FilterOperator> = new Set(['prefix', 'contains']);
/** Strings whose text order is their order in time (RFC 3339 in UTC): ranges make sense on them. */
const ORDERED_FORMATS: ReadonlySet<string> = new Set(['date', 'date-time', 'time']);

/** Why an operator does not fit a field, or undefined when it does. */
export function operatorMisfit(op: FilterOperator, field: Pick<Field, 'type' | 'format' | 'enum'>): string | undefined {
  if (field.type === 'object' || field.type === 'array') return `a ${field.type} is not a single value`;
  if (ORDERED.has(op)) {
    if (field.type === 'integer' || field.type === 'number') return undefined;
    if (field.type === 'string' && field.format && ORDERED_FORMATS.has(field.format)) return undefined;
    return `'${op}' orders numbers, dates and date-times, not ${field.type === 'string' ? 'text' : `a ${field.type}`}`;
  }
  if (TEXT.has(op) && field.type !== 'string') return `'${op}' matches text, not a ${field.type}`;
  return undefined;
}

/** The query parameter of a filter: the bare field for `eq`, else the operator in the style. */
export function filterParam(field: string, op: FilterOperator, style: QueryStyle): string {
  if (op === 'eq') return field;
  if (style === 'colon') return `${field}:${op}`;
  if (style === 'suffix') return `${field}_${op}`;
  return `${field}[${op}]`;
}

/** The field and operator a query parameter names in the style, if it names one of the declared filters. */
export function readFilterParam(name: string, decl: ListQueryDecl): { readonly field: string; readonly op: FilterOperator } | undefined {
  for (const f of decl.filters) {
    for (const op of f.ops) if (filterParam(f.field, op, decl.style) === name) return { field: f.field, op };
  }
  return undefined;
}
