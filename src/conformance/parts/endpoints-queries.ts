/**
 * Part 4: a list's declared query (src/spec/conventions/query.ts spells it). For each
 * declared filter and operator: records are made whose field holds values around a pivot,
 * the list is walked with the filter, and every record it returns must match (judged here,
 * on the returned value) while every made record that matches must be returned. A filter
 * the query does not declare is refused (or ignored, as `undeclared` says). Each declared sort, ascending and descending, is
 * walked in pages of two: the values never go back across the whole walk.
 */
import { pageSettings } from '../../spec/conventions/pagination.ts';
import { filterParam } from '../../spec/conventions/query.ts';
import type { Endpoint, Field, FilterOperator, ListQueryDecl, Resource } from '../../spec/model.ts';
import { Failure, NotApplicable, Skip, type TestContext } from '../context.ts';
import type { DataFactory, Made } from '../data.ts';
import { expectError, expectSuccess, jsonEqual } from '../expect.ts';
import { valueOf } from '../generate.ts';
import { pageParams, walk } from './list-walk.ts';

export async function checkQueries(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const list of ctx.spec.endpoints.filter((e) => e.operation === 'list' && e.query)) {
    const resource = ctx.resource(list.resource);
    if (!resource) continue;
    if (list !== ctx.endpoint(resource.name, 'list')) {
      ctx.skip('endpoints', `${list.id}.filters`, `${list.id}: its declared filters`, `the tester checks the declared query of ${resource.name}'s plain list; ${list.id} needs more than its query (a parent, or the caller)`);
      continue;
    }
    const decl = list.query as ListQueryDecl;
    for (const filter of decl.filters) {
      const field = ctx.fieldsOf(resource).find((f) => f.name === filter.field);
      for (const op of filter.ops) {
        const param = filterParam(filter.field, op, decl.style);
        await ctx.check('endpoints', `${list.id}.filter.${param}`, `${list.id}: ${param} returns every matching record and no other`, { pointer: filter.pointer, text: `${filter.field}: ${filter.ops.join(', ')}` }, async () => {
          if (!field) throw new Skip(`'${filter.field}' is not a field the tester can write`);
          await checkOperator(ctx, data, list, resource, field, op, param);
        });
      }
    }
    const search = decl.search;
    if (search) {
      await ctx.check('endpoints', `${list.id}.search`, `${list.id}: ${search.param} finds every record whose ${search.fields.join(' or ')} holds the text, and no other`, { pointer: search.pointer, text: `search ${search.fields.join(', ')}` }, async () => {
        await checkSearch(ctx, data, resource, search.param, search.fields);
      });
    }
    const sortParam = pageSettings(ctx.spec).sortParam;
    for (const [i, key] of decl.sort.entries()) {
      for (const arg of [key, `-${key}`]) {
        await ctx.check('endpoints', `${list.id}.sort.${arg}`, `${list.id}: ${sortParam}=${arg} orders the records across every page`, { pointer: `${decl.pointer}/sort/${i}`, text: `sort: ${decl.sort.join(', ')}` }, async () => {
          await checkSort(ctx, data, resource, key, arg.startsWith('-'), sortParam);
        });
      }
    }
    const how = decl.undeclared === 'refuse' ? 'is refused' : decl.undeclared === 'ignore' ? 'is ignored (undeclared: ignore)' : 'is refused, or ignored (undeclared: either)';
    await ctx.check('endpoints', `${list.id}.filter.undeclared`, `${list.id}: a filter the query does not declare ${how}`, { pointer: decl.pointer, text: `the declared query${decl.undeclared !== 'refuse' ? `, undeclared: ${decl.undeclared}` : ''}` }, async () => {
      const as = ctx.principalFor(list);
      if (!as && list.auth && !list.auth.public) throw ctx.noPrincipal(list);
      const ex = await ctx.call('GET', `${list.path}?svcspecUndeclaredFilter=1`, { as: as ?? null });
      const status = ex.response.status;
      if (decl.undeclared === 'refuse') return expectError(ctx, ex, 'validation-failed');
      if (decl.undeclared === 'either' && status >= 400 && status < 500) {
        expectError(ctx, ex, 'validation-failed');
        // Refused for the parameter, not for another cause: the list without it is served.
        const control = await ctx.call('GET', list.path, { as: as ?? null });
        if (control.response.status < 200 || control.response.status >= 300) throw new Skip(`${list.id} answers ${control.response.status} without the parameter too, so the refusal does not show what the parameter did`);
        return;
      }
      // Ignored: the page is served as without it.
      expectSuccess(list, ex);
    });
  }
}

