/**
 * The parameters of an OpenAPI operation (./operations.ts): path, the version selector,
 * conditional and idempotency headers, a list's query (filters, sorts, search, expansion).
 */
import { type Endpoint, type FilterOperator, type ListQueryDecl, type Resource, type StateMachine } from '../../spec/model.ts';
import { filterParam } from '../../spec/conventions/query.ts';
import { conditionalPromise, idempotencyPromise } from '../../spec/conventions/promises.ts';
import { EXPAND_PARAM } from '../../spec/conventions/expand.ts';
import { idOf, idParamOf } from '../../spec/conventions/ids.ts';
import { idSchema, shapeSchema, withNull, type JsonSchema } from '../schema.ts';
import { type OpenApiContext } from './context.ts';

export function parametersOf(ctx: OpenApiContext, e: Endpoint, r: Resource, machine: StateMachine | undefined): JsonSchema[] {
  const out: JsonSchema[] = [];
  // src/spec/conventions/paths.ts: each parameter typed as what it binds.
  const fallbackId = e.params.some((p) => p.binding.kind === 'id') ? undefined : idParamOf(e.path);
  for (const p of e.params) {
    const b = p.binding;
    const parent = b.kind === 'parent' ? ctx.spec.resources.find((x) => x.name === b.resource) : undefined;
    let schema: JsonSchema = { type: 'string' };
    let description: string | undefined;
    if (b.kind === 'id' || (b.kind === 'unbound' && p.name === fallbackId)) {
      schema = idSchema(r, ctx.schema);
      description = `The id of the ${r.name}.`;
    } else if (b.kind === 'parent' && parent) {
      schema = idSchema(parent, ctx.schema);
      description = `The id of the ${parent.name} (the \`${b.field}\` of the ${r.name}). No such ${parent.name} visible to the caller: 404${e.operation === 'list' || e.operation === 'create' ? '' : `; a ${r.name} of another ${parent.name}: 404`}.`;
    } else if (b.kind === 'value') {
      schema = shapeSchema(b.shape, 'read', ctx.schema);
    }
    delete schema.readOnly;
    out.push({ name: p.name, in: 'path', required: true, schema, ...(description ? { description } : {}) });
  }
  if (ctx.versionParam) out.push({ $ref: '#/components/parameters/ApiVersion' });
  const op = e.operation;
  // The conditional requests in force (limits.conditional, src/spec/conventions/promises.ts): preconditions on writes to a record, conditional reads (RFC 9110 §13.1).
  const cond = conditionalPromise(ctx.spec).value;
  if (cond?.writes && (op === 'update' || op === 'replace' || op === 'delete' || op === 'transition')) {
    if (cond.validators.includes('etag')) out.push({ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'RFC 9110 §13.1.1: the ETag of the record as last read; on a mismatch the request is refused with 412 and nothing is written. `*` matches any current record.' });
    if (cond.validators.includes('last-modified')) out.push({ name: 'If-Unmodified-Since', in: 'header', required: false, schema: { type: 'string' }, description: 'RFC 9110 §13.1.4: the Last-Modified of the record as last read; when it changed since, the request is refused with 412 and nothing is written.' });
  }
  if (cond?.reads && op === 'read') {
    if (cond.validators.includes('etag')) out.push({ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'RFC 9110 §13.1.2: ETags of copies the client holds; 304 when one is current.' });
    if (cond.validators.includes('last-modified')) out.push({ name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' }, description: 'RFC 9110 §13.1.3: the Last-Modified of the copy the client holds; 304 when the record has not changed since.' });
  }
  if (idempotencyPromise(ctx.spec).value && e.method === 'POST' && (op === 'create' || op === 'transition' || op === 'bulk-create' || op === 'bulk-delete')) out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (op === 'list') out.push(...listParameters(ctx, r, machine, e.query));
  if (e.expand) out.push(expandParameter(e));
  return out;
}

/** The query of a list (src/serve/list-query.ts): page size and position, sort, and exact-match filters. */
function listParameters(ctx: OpenApiContext, r: Resource, machine: StateMachine | undefined, decl?: ListQueryDecl): JsonSchema[] {
  const p = ctx.page;
  const unsaid = !ctx.pageIsDefault && (!p.stated.defaultSize || !p.stated.maxSize || !p.stated.overMax);
  const note = ctx.pageIsDefault ? ' (a safety default: the spec gives no pagination)' : unsaid ? ' (the sizes the spec leaves unsaid are svcspec\'s safety bound)' : '';
  const size: JsonSchema = { type: 'integer', minimum: 1, ...(p.stated.defaultSize || ctx.pageIsDefault ? { default: p.defaultSize } : {}) };
  const bounded = Number.isFinite(p.maxSize);
  if (p.overMax === 'reject' && bounded && p.stated.maxSize) size.maximum = p.maxSize;
  const unpaged = p.unpaged === 'all' ? ` Without \`${p.positionParam}\`, every record comes as a bare array.` : '';
  const out: JsonSchema[] = [
    {
      name: p.sizeParam, in: 'query', required: false, schema: size,
      description: `Records per page: ${p.stated.defaultSize || ctx.pageIsDefault ? `${p.defaultSize} unless given` : 'a default the spec does not state'}, ${!p.stated.maxSize && !ctx.pageIsDefault ? 'a largest size the spec does not state' : bounded ? `at most ${p.maxSize}${!p.stated.overMax && !ctx.pageIsDefault ? '' : p.overMax === 'clamp' ? `; a larger size is clamped to ${p.maxSize}` : '; a larger size is refused'}` : 'any size asked for (no maximum)'}${note}.`,
    },
    p.style === 'offset'
      ? { name: p.positionParam, in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 }, description: `How many records to skip: the \`next\` of the previous page.${unpaged}` }
      : p.style === 'page'
        ? { name: p.positionParam, in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 }, description: `The page number, from 1.${unpaged}` }
        : { name: p.positionParam, in: 'query', required: false, schema: { type: 'string' }, description: `The opaque \`next\` of the previous page; it is read against the same sort.${unpaged}` },
  ];
  const fields = queryFields(ctx, r, machine);
  const taken = new Set<string>([p.sizeParam, p.positionParam, p.sortParam]);
  if (ctx.versionParam?.in === 'query') taken.add(ctx.versionParam.name);
  for (const s of ctx.spec.authentication.schemes) if (s.type === 'apiKey' && s.in === 'query') taken.add(s.param);
  const queryable = [...fields.keys()].filter((n) => !taken.has(n));
  const sortable = decl ? decl.sort.filter((n) => queryable.includes(n)) : queryable;
  if (sortable.length) {
    out.push({
      name: p.sortParam, in: 'query', required: false, style: 'form', explode: false,
      schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: sortable.flatMap((n) => [n, `-${n}`]) } },
      description: `Sort keys, comma-separated, each ascending or, with a leading \`-\`, descending (\`${p.sortParam}=a,-b\`); ties and no sort keep insertion order.`,
    });
  }
  if (decl) {
    if (decl.search && !taken.has(decl.search.param)) out.push({ name: decl.search.param, in: 'query', required: false, schema: { type: 'string' }, description: `Full text: only records whose ${decl.search.fields.join(', ')} holds this text (ASCII letters without case).` });
    out.push(...declaredFilters(decl, fields, taken));
    return out;
  }
  for (const name of queryable) {
    out.push({ name, in: 'query', required: false, schema: fields.get(name) as JsonSchema, description: `Only records whose ${name} equals this value${(fields.get(name) as JsonSchema).type instanceof Array ? ' (`null` matches null)' : ''}.` });
  }
  return out;
}

