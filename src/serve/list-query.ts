/**
 * The query grammar of list endpoints (part 8, pagination; part 2, filters and sorts).
 *
 *   GET /{plural}?<field>=<value>&...&sort=<key>[,<key>...]&<size>=<n>&<position>=<p>
 *
 *   <field>=<value>  exact match on a declared top-level scalar field (string, integer,
 *                    number, boolean, ref; enums included), never a writeOnly one nor the
 *                    id field; several filters all apply (AND); each field at most once.
 *                    The value is read by the field's type, strictly: integers `-?[0-9]+`,
 *                    numbers JSON numbers, booleans `true` | `false`, strings as they are;
 *                    a ref reads as its resource's id (an integer for sequence ids). On a
 *                    nullable field the literal `null` matches null (so a nullable string
 *                    cannot be matched against the text "null"). An enum field accepts
 *                    only its values.
 *   sort=<keys>      (or the name the spec gives) comma-separated field names, each ascending or, with a leading `-`,
 *                    descending (`sort=title,-createdAt`), on the same scalar fields;
 *                    ties, and no sort, fall back to insertion order, ascending.
 *   <size>           the page size parameter (`limits.pagination.params.size`, `limit` by
 *                    default): an integer from 1; above the maximum it is clamped or
 *                    refused, as `limits.pagination.overMax` says.
 *   <position>       cursor style: the opaque `next` of the previous page (`cursor` by
 *                    default); offset style: the number of records to skip (`offset`).
 *
 * Anything else is refused (validation-failed, one entry per parameter at
 * `/query/<name>`), except the parameters other parts read from the query: the version
 * selector (part 9) and API keys sent in the query (part 5). Those, `sort`, and the size
 * and position parameters take precedence over a field of the same name.
 */
import type { FilterOperator, ListQueryDecl, PageBody, Resource } from '../spec/model.ts';
import { isDefaultBody, pageSettings, type PageSettings } from '../spec/conventions/pagination.ts';
import { closest } from '../spec/diagnostics.ts';
import type { FieldFilter, ScalarValue, SortKey, TableLayout } from '../store/store.ts';
import type { ServeContext } from './context.ts';
import { decodeCursor, type CursorPosition } from './cursor.ts';
import { HttpError, type FieldViolation } from './errors.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { parentParams } from '../spec/conventions/paths.ts';
import { filterParam, orderedValue, readFilterParam } from '../spec/conventions/query.ts';

type ValueType = 'string' | 'integer' | 'number' | 'boolean';

export interface QueryField {
  readonly name: string;
  readonly type: ValueType;
  readonly enum?: readonly unknown[];
  readonly nullable: boolean;
  /** A string whose values are ordered in time, read as such (orderedValue). */
  readonly time?: 'date' | 'date-time' | 'time';
}

/** Everything a list endpoint needs to read its query, computed once at start-up. */
export interface ListPlan {
  readonly resource: Resource;
  readonly settings: PageSettings;
  /** Filterable and sortable fields. */
  readonly fields: ReadonlyMap<string, QueryField>;
  /** The list's declared query (filters with operators, sorts, style); undefined for the convention. */
  readonly decl?: ListQueryDecl;
  /** The fields a sort may name: every queryable field by the convention, the declared ones otherwise. */
  readonly sortable: ReadonlySet<string>;
  /** Declared fields that cannot be queried, with the reason. */
  readonly unqueryable: ReadonlyMap<string, string>;
  /** The page is not the style's own shape (src/serve/page-shapes.ts writes it). */
  readonly shaped: boolean;
  /** Parameters other parts read from the query; accepted and carried into links. */
  readonly foreign: ReadonlySet<string>;
}