async function checkOperator(ctx: TestContext, data: DataFactory, list: Endpoint, resource: Resource, field: Field, op: FilterOperator, param: string): Promise<void> {
  if (field.readOnly || !data.createFields(resource, ctx.version).some((f) => f.name === field.name)) throw new Skip(`'${field.name}' is set by the service: the tester cannot choose its values`);
  const kept = await withValues(ctx, data, resource, field, 3);
  if (kept.length < 2) throw new Skip(`'${field.name}' admits too few distinct values (its shape and the record rules) to tell a filter from no filter`);
  const values = kept.map((k) => k.value);
  const made: Made[] = [];
  for (const { body } of kept) made.push(await data.create(resource, { body }));
  // Absent and null, too, for the operators that speak of them.
  if ((op === 'exists' || op === 'ne') && !field.required) {
    const body = await data.validBody(resource);
    delete body[field.name];
    made.push(await data.create(resource, { body }));
  }
  const pivot = values[Math.floor(values.length / 2)];
  const { arg, matches } = operatorCase(op, pivot, values);
  // In pages: a filter must hold on every page of the walk, not only the first. Of two, or more where the run has made many, so a filter most records match is walked in about six requests (as the sort's walk is).
  const size = Math.min(pageParams(ctx).askAtMost, Math.max(2, Math.ceil(data.count(resource) / 6)));
  const { items, pages } = await walk(ctx, resource, size, undefined, [[param, arg]]);
  const exchange = pages.at(-1)!.exchange;
  const wrong = items.find((item) => !matches(item[field.name]));
  if (wrong) throw new Failure(`${param}=${arg} returned a record whose ${field.name} is ${JSON.stringify(wrong[field.name])}`, exchange);
  const idField = data.idField(resource);
  const ids = new Set(items.map((i) => String(i[idField])));
  const missing = made.find((m) => matches(m.body[field.name]) && !ids.has(m.id));
  if (missing) throw new Failure(`${param}=${arg} left out ${resource.name} '${missing.id}', whose ${field.name} is ${JSON.stringify(missing.body[field.name])}`, exchange);
  void list;
}

/** A record made with a marker word in one searched field, found by the word in other letter case; every record found holds it. */
async function checkSearch(ctx: TestContext, data: DataFactory, resource: Resource, param: string, fields: readonly string[]): Promise<void> {
  const writable = data.createFields(resource, ctx.version).find((f) => fields.includes(f.name) && f.type === 'string' && !f.enum && !f.format && !f.pattern && (f.maxLength ?? 64) >= 12);
  if (!writable) throw new Skip('no searched field takes free text the tester can write');
  const word = `Zq${ctx.draw.one(valueOf({ type: 'string', minLength: 6, maxLength: 6, pattern: '^[a-z]{6}$', pointer: '' })) as string}`;
  const made = await data.create(resource, { body: await data.validBody(resource, { set: { [writable.name]: word } }) });
  const asked = word.toUpperCase();
  const { items, pages } = await walk(ctx, resource, undefined, undefined, [[param, asked]]);
  const exchange = pages.at(-1)!.exchange;
  const idField = data.idField(resource);
  if (!items.some((i) => String(i[idField]) === made.id)) throw new Failure(`${param}=${asked} did not find ${resource.name} '${made.id}', whose ${writable.name} is '${word}'`, exchange);
  const stray = items.find((i) => !fields.some((f) => typeof i[f] === 'string' && (i[f] as string).toLowerCase().includes(word.toLowerCase())));
  if (stray) throw new Failure(`${param}=${asked} returned ${resource.name} '${String(stray[idField])}', none of whose ${fields.join(', ')} holds it`, exchange);
}

/**
 * Records with distinct values of the key are made, and the list is walked in pages
 * (of two, or more where the run has made many) sorted by it: the values it shows must never go back across the whole walk. Where a
 * record has no value (null or absent) the spec leaves its place open, so those are not judged.
 */
