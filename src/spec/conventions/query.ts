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
  if (field.type === 'any') return 'a value of any type has no one order or equality to filter by';
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

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;

/**
 * A date-time (RFC 3339 §5.6) as the same instant in UTC, `Z`, its fraction of a second as
 * written (`2026-11-28T12:00:00+02:00` is `2026-11-28T10:00:00Z`); undefined when it is not
 * one. The reference service keeps date-times so (src/serve/resources.ts), which makes their
 * text order their order in time, and reads a filter's value so.
 */
export function utcDateTime(raw: string): string | undefined {
  const m = DATE_TIME.exec(raw);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, fraction = '', zone] = m;
  if (!validDay(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 60) return undefined;
  if (zone === 'Z' || zone === 'z') return `${y}-${mo}-${d}T${h}:${mi}:${sec}${fraction}Z`;
  const oh = Number(zone!.slice(1, 3));
  const om = Number(zone!.slice(4, 6));
  if (oh > 23 || om > 59) return undefined;
  const sign = zone!.startsWith('-') ? -1 : 1;
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const at = new Date(0);
  at.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  at.setUTCHours(Number(h), Number(mi), Math.min(Number(sec), 59), 0);
  const utc = new Date(at.getTime() - sign * (oh * 60 + om) * 60_000);
  const year = utc.getUTCFullYear();
  if (year < 0 || year > 9999) return undefined;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(year).padStart(4, '0')}-${two(utc.getUTCMonth() + 1)}-${two(utc.getUTCDate())}T${two(utc.getUTCHours())}:${two(utc.getUTCMinutes())}:${two(utc.getUTCSeconds())}${fraction}Z`;
}

/**
 * A filter's value for a `date`, `date-time` or `time` field, or undefined when it is not one
 * (RFC 3339 §5.6): a date-time in UTC, its fraction as written, as the service keeps
 * date-times. Compared as text, so within one second values written to other fractions
 * (`00Z`, `00.500Z`) order as text does (README). A time keeps its offset: a time of day has
 * no date to move it across.
 */
export function orderedValue(raw: string, format: 'date' | 'date-time' | 'time'): string | undefined {
  if (format === 'date') {
    const m = DATE.exec(raw);
    return m && validDay(Number(m[1]), Number(m[2]), Number(m[3])) ? raw : undefined;
  }
  if (format === 'time') {
    const m = TIME.exec(raw);
    return m && Number(m[1]) < 24 && Number(m[2]) < 60 && Number(m[3]) < 61 ? raw : undefined;
  }
  return utcDateTime(raw);
}

function validDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}
