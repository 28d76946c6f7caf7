/**
 * One OpenAPI operation per endpoint of part 4: its parameters (path, the version
 * selector, conditional and idempotency headers, a list's query), its request body, its
 * responses (success, 304, and an error response per status it can answer) and its
 * security. Each says what the reference service does on that route; the module of
 * src/serve that does it is named where it is used.
 */
import { isBulk, type Endpoint, type FilterOperator, type ListQueryDecl, type Resource, type StateMachine, type WriteRules } from '../../spec/model.ts';
import { writeRulesExtensions, writeRulesWords } from '../../spec/domain/words.ts';
import { filterParam } from '../../spec/conventions/query.ts';
import { isDefaultBody, linksNext } from '../../spec/conventions/pagination.ts';
import { conditionalPromise, idempotencyPromise, rateHeadersPromise } from '../../spec/conventions/promises.ts';
import { BULK_ITEMS } from '../../spec/conventions/bulk.ts';
import { EXPAND_PARAM, refFields, refTarget } from '../../spec/conventions/expand.ts';
import { idOf, idParamOf } from '../../spec/conventions/ids.ts';
import { recordSchema, requestBodyOf, transitionSentence } from '../records.ts';
import { idSchema, members, pascal, shapeSchema, withNull, type JsonSchema } from '../schema.ts';
import { schemaRef, type OpenApiContext } from './context.ts';
import { errorCases, errorDescription, errorResponseSchema, type ErrorCase } from './errors.ts';

const JSON_TYPE = 'application/json';

export function operationOf(ctx: OpenApiContext, endpoint: Endpoint, resource: Resource): JsonSchema {
  const machine = ctx.machines.get(resource.name);
  const P = pascal(resource.name);
  const plain = () => schemaRef(ctx, `record:${resource.name}`, P, () => recordSchema(resource, machine, ctx.schema));
  // serve/expand.ts: with `?expand=`, an expandable ref holds its id or the record it names.
  const record = endpoint.expand ? () => schemaRef(ctx, `expanded:${endpoint.id}`, `${P}Expandable${pascal(endpoint.operation)}`, () => expandableSchema(ctx, resource, endpoint.expand?.fields ?? [], recordSchema(resource, machine, ctx.schema))) : plain;
  const op: JsonSchema = {
    tags: [resource.name],
    operationId: endpoint.id,
    summary: endpoint.summary ?? defaultSummary(endpoint, resource),
  };
  const description = describe(ctx, endpoint, resource, machine);
  if (description) op.description = description;
  const rules = writeRulesOf(endpoint, resource, machine);
  if (rules) Object.assign(op, writeRulesExtensions(rules));
  if (ctx.version?.status === 'deprecated') op.deprecated = true;
  const parameters = parametersOf(ctx, endpoint, resource, machine);
  if (parameters.length) op.parameters = parameters;
  const single = requestBodyOf(endpoint, resource, machine, ctx.schema);
  // conventions/bulk.ts: `{ items: [<a create's body>] }`, 1 to max items.
  const body = single && endpoint.operation === 'bulk-create' ? { ...single, schema: bulkRequestSchema(ctx, endpoint, resource, single.schema) }
    : endpoint.operation === 'bulk-update' || endpoint.operation === 'bulk-delete' ? bulkChangeBody(ctx, endpoint, resource, machine)
    : single;
  if (body) {
    const own = endpoint.operation === 'action' || isBulk(endpoint.operation);
    const kind = own ? `${pascal(endpoint.id.slice(resource.name.length + 1))}Request`
      : endpoint.operation === 'transition' || endpoint.request.kind === 'fields' ? `${pascal(endpoint.transition ?? endpoint.operation)}Request`
      : endpoint.operation === 'create' ? 'Create' : endpoint.operation === 'update' ? 'Patch' : 'Replace';
    const key = kind.endsWith('Request') ? `body:${endpoint.id}` : `body:${resource.name}:${kind}`;
    const schema = schemaRef(ctx, key, `${P}${kind}`, () => body.schema);
    const content: Record<string, JsonSchema> = {};
    // app.ts: a PATCH body is a JSON merge patch (RFC 7396), sent with either media type.
    if (body.mergePatch) content['application/merge-patch+json'] = { schema };
    content[JSON_TYPE] = { schema };
    op.requestBody = {
      required: body.required,
      content,
      ...(body.required ? {} : { description: 'Optional: nothing in it is required, so the request may come without a body.' }),
    };
  }
  op.responses = responsesOf(ctx, endpoint, resource, record);
  const security = securityOf(ctx, endpoint);
  if (security) op.security = security;
  return op;
}