async function checkSort(ctx: TestContext, data: DataFactory, resource: Resource, key: string, descending: boolean, sortParam: string): Promise<void> {
  const declared = ctx.fieldsOf(resource).find((f) => f.name === key);
  // Text orders by a collation the spec does not state (code point, or a locale's): only numbers,
  // booleans, dates and date-times have one order every service agrees on.
  const ordered = declared && (declared.type === 'integer' || declared.type === 'number' || declared.type === 'boolean' || (declared.type === 'string' && (declared.format === 'date' || declared.format === 'date-time')));
  if (!ordered) throw new NotApplicable(`'${key}' is text (or not a field of ${resource.name}): its order depends on a collation the spec does not state`);
  const field = data.createFields(resource, ctx.version).find((f) => f.name === key);
  if (field && !field.readOnly) {
    for (const { body } of await withValues(ctx, data, resource, field, 3)) await data.create(resource, { body });
  }
  // Pages small enough for several boundaries, large enough that a list of many records is walked in about six requests (a list's quota is spent where it matters).
  const size = Math.min(pageParams(ctx).askAtMost, Math.max(2, Math.ceil(data.count(resource) / 6)));
  const { items, pages } = await walk(ctx, resource, size, undefined, [[sortParam, descending ? `-${key}` : key]]);
  const values = items.map((item) => item[key]).filter((v) => v !== null && v !== undefined);
  if (values.length < 2) throw new Skip(`fewer than two ${resource.plural} with a value of '${key}' to order`);
  for (let i = 1; i < values.length; i++) {
    const c = order(values[i - 1], values[i]);
    if (descending ? c < 0 : c > 0) throw new Failure(`${sortParam}=${descending ? '-' : ''}${key} showed ${JSON.stringify(values[i - 1])} before ${JSON.stringify(values[i])}`, pages.at(-1)!.exchange);
  }
}

function order(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Values in ascending order where they order (numbers by value, the rest by their text). */
function sorted(values: readonly unknown[]): unknown[] {
  return [...values].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
}

/**
 * Up to n valid bodies with distinct values of a field, in the values' order: each value one
 * a record keeping the spec's record rules may hold (`rank <= 10` leaves out most of a 0..100
 * field), so the records a query check makes are not refused for a rule it is not about.
 */
async function withValues(ctx: TestContext, data: DataFactory, resource: Resource, field: Field, n: number): Promise<{ value: unknown; body: Record<string, unknown> }[]> {
  // Drawn one at a time, in the order drawn (as `distinct` draws them), and ordered once kept:
  // where no rule refuses one, these are the first n distinct values drawn, as before rules were kept.
  const out: { value: unknown; body: Record<string, unknown> }[] = [];
  const tried: unknown[] = [];
  for (let i = 0; i < n * 16 && out.length < n; i++) {
    const value = ctx.draw.one(valueOf(field));
    if (value === null || typeof value === 'object' || tried.some((x) => jsonEqual(x, value))) continue;
    tried.push(value);
    try {
      out.push({ value, body: await data.validBody(resource, { set: { [field.name]: value } }) });
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
    }
  }
  const order = sorted(out.map((o) => o.value));
  return out.sort((a, b) => order.indexOf(a.value) - order.indexOf(b.value));
}

/** The query value for an operator around a pivot, and what a matching value is. */
function operatorCase(op: FilterOperator, pivot: unknown, values: readonly unknown[]): { arg: string; matches: (v: unknown) => boolean } {
  const cmp = (v: unknown): number | undefined => (v === null || v === undefined || typeof v !== typeof pivot ? undefined : typeof v === 'number' ? v - (pivot as number) : String(v) < String(pivot) ? -1 : String(v) > String(pivot) ? 1 : 0);
  const text = String(pivot);
  switch (op) {
    case 'eq': return { arg: text, matches: (v) => jsonEqual(v, pivot) };
    case 'ne': return { arg: text, matches: (v) => !jsonEqual(v, pivot) };
    case 'lt': return { arg: text, matches: (v) => (cmp(v) ?? 0) < 0 && cmp(v) !== undefined };
    case 'lte': return { arg: text, matches: (v) => cmp(v) !== undefined && (cmp(v) as number) <= 0 };
    case 'gt': return { arg: text, matches: (v) => cmp(v) !== undefined && (cmp(v) as number) > 0 };
    case 'gte': return { arg: text, matches: (v) => cmp(v) !== undefined && (cmp(v) as number) >= 0 };
    case 'in': {
      const chosen = [values[0], values.at(-1)];
      return { arg: chosen.map(String).join(','), matches: (v) => chosen.some((c) => jsonEqual(c, v)) };
    }
    case 'prefix': {
      const p = text.slice(0, Math.max(1, Math.ceil(text.length / 2)));
      return { arg: p, matches: (v) => typeof v === 'string' && v.startsWith(p) };
    }
    case 'contains': {
      const c = text.length > 2 ? text.slice(1, -1) : text;
      return { arg: c, matches: (v) => typeof v === 'string' && v.includes(c) };
    }
    case 'exists': return { arg: 'true', matches: (v) => v !== null && v !== undefined };
  }
}