const OPERATOR_TEXT: Readonly<Record<FilterOperator, string>> = {
  eq: 'equals', ne: 'does not equal', lt: 'is below', lte: 'is at most', gt: 'is above', gte: 'is at least',
  in: 'is one of (comma-separated)', prefix: 'starts with', contains: 'contains', exists: 'is present (true) or absent (false)',
};

/** One query parameter per declared filter and operator, spelled in the query's style (src/spec/conventions/query.ts). */
function declaredFilters(decl: ListQueryDecl, fields: ReadonlyMap<string, JsonSchema>, taken: ReadonlySet<string>): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const f of decl.filters) {
    const schema = fields.get(f.field);
    if (!schema) continue; // check reports it (list-query-field-unknown)
    for (const op of f.ops) {
      const name = filterParam(f.field, op, decl.style);
      if (taken.has(name)) continue;
      const valueSchema: JsonSchema = op === 'exists' ? { type: 'boolean' } : op === 'in' ? { type: 'array', items: schema } : op === 'prefix' || op === 'contains' ? { type: 'string' } : schema;
      out.push({ name, in: 'query', required: false, ...(op === 'in' ? { style: 'form', explode: false } : {}), schema: valueSchema, description: `Only records whose ${f.field} ${OPERATOR_TEXT[op]} this value.` });
    }
  }
  return out;
}

/** The filterable (and sortable) fields: top-level scalars but the id and writeOnly ones, and the state. */
function queryFields(ctx: OpenApiContext, r: Resource, machine: StateMachine | undefined): Map<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  const id = r.id?.field ?? 'id';
  const seen = new Set<string>();
  for (const f of r.fields) {
    seen.add(f.name);
    if (f.name === id || f.writeOnly || f.type === 'object' || f.type === 'array' || f.type === 'any') continue;
    let schema: JsonSchema;
    if (f.type === 'ref') {
      const target = ctx.resources.get(f.resource ?? '');
      schema = { type: target ? idOf(target).type : 'string' };
    } else schema = { type: f.type };
    if (f.enum) schema.enum = [...f.enum];
    out.set(f.name, f.nullable ? withNull(schema) : schema);
  }
  if (machine && !seen.has(machine.field)) out.set(machine.field, { type: 'string', enum: [...machine.states] });
  return out;
}

/** conventions/expand.ts: `expand=a,b` (form style, not exploded); dotted paths go deeper where the depth allows. */
function expandParameter(e: Endpoint): JsonSchema {
  const fields = e.expand?.fields ?? [];
  const depth = e.expand?.depth ?? 1;
  // Field names may hold `$` (`$owner`): escaped, and deeper segments take what a field name may be (FIELD_IDENT).
  const names = fields.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const item: JsonSchema = depth > 1 ? { type: 'string', pattern: `^(${names.join('|')})(\\.[A-Za-z_$@][A-Za-z0-9_-]*){0,${depth - 1}}$` } : { type: 'string', enum: [...fields] };
  return {
    name: EXPAND_PARAM, in: 'query', required: false, style: 'form', explode: false,
    schema: { type: 'array', uniqueItems: true, items: item },
    description: `Refs to embed, comma-separated: ${fields.join(', ')}${depth > 1 ? ` (dotted paths, ${depth} refs deep at most)` : ''}. Each becomes the record it names, as a read of it shows it; one the caller may not read stays its id.`,
  };
}