/** The guards and effects that come with an endpoint's write: a create's, a delete's, a transition's, an action's. */
function writeRulesOf(e: Endpoint, r: Resource, machine: StateMachine | undefined): WriteRules | undefined {
  switch (e.operation) {
    case 'create':
    case 'bulk-create':
      return r.onCreate;
    case 'update':
    case 'replace':
    case 'bulk-update':
      return r.onUpdate;
    case 'delete':
    case 'bulk-delete':
      return r.onDelete;
    case 'transition':
      return machine?.transitions.find((t) => t.name === e.transition)?.rules;
    case 'action':
      return e.action?.rules;
    default:
      return undefined;
  }
}

function defaultSummary(e: Endpoint, r: Resource): string {
  switch (e.operation) {
    case 'create': return `Create a ${r.name}`;
    case 'read': return `Read a ${r.name}`;
    case 'update': return `Update a ${r.name} (JSON merge patch)`;
    case 'replace': return `Replace a ${r.name}`;
    case 'delete': return `Delete a ${r.name}`;
    case 'list': return `List ${r.plural}`;
    case 'bulk-create': return `Create ${r.plural} in bulk`;
    case 'bulk-update': return `Update ${r.plural} in bulk (a JSON merge patch each)`;
    case 'bulk-delete': return `Delete ${r.plural} in bulk`;
    case 'action': return `${e.id.slice(r.name.length + 1)}: an action on ${e.action?.target === 'record' ? `a ${r.name}` : r.plural}`;
    default: return `${e.transition ?? 'Transition'}: a transition of a ${r.name}`;
  }
}