export function listPlan(ctx: ServeContext, resource: Resource, decl?: ListQueryDecl, page?: PageBody): ListPlan {
  const fields = new Map<string, QueryField>();
  const unqueryable = new Map<string, string>();
  const idField = resource.id?.field ?? 'id';
  for (const f of resource.fields) {
    // The id addresses one record (GET /{plural}/{id}); stored apart from the data, it is not a query field.
    if (f.name === idField) unqueryable.set(f.name, `it is the id: read the record at /${resource.plural}/{id}`);
    else if (f.writeOnly) unqueryable.set(f.name, 'it is write-only');
    else if (f.type === 'object' || f.type === 'array') unqueryable.set(f.name, `it is an ${f.type}, not a single value`);
    else if (f.type === 'any') unqueryable.set(f.name, 'it holds a value of any type, which has no one order or equality');
    else {
      const type: ValueType = f.type === 'ref' ? refType(ctx, f.resource) : f.type;
      const time = f.type === 'string' && (f.format === 'date' || f.format === 'date-time' || f.format === 'time') ? f.format : undefined;
      fields.set(f.name, { name: f.name, type, enum: f.enum, nullable: f.nullable === true, ...(time ? { time } : {}) });
    }
  }
  // The state field is queryable even where the resource does not declare it as a field.
  const machine = ctx.machines.get(resource.name);
  if (machine && !fields.has(machine.field) && !unqueryable.has(machine.field)) {
    fields.set(machine.field, { name: machine.field, type: 'string', enum: machine.states, nullable: false });
  }
  const foreign = new Set<string>();
  const select = ctx.spec.versioning.select;
  if (select?.by === 'query') foreign.add(select.name);
  for (const s of ctx.spec.authentication.schemes) if (s.type === 'apiKey' && s.in === 'query') foreign.add(s.param);
  // A list's own page body (its `page:`) stands in for the part's.
  const settings = pageSettings(ctx.spec, { page });
  const shaped = settings.style === 'page' || settings.unpaged === 'all' || !isDefaultBody(settings);
  if (!decl) return { resource, settings, shaped, fields, unqueryable, foreign, sortable: new Set(fields.keys()) };
  // A declared query: only the fields it names (check reports those that cannot be queried).
  const named = new Set([...decl.filters.map((f) => f.field), ...decl.sort]);
  const declared = new Map([...fields].filter(([name]) => named.has(name)));
  return { resource, settings, shaped, fields: declared, unqueryable, foreign, decl, sortable: new Set(decl.sort.filter((f) => declared.has(f))) };
}

/**
 * What the store keeps for each resource: an index on every field a list of it may filter
 * or sort by (the fields of its list plan), for resources some endpoint lists; none for the
 * others, whose writes then pay for no index. Owned resources' indexes lead with the owner.
 */
export function tableLayouts(ctx: ServeContext): TableLayout[] {
  const indexes = new Map<string, Set<string>>();
  for (const e of ctx.spec.endpoints) {
    const r = e.operation === 'list' ? ctx.resources.get(e.resource) : undefined;
    if (!r) continue;
    const fields = indexes.get(r.name) ?? new Set<string>();
    // A declared query indexes the fields it filters or sorts by; the convention, every queryable field.
    for (const name of listPlan(ctx, r, e.query).fields.keys()) fields.add(name);
    // A nested list filters by its parent's ref (./pagination.ts), declared query or not.
    for (const p of parentParams(e)) fields.add(p.field);
    indexes.set(r.name, fields);
  }
  // Fields the domain rules count by, or look referrers up by, are indexed too; unique constraints are the store's own indexes.
  for (const r of ctx.spec.resources) for (const f of ctx.domain.indexedBy(r.name)) indexes.set(r.name, (indexes.get(r.name) ?? new Set<string>()).add(f));
  return ctx.spec.resources.map((r) => {
    const unique = ctx.domain.uniqueOf(r.name);
    const effectFields = ctx.domain.effectFieldsOf(r.name);
    // The id's member: no record the service writes has it in its data (the id is kept beside it), which the store may vouch for.
    return { name: r.name, owned: r.owned, idField: idOf(r).field, ...(indexes.has(r.name) ? { indexes: [...(indexes.get(r.name) as Set<string>)] } : {}), ...(unique.length ? { unique } : {}), ...(effectFields.length ? { effectFields } : {}) };
  });
}

/** A ref holds the id of its resource, typed as the API types that id (an integer for sequence ids). */
function refType(ctx: ServeContext, target: string | undefined): ValueType {
  const r = target ? ctx.resources.get(target) : undefined;
  return r ? idOf(r).type : 'string';
}

