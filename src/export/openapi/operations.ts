/**
 * One OpenAPI operation per endpoint of part 4: its parameters (path, the version
 * selector, conditional and idempotency headers, a list's query), its request body, its
 * responses (success, 304, and an error response per status it can answer) and its
 * security. Each says what the reference service does on that route; the module of
 * src/serve that does it is named where it is used.
 */
import { requestEnvelope } from '../../spec/conventions/envelope.ts';
import { isBulk, type Endpoint, type Resource, type StateMachine } from '../../spec/model.ts';
import { writeRulesExtensions, writeRulesWords } from '../../spec/domain/words.ts';
import { writeRulesOf } from '../../spec/domain/refusals.ts';
import { idOf } from '../../spec/conventions/ids.ts';
import { recordSchema, requestBodyOf, transitionSentence } from '../records.ts';
import { enveloped, pascal, type JsonSchema } from '../schema.ts';
import { schemaRef, type OpenApiContext } from './context.ts';
import { parametersOf } from './parameters.ts';
import { bulkChangeBody, bulkRequestSchema, expandableSchema, JSON_TYPE, responsesOf } from './responses.ts';
import { performedByReference } from '../../spec/conventions/endpoints.ts';

export function operationOf(ctx: OpenApiContext, endpoint: Endpoint, resource: Resource): JsonSchema {
  const machine = ctx.machines.get(resource.name);
  const P = pascal(resource.name);
  const plain = () => schemaRef(ctx, `record:${resource.name}`, P, () => recordSchema(resource, machine, ctx.schema));
  // serve/expand.ts: with `?expand=`, an expandable ref holds its id or the record it names.
  const record = endpoint.expand ? () => schemaRef(ctx, `expanded:${endpoint.id}`, `${P}Expandable${pascal(endpoint.operation)}`, () => expandableSchema(ctx, resource, endpoint.expand?.fields ?? [], recordSchema(resource, machine, ctx.schema))) : plain;
  const op: JsonSchema = {
    tags: [resource.name],
    operationId: endpoint.operationId ?? endpoint.id,
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
    const inner = schemaRef(ctx, key, `${P}${kind}`, () => body.schema);
    // src/spec/conventions/envelope.ts: the record sent inside its member.
    const member = requestEnvelope(ctx.spec, endpoint);
    const schema = member === undefined ? inner : enveloped(member, inner);
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
    if (performedByReference(e)) out.push('The reference service performs it: its guards, then its effects, in one transaction; it answers with the record.');
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

// ---- security ---------------------------------------------------------------------------

/** public -> [] (no credentials needed); otherwise any one accepted scheme, with the scopes the endpoint needs. */
export function securityOf(ctx: OpenApiContext, e: Endpoint): JsonSchema[] | undefined {
  if (!e.auth) return undefined; // authentication is a gap: nothing is known
  if (e.auth.public) return [];
  const schemes = e.auth.schemes.filter((s) => s in ctx.components.securitySchemes);
  if (!schemes.length) return undefined;
  return schemes.map((s) => ({ [s]: [...e.auth!.scopes] }));
}