function describe(ctx: OpenApiContext, e: Endpoint, r: Resource, machine: StateMachine | undefined): string {
  const out: string[] = [];
  if (e.operation === 'transition' && machine && e.transition) {
    const sentence = transitionSentence(r.name, machine, e.transition);
    if (sentence) out.push(sentence);
    const t = machine.transitions.find((x) => x.name === e.transition);
    if (t?.description) out.push(t.description);
    out.push(`From any other state it is refused (invalid-transition) with \`currentState\` and \`allowedTransitions\`.`);
  }
  if (e.action) {
    if (e.action.behaviour !== undefined || !e.action.rules?.effects.length) out.push(e.action.behaviour ?? 'What the action does is not stated.');
    // serve/actions.ts: without a handler the reference answers 501 after validation, unless the action states effects.
    if (e.action.rules?.effects.length) out.push('The reference service performs it: its guards, then its effects, in one transaction; it answers with the record.');
    else out.push('Its behaviour is stated in prose: the reference service answers 501 (not-implemented) unless a handler performs it.');
  }
  const rules = writeRulesOf(e, r, machine);
  if (rules) out.push(writeRulesWords(rules).join(' '));
  if (e.operation === 'bulk-create') out.push(`All or nothing, in one transaction: ${e.bulk?.max !== undefined ? `at most ${e.bulk.max} items; ` : ''}every failing item's member is listed with its pointer (\`/items/3/title\`) and nothing is written. One event per record, as each create would emit.`);
  if (e.operation === 'bulk-update' || e.operation === 'bulk-delete') {
    const what = e.operation === 'bulk-update' ? `each item is a JSON merge patch (RFC 7396) of one ${r.name} with its \`${idOf(r).field}\`, and every failing item's member is listed with its pointer (\`/items/2/title\`)` : `each item is the id of a ${r.name}`;
    out.push(`All or nothing, in one transaction: ${e.bulk?.max !== undefined ? `at most ${e.bulk.max} items; ` : ''}${what}. An id that names no ${r.name} the caller may see fails the whole request (422 at the item's id, worded alike for a missing record and another principal's) and nothing is written; an id given twice is refused at its second place. One event per record, as each single ${e.operation === 'bulk-update' ? 'update' : 'delete'} would emit.`);
  }
  if (e.expand) out.push(`\`?expand=\` embeds the referenced records of ${e.expand.fields.join(', ')} (to depth ${e.expand.depth}); a record the caller may not read stays its id.`);
  if (e.operation === 'update') out.push('A JSON merge patch (RFC 7396): members sent replace theirs, objects merge, `null` removes an optional member.');
  if (r.owned) out.push(`Records of ${r.name} belong to the principal that created them: another caller gets 404${e.operation === 'list' ? ' and never sees them in a list' : ''}.`);
  if (r.visibility) out.push(`A ${r.name} is seen exactly by whoever sees the record its \`${r.visibility.field}\` names: another caller gets 404${e.operation === 'list' ? ' and never sees it in a list' : ''}.`);
  const parents = e.params.filter((p) => p.binding.kind === 'parent');
  if (parents.length && e.operation === 'list') out.push(`Only the ${r.plural} of the ${parents.map((p) => `\`${p.name}\``).join(' and ')} in the path.`);
  if (parents.length && e.operation === 'create') out.push(`The ${parents.map((p) => (p.binding.kind === 'parent' ? `\`${p.binding.field}\`` : '')).join(' and ')} comes from the path; a body naming another is refused (validation-failed).`);
  if (e.select === 'caller') out.push(`The caller's own ${r.name}, addressed without an id: 401 without credentials, 404 while there is none${r.perOwner === 'one' && e.operation === 'replace' ? ' (a PUT then creates it, 201)' : ''}.`);
  if (e.auth?.public && e.auth.schemes.length === 0 && ctx.spec.authentication.schemes.length > 0) out.push('Public: no credentials needed. Credentials sent anyway are checked (a bad one is 401) and make the caller known.');
  return out.join('\n\n');
}

// ---- parameters -------------------------------------------------------------------------