export interface ListRequest {
  readonly size: number;
  readonly filter: Readonly<Record<string, ScalarValue>>;
  /** Filters with operators, from a declared query. */
  readonly filters: readonly FieldFilter[];
  /** The declared full-text parameter's text and fields. */
  readonly search?: { readonly fields: readonly string[]; readonly text: string } | undefined;
  readonly sort: readonly SortKey[];
  readonly after?: CursorPosition;
  readonly offset?: number;
  /** The query as given, less size and position: what the next page's link repeats. */
  readonly carried: readonly (readonly [string, string])[];
}

/** What a filter on a date, date-time or time field takes (RFC 3339 §5.6). */
const TIME_FORMS = {
  date: 'a date (RFC 3339, e.g. 2026-06-01)',
  'date-time': 'a date and time with an offset (RFC 3339, e.g. 2026-06-01T12:00:00Z)',
  time: 'a time (RFC 3339, e.g. 12:00:00Z)',
} as const;
const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

const at = (name: string) => `/query/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
const quote = (v: unknown) => (typeof v === 'string' ? `'${v}'` : String(v));

/** Reads the query string of a list request; every defect is reported at once. */
/** Whether a parameter given more than once is ignored: one the list does not take, under `undeclared: ignore` or `either`. */
function ignoresRepeated(plan: ListPlan, name: string): boolean {
  const { settings, decl } = plan;
  if (decl === undefined || decl.undeclared === 'refuse') return false;
  const taken = name === settings.sizeParam || name === settings.positionParam || name === settings.sortParam || plan.foreign.has(name) || name === decl.search?.param || readFilterParam(name, decl) !== undefined;
  return !taken;
}

export function parseListQuery(rawQuery: string, plan: ListPlan): ListRequest {
  const { settings } = plan;
  const params = queryPairs(rawQuery);
  const violations: FieldViolation[] = [];
  const seen = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [name, value] of params) {
    if (seen.has(name)) repeated.add(name);
    else seen.set(name, value);
  }
  // `undeclared: ignore` (or `either`): a parameter the list does not take is ignored however often it comes.
  for (const name of repeated) if (!ignoresRepeated(plan, name)) violations.push({ pointer: at(name), message: 'is given more than once; give it once' });
  let size = settings.defaultSize;
  const filter: Record<string, ScalarValue> = {};
  const filters: FieldFilter[] = [];
  let search: ListRequest['search'];
  let sort: SortKey[] = [];
  let rawPosition: string | undefined;
  const unknown: string[] = [];
  for (const [name, value] of seen) {
    if (repeated.has(name)) continue;
    if (name === settings.sizeParam) {
      const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
      if (!Number.isInteger(n) || n < 1) violations.push({ pointer: at(name), message: `must be a whole number from 1${Number.isFinite(settings.maxSize) ? ` to ${settings.maxSize}` : ''}, not '${value}'` });
      else if (n > settings.maxSize && settings.overMax === 'reject') violations.push({ pointer: at(name), message: `must be at most ${settings.maxSize}, the largest page size, not ${value}` });
      // With no maximum stated, a size past what a count can hold is the most there can be.
      else size = Math.min(n, settings.maxSize, Number.MAX_SAFE_INTEGER - 1);
    } else if (name === settings.positionParam) rawPosition = value;
    else if (name === settings.sortParam) sort = readSort(value, plan, violations);
    else if (plan.foreign.has(name)) continue;
    else if (plan.decl?.search && name === plan.decl.search.param) search = { fields: plan.decl.search.fields, text: value };
    else if (plan.decl) {
      const named = readFilterParam(name, plan.decl);
      if (named) {
        const read = readFilter(value, named.op, plan.fields.get(named.field) as QueryField);
        if (typeof read === 'string') violations.push({ pointer: at(name), message: read });
        else filters.push(read);
      } else if (plan.decl.undeclared !== 'refuse') {
        // `undeclared: ignore` (or `either`, served as ignore): the page is the one without it.
        continue;
      } else if (plan.fields.has(name) || plan.unqueryable.has(name) || plan.resource.fields.some((f) => f.name === name)) {
        violations.push({ pointer: at(name), message: `is not a filter of this list; it filters by ${declaredFilters(plan.decl)}` });
      } else if (plan.resource.fields.some((f) => name.startsWith(`${f.name}[`) || name.startsWith(`${f.name}:`) || name.startsWith(`${f.name}_`)) && !closest(name, plan.decl.filters.flatMap((f) => f.ops.map((op) => filterParam(f.field, op, plan.decl!.style))))) {
        // A field of the record with an operator the list does not declare (createdAt[gte]): say what it filters by, as for the bare field.
        violations.push({ pointer: at(name), message: `is not a filter of this list; it filters by ${declaredFilters(plan.decl)}` });
      } else unknown.push(name);
    } else if (plan.fields.has(name)) {
      const read = readValue(value, plan.fields.get(name) as QueryField);
      if (read.ok) filter[name] = read.value;
      else violations.push({ pointer: at(name), message: read.message });
    } else if (plan.unqueryable.has(name)) violations.push({ pointer: at(name), message: `cannot be filtered by: ${plan.unqueryable.get(name)}` });
    else unknown.push(name);
  }
  for (const name of unknown) {
    const filterNames = plan.decl ? plan.decl.filters.flatMap((f) => f.ops.map((op) => filterParam(f.field, op, plan.decl!.style))) : [...plan.fields.keys()];
    const known = [...filterNames, ...(plan.decl?.search ? [plan.decl.search.param] : []), settings.sortParam, settings.sizeParam, settings.positionParam];
    const near = closest(name, known);
    violations.push({ pointer: at(name), message: `is not a query parameter of this list${near ? ` (did you mean '${near}'?)` : ''}` });
  }
  let after: CursorPosition | undefined;
  let offset: number | undefined;
  // A cursor is read against the sort; with the sort refused, there is nothing to read it against.
  if (rawPosition !== undefined && !(violations.length && violations.some((v) => v.pointer === at(settings.sortParam)))) {
    if (settings.style === 'page') {
      const n = /^[0-9]+$/.test(rawPosition) ? Number(rawPosition) : NaN;
      // Page numbers start at 1; page n holds the records after the first (n - 1) pages.
      if (Number.isSafeInteger(n) && n >= 1) offset = (n - 1) * size;
      else violations.push({ pointer: at(settings.positionParam), message: `must be a page number from 1, not '${rawPosition}'` });
    } else if (settings.style === 'offset') {
      const n = /^[0-9]+$/.test(rawPosition) ? Number(rawPosition) : NaN;
      if (Number.isSafeInteger(n)) offset = n;
      else violations.push({ pointer: at(settings.positionParam), message: `must be a whole number from 0, not '${rawPosition}'` });
    } else {
      const decoded = decodeCursor(rawPosition, plan.resource.name, sort);
      if (decoded.ok) after = decoded.position;
      else violations.push({ pointer: at(settings.positionParam), message: decoded.message });
    }
  }
  if (violations.length) {
    throw new HttpError('validation-failed', { detail: violations.length === 1 ? 'One query parameter is not valid; it is listed with its JSON pointer.' : `${violations.length} query parameters are not valid; each is listed with its JSON pointer.`, errors: violations });
  }
  // A loop and a literal of one shape: the hot path of every page (no closure made, no spread).
  const carried: (readonly [string, string])[] = [];
  for (const pair of params) if (pair[0] !== settings.sizeParam && pair[0] !== settings.positionParam) carried.push(pair);
  return { size, filter, filters, search, sort, after, offset, carried };
}

const NEEDS_DECODING = /^\?|[%+\uD800-\uDFFF]/;

/**
 * The name-value pairs of a query string, in order, as URLSearchParams reads them
 * (application/x-www-form-urlencoded, WHATWG URL §5.1). Without '%' or '+' there is nothing
 * to decode and the parse is a split on '&' and the first '=', empty pieces skipped: the
 * common case of a page link, read here without building a URLSearchParams. (A lone
 * surrogate, which URLSearchParams replaces with U+FFFD, and a leading '?', which it drops,
 * take its way too.)
 */
export function queryPairs(raw: string): [string, string][] {
  if (NEEDS_DECODING.test(raw)) return [...new URLSearchParams(raw)];
  const pairs: [string, string][] = [];
  for (const piece of raw.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    pairs.push(eq < 0 ? [piece, ''] : [piece.slice(0, eq), piece.slice(eq + 1)]);
  }
  return pairs;
}

function readSort(value: string, plan: ListPlan, violations: FieldViolation[]): SortKey[] {
  const keys: SortKey[] = [];
  const problems: string[] = [];
  for (const item of value.split(',')) {
    const desc = item.startsWith('-');
    const field = desc ? item.slice(1) : item;
    if (field === '') problems.push(`has an empty sort key (write 'sort=title,-createdAt')`);
    else if (keys.some((k) => k.field === field)) problems.push(`names '${field}' twice`);
    else if (plan.unqueryable.has(field)) problems.push(`cannot sort by '${field}': ${plan.unqueryable.get(field)}`);
    else if (!plan.sortable.has(field)) {
      const near = closest(field, plan.sortable.keys());
      const by = [...plan.sortable.keys()];
      // A field of the resource the list does not sort by is one; only an unknown name is not a field.
      const known = plan.resource.fields.some((f) => f.name === field);
      problems.push(`${known ? `cannot sort by '${field}'` : `'${field}' is not a field of ${plan.resource.name}`}${near ? ` (did you mean '${near}'?)` : ''}; it sorts by ${by.length ? by.map((k) => `'${k}'`).join(', ') : 'nothing but its default order'}`);
    } else keys.push({ field, direction: desc ? 'desc' : 'asc' });
  }
  if (problems.length) violations.push({ pointer: at(plan.settings.sortParam), message: problems.join('; ') });
  return keys;
}

type Read = { readonly ok: true; readonly value: ScalarValue } | { readonly ok: false; readonly message: string };

/** `title, by prefix; year, by gte or lte`: what a declared query filters by, for a refusal. */
function declaredFilters(decl: ListQueryDecl): string {
  return decl.filters.length ? decl.filters.map((f) => `${f.field} (${f.ops.map((op) => filterParam(f.field, op, decl.style)).join(', ')})`).join('; ') : 'nothing';
}

/** One filter's value, read by the field's type as `eq` reads it; a message where it does not read. */
function readFilter(raw: string, op: FilterOperator, field: QueryField): FieldFilter | string {
  if (op === 'exists') {
    if (raw !== 'true' && raw !== 'false') return `must be true (present) or false (absent), not '${raw}'`;
    return { field: field.name, op: raw === 'true' ? 'exists' : 'absent' };
  }
  if (op === 'prefix' || op === 'contains') return { field: field.name, op, value: raw };
  if (op === 'in') {
    const values: ScalarValue[] = [];
    for (const piece of raw.split(',')) {
      const read = readValue(piece, field);
      if (!read.ok) return `${read.message.replace(/^must/, 'each value must')}`;
      values.push(read.value);
    }
    return { field: field.name, op, value: values };
  }
  const read = readValue(raw, field);
  if (!read.ok) return read.message;
  // An ordered operator on a number or a date: its value is of the field's own type (check makes sure it orders).
  return { field: field.name, op, value: read.value };
}

function readValue(raw: string, field: QueryField): Read {
  let value: ScalarValue;
  if (field.nullable && raw === 'null') value = null;
  else if (field.type === 'boolean') {
    if (raw !== 'true' && raw !== 'false') return { ok: false, message: `must be true or false, not '${raw}'` };
    value = raw === 'true';
  } else if (field.type === 'integer') {
    if (!INTEGER.test(raw) || !Number.isSafeInteger(Number(raw))) return { ok: false, message: `must be a whole number, not '${raw}'` };
    value = Number(raw);
  } else if (field.type === 'number') {
    if (!NUMBER.test(raw) || !Number.isFinite(Number(raw))) return { ok: false, message: `must be a number, not '${raw}'` };
    value = Number(raw);
  } else if (field.time) {
    const read = orderedValue(raw, field.time);
    // A '+' of an offset sent unencoded arrives as a space (application/x-www-form-urlencoded): say so.
    if (read === undefined) return { ok: false, message: `must be ${TIME_FORMS[field.time]}, not '${raw}'${/\d{2}:\d{2}:\d{2}(\.\d+)? \d{2}:\d{2}$/.test(raw) ? " (a '+' in a query string reads as a space: write it %2B)" : ''}` };
    value = read;
  } else value = raw;
  if (field.enum && value !== null && !field.enum.includes(value)) {
    return { ok: false, message: `must be one of ${field.enum.map(quote).join(', ')}, not '${raw}'` };
  }
  return { ok: true, value };
}