function parametersOf(ctx: OpenApiContext, e: Endpoint, r: Resource, machine: StateMachine | undefined): JsonSchema[] {
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
  const note = ctx.pageIsDefault ? ' (a safety default: the spec gives no pagination)' : '';
  const size: JsonSchema = { type: 'integer', minimum: 1, default: p.defaultSize };
  const bounded = Number.isFinite(p.maxSize);
  if (p.overMax === 'reject' && bounded) size.maximum = p.maxSize;
  const unpaged = p.unpaged === 'all' ? ` Without \`${p.positionParam}\`, every record comes as a bare array.` : '';
  const out: JsonSchema[] = [
    {
      name: p.sizeParam, in: 'query', required: false, schema: size,
      description: `Records per page: ${p.defaultSize} unless given, ${bounded ? `at most ${p.maxSize}${p.overMax === 'clamp' ? `; a larger size is clamped to ${p.maxSize}` : '; a larger size is refused'}` : 'any size asked for (no maximum)'}${note}.`,
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
    if (f.name === id || f.writeOnly || f.type === 'object' || f.type === 'array') continue;
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

// ---- responses --------------------------------------------------------------------------

function responsesOf(ctx: OpenApiContext, e: Endpoint, r: Resource, record: () => JsonSchema): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const op = e.operation;
  const declaredErrors = new Map<number, string | undefined>();
  for (const resp of e.responses) {
    if (resp.body === 'error' || resp.status >= 400) {
      declaredErrors.set(resp.status, resp.description);
      continue;
    }
    const headers: Record<string, JsonSchema> = {};
    // representation.ts recordOutcome: every record answer has its ETag, a 201 its Location; a delete has neither.
    // An action's or a bulk create's answer is not one record's representation; an expanded read is another one (serve/expand.ts).
    const oneRecord = op !== 'delete' && op !== 'list' && op !== 'action' && !isBulk(op);
    if (oneRecord && !(op === 'read' && e.expand)) Object.assign(headers, validatorHeaders(ctx));
    if (resp.status === 201 && oneRecord) headers.Location = { $ref: '#/components/headers/Location' };
    if (idempotencyPromise(ctx.spec).value && e.method === 'POST' && (op === 'create' || op === 'transition' || op === 'bulk-create' || op === 'bulk-delete')) headers['Idempotency-Replayed'] = { $ref: '#/components/headers/IdempotencyReplayed' };
    const response: JsonSchema = { description: resp.description ?? successText(e, r, resp.body) };
    // RFC 9110 §15.3.5: a 204 has no content, whatever the body says.
    if (resp.status !== 204 && resp.body === 'resource') response.content = { [JSON_TYPE]: { schema: record() } };
    if (resp.status !== 204 && resp.body === 'shape' && e.action?.response.kind === 'shape') {
      const m = members(e.action.response.fields, 'read', ctx.schema);
      const schema = schemaRef(ctx, `response:${e.id}`, `${pascal(r.name)}${pascal(e.id.slice(r.name.length + 1))}Response`, () => ({ type: 'object', properties: m.properties, ...(m.required.length ? { required: m.required } : {}), additionalProperties: false }));
      response.content = { [JSON_TYPE]: { schema } };
    }
    if (resp.status !== 204 && resp.body === 'items') {
      response.content = { [JSON_TYPE]: { schema: { type: 'object', properties: { [BULK_ITEMS]: { type: 'array', items: record() } }, required: [BULK_ITEMS] } } };
    }
    if (resp.status !== 204 && resp.body === 'page') {
      response.content = { [JSON_TYPE]: { schema: schemaRef(ctx, `page:${r.name}`, `${pascal(r.name)}Page`, () => pageSchema(ctx, record())) } };
      if (linksNext(ctx.page)) headers.Link = linkHeader(ctx, true);
    }
    const all = { ...headers, ...commonHeaders(ctx, e, resp.status) };
    if (Object.keys(all).length) response.headers = all;
    out[String(resp.status)] = response;
  }
  // resources.ts: a PUT on a singleton of a perOwner: one resource creates it when there is none (RFC 9110 §9.3.4).
  if (op === 'replace' && e.select === 'caller' && r.perOwner === 'one' && !out['201']) {
    out['201'] = { description: `Created: the caller had no ${r.name} yet.`, content: { [JSON_TYPE]: { schema: record() } }, headers: { ...validatorHeaders(ctx), Location: { $ref: '#/components/headers/Location' }, ...commonHeaders(ctx, e, 201) } };
  }
  if (op === 'read' && conditionalPromise(ctx.spec).value?.reads) out['304'] = { description: 'Not modified: the copy the client holds (If-None-Match, If-Modified-Since) is current.', headers: { ...validatorHeaders(ctx), ...commonHeaders(ctx, e, 304) } };
  const cases = errorCases(ctx.spec, e, { preconditions: conditionalPromise(ctx.spec).value?.writes ?? false, idempotency: idempotencyPromise(ctx.spec).value !== undefined, hasSchemes: ctx.spec.parts.authentication.statement === 'given' && ctx.spec.authentication.schemes.length > 0, hasRateLimit: ctx.policies.has(e.id), noTimeout: ctx.spec.limits.none?.timeouts !== undefined, versionParam: ctx.versionParam !== undefined, someRetired: ctx.someRetired });
  for (const status of declaredErrors.keys()) if (!cases.has(status)) cases.set(status, []);
  for (const [status, list] of [...cases].sort(([a], [b]) => a - b)) out[String(status)] = errorResponse(ctx, e, status, list, declaredErrors.get(status));
  return out;
}

function successText(e: Endpoint, r: Resource, body: string): string {
  if (body === 'page') return `A page of ${r.plural}.`;
  if (body === 'none') return 'Done; no content.';
  if (body === 'items') return e.operation === 'bulk-update' ? `The ${r.plural} as changed, in the order of the request.` : e.operation === 'bulk-delete' ? `The ${r.plural} as they were, in the order of the request.` : `The new ${r.plural}, in the order of the request.`;
  if (body === 'shape') return 'What the action answers.';
  return e.operation === 'create' ? `The new ${r.name}.` : `The ${r.name}${e.operation === 'transition' ? ' in its new state' : ''}.`;
}

/** conventions/bulk.ts: the items, each a create's body. */
function bulkRequestSchema(ctx: OpenApiContext, e: Endpoint, r: Resource, item: JsonSchema): JsonSchema {
  const one = schemaRef(ctx, `body:${r.name}:Create`, `${pascal(r.name)}Create`, () => item);
  const items: JsonSchema = { type: 'array', minItems: 1, items: one };
  if (e.bulk?.max !== undefined) items.maxItems = e.bulk.max;
  return { type: 'object', properties: { [BULK_ITEMS]: items }, required: [BULK_ITEMS], additionalProperties: false };
}

/**
 * conventions/bulk.ts: a bulk update's `{ items: [<a merge patch with the id>] }` or a bulk
 * delete's `{ items: [<id>] }`, 1 to max items. Not itself a merge patch: application/json only.
 */
function bulkChangeBody(ctx: OpenApiContext, e: Endpoint, r: Resource, machine: StateMachine | undefined): { schema: JsonSchema; required: boolean; mergePatch: boolean } {
  const id = idSchema(r, ctx.schema);
  delete id.readOnly;
  let item: JsonSchema = id;
  if (e.operation === 'bulk-update') {
    const patch = requestBodyOf({ ...e, operation: 'update', request: { kind: 'resource', partial: true } }, r, machine, ctx.schema)?.schema ?? { type: 'object' };
    const field = idOf(r).field;
    const whole: JsonSchema = { ...patch, properties: { [field]: { ...id, description: `The id of the ${r.name} to change.` }, ...(patch.properties as Record<string, JsonSchema> | undefined) }, required: [field, ...((patch.required as string[] | undefined) ?? []).filter((n) => n !== field)] };
    item = schemaRef(ctx, `body:${r.name}:BulkPatch`, `${pascal(r.name)}BulkPatch`, () => whole);
  }
  const items: JsonSchema = { type: 'array', minItems: 1, items: item };
  if (e.bulk?.max !== undefined) items.maxItems = e.bulk.max;
  return { schema: { type: 'object', properties: { [BULK_ITEMS]: items }, required: [BULK_ITEMS], additionalProperties: false }, required: true, mergePatch: false };
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

/** The record with each expandable ref holding its id or, expanded, the record it names. */
function expandableSchema(ctx: OpenApiContext, r: Resource, fields: readonly string[], base: JsonSchema): JsonSchema {
  const properties = { ...(base.properties as Record<string, JsonSchema>) };
  for (const f of refFields(r)) {
    if (!fields.includes(f.name)) continue;
    const target = ctx.resources.get(refTarget(f) ?? '');
    if (!target) continue;
    const embedded = schemaRef(ctx, `record:${target.name}`, pascal(target.name), () => recordSchema(target, ctx.machines.get(target.name), ctx.schema));
    const id = idSchema(target, ctx.schema);
    delete id.readOnly;
    const declared = properties[f.name] ?? {};
    const description = typeof declared.description === 'string' ? { description: declared.description } : {};
    properties[f.name] = f.type === 'array'
      ? { ...declared, items: { anyOf: [id, embedded] } }
      : { ...description, anyOf: [f.nullable ? withNull(id) : id, embedded] };
  }
  return { ...base, properties };
}

function pageSchema(ctx: OpenApiContext, item: JsonSchema): JsonSchema {
  const items = { type: 'array', items: item };
  if (!isDefaultBody(ctx.page) || ctx.page.style === 'page' || ctx.page.unpaged === 'all') return shapedPageSchema(ctx, items);
  if (ctx.page.style === 'offset') {
    return {
      type: 'object',
      properties: {
        items, offset: { type: 'integer', minimum: 0, description: 'The offset of the first item.' },
        next: { type: ['integer', 'null'], minimum: 0, description: 'The offset of the following page; null on the last page.' },
      },
      required: ['items', 'offset', 'next'],
    };
  }
  return {
    type: 'object',
    properties: { items, next: { type: ['string', 'null'], description: 'The cursor of the following page; null on the last page.' } },
    required: ['items', 'next'],
  };
}

/** A page in the shape the spec declares (src/serve/page-shapes.ts writes it). */
function shapedPageSchema(ctx: OpenApiContext, items: JsonSchema): JsonSchema {
  const p = ctx.page;
  const all = p.unpaged === 'all' ? { ...items, description: `Every record, without \`${p.positionParam}\`.` } : undefined;
  if (p.body.kind === 'array') return { ...items, description: 'A page of records, as a bare array; the following page is linked by `Link: <…>; rel="next"`.' };
  const b = p.body;
  const properties: Record<string, JsonSchema> = { [b.items]: items };
  const required = [b.items];
  const nextType = p.style === 'cursor' ? 'string' : 'integer';
  if (b.offset !== undefined) {
    properties[b.offset] = { type: 'integer', minimum: 0, description: 'The offset of the first item.' };
    required.push(b.offset);
  }
  if (b.next !== undefined) {
    properties[b.next] = { type: [nextType, 'null'], description: `The ${p.style === 'page' ? 'number' : p.style} of the following page; null on the last page.` };
    required.push(b.next);
  }
  if (b.total !== undefined) {
    properties[b.total] = { type: 'integer', minimum: 0, description: 'How many records the whole list holds, on every page.' };
    required.push(b.total);
  }
  const page: JsonSchema = { type: 'object', properties, required };
  return all ? { oneOf: [page, all] } : page;
}

function errorResponse(ctx: OpenApiContext, e: Endpoint, status: number, cases: readonly ErrorCase[], declared: string | undefined): JsonSchema {
  const headers: Record<string, JsonSchema> = {};
  const has = (s: string) => cases.some((c) => c.situation === s);
  if (has('unauthenticated')) headers['WWW-Authenticate'] = { required: true, schema: { type: 'string' }, description: 'RFC 9110 §11.6.1: one challenge per accepted scheme; a refused bearer token says why (RFC 6750 §3.1).' };
  // auth/index.ts: only a bearer token's 403 carries a challenge (RFC 6750 §3.1).
  const bearer = ctx.spec.authentication.schemes.some((s) => e.auth?.schemes.includes(s.name) && (s.type === 'bearer' || s.type === 'oauth2'));
  if (has('forbidden') && !has('unauthenticated') && bearer) headers['WWW-Authenticate'] = { schema: { type: 'string' }, description: 'For a bearer token: `error="insufficient_scope"` and the scopes needed (RFC 6750 §3.1).' };
  if (has('rate-limited')) headers['Retry-After'] = { required: true, schema: { type: 'integer', minimum: 0 }, description: 'RFC 9110 §10.2.3: seconds until the window closes.' };
  if ((has('precondition-failed') || has('invalid-transition')) && conditionalPromise(ctx.spec).value?.validators.includes('etag')) headers.ETag = { $ref: '#/components/headers/ETag' };
  const all = { ...headers, ...commonHeaders(ctx, e, status) };
  return {
    description: errorDescription(cases, declared),
    ...(Object.keys(all).length ? { headers: all } : {}),
    content: { [ctx.errorShape.mediaType]: { schema: errorResponseSchema(ctx.errorShape, status, cases) } },
  };
}

/** Fields every answer of the endpoint carries: the version's, and the rate limit's where it applies. */
function commonHeaders(ctx: OpenApiContext, e: Endpoint, status: number): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  // versioning/index.ts: a request refused for its version (400 unknown-version, 410) was served in none, so has none of its fields.
  const refusable = ctx.versionParam !== undefined && (status === 400 || status === 410);
  if (refusable && status === 410) return commonRateHeaders(ctx, e, status);
  const required = refusable ? {} : { required: true };
  const d = ctx.deprecation;
  if (d.deprecation) out.Deprecation = { ...required, schema: { type: 'string', const: d.deprecation }, description: `RFC 9745: version ${ctx.version?.name} is deprecated since ${ctx.version?.deprecated}.` };
  if (d.sunset) out.Sunset = { ...required, schema: { type: 'string', const: d.sunset }, description: `RFC 8594: version ${ctx.version?.name} stops being served on ${ctx.version?.sunset}.` };
  if (d.link) out.Link = linkHeader(ctx, e.operation === 'list' && linksNext(ctx.page));
  if (ctx.versionParam?.in === 'header' && ctx.version) {
    out[ctx.versionParam.name] = { ...required, schema: { type: 'string', const: ctx.version.name }, description: 'The version that served the request.' };
    out.Vary = { schema: { type: 'string' }, description: `Names ${ctx.versionParam.name}: each version is its own representation (RFC 9110 §12.5.5).` };
  }
  return { ...out, ...commonRateHeaders(ctx, e, status) };
}

function commonRateHeaders(ctx: OpenApiContext, e: Endpoint, status: number): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  // limits/rate.ts: versioning and authentication refuse before the limit, so 401, 403 and 410 carry no fields.
  const policy = ctx.policies.get(e.id);
  // The quota fields only where they are in force (limits.rate.headers: ratelimit, stated or the default).
  if (policy && rateHeadersPromise(ctx.spec).value === 'ratelimit' && status !== 401 && status !== 403 && status !== 410) {
    // A 400 may be unknown-version, refused before the limit, or a malformed body, counted.
    const required = ctx.versionParam !== undefined && status === 400 ? {} : { required: true };
    out['RateLimit-Policy'] = { ...required, schema: { type: 'string', const: policy.field }, description: `draft-ietf-httpapi-ratelimit-headers: ${policy.limit} requests per ${Math.ceil(policy.windowMs / 1000)} s, counted per ${policy.scope === 'credential' ? 'credential (an anonymous request by its client address)' : 'client address'}.` };
    out.RateLimit = { ...required, schema: { type: 'string' }, description: 'What is left in the current window (`r`) and the seconds until it closes (`t`).' };
  }
  return out;
}

/** The validators a record answer carries, as limits.conditional has them in force. */
function validatorHeaders(ctx: OpenApiContext): Record<string, JsonSchema> {
  const validators = conditionalPromise(ctx.spec).value?.validators ?? [];
  return {
    ...(validators.includes('etag') ? { ETag: { $ref: '#/components/headers/ETag' } } : {}),
    ...(validators.includes('last-modified') ? { 'Last-Modified': { $ref: '#/components/headers/LastModified' } } : {}),
  };
}

function linkHeader(ctx: OpenApiContext, next: boolean): JsonSchema {
  const parts: string[] = [];
  if (next) parts.push('`rel="next"` (RFC 8288): the URL of the following page, when there is one');
  if (ctx.deprecation.link) parts.push(`\`rel="deprecation"\` (RFC 9745): \`${ctx.deprecation.link}\``);
  return { schema: { type: 'string' }, description: parts.join('; ') };
}

// ---- security ---------------------------------------------------------------------------

/** public -> [] (no credentials needed); otherwise any one accepted scheme, with the scopes the endpoint needs. */
function securityOf(ctx: OpenApiContext, e: Endpoint): JsonSchema[] | undefined {
  if (!e.auth) return undefined; // authentication is a gap: nothing is known
  if (e.auth.public) return [];
  const schemes = e.auth.schemes.filter((s) => s in ctx.components.securitySchemes);
  if (!schemes.length) return undefined;
  return schemes.map((s) => ({ [s]: [...e.auth!.scopes] }));
}
