/**
 * The schemas of a resource's records and of the request bodies its endpoints take, shared
 * by the OpenAPI and AsyncAPI exports. What a body may carry follows the reference service
 * exactly: src/serve/resources.ts `requestValidator` and src/serve/states.ts (transitions),
 * both over src/serve/validation.ts.
 */
import type { Endpoint, Field, Resource, StateMachine } from '../spec/model.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { managedExtension, managedWords, onDeleteExtension, ruleExtension, ruleWords, uniqueExtension, uniqueWords } from '../spec/domain/words.ts';
import { fieldSchema, idSchema, members, type Direction, type JsonSchema, type SchemaContext } from './schema.ts';

/** A record as the service shows it (a read, a list item, a resource payload of an event). */
export function recordSchema(resource: Resource, machine: StateMachine | undefined, c: SchemaContext): JsonSchema {
  const rule = idOf(resource);
  const declaredId = resource.fields.find((f) => f.name === rule.field);
  const id: JsonSchema = { ...idSchema(resource, c) };
  if (declaredId?.description !== undefined) id.description = declaredId.description;
  if (rule.assigned !== 'client') id.readOnly = true;
  const rest = members(resource.fields.filter((f) => f.name !== rule.field), 'read', c);
  const properties: Record<string, JsonSchema> = { [rule.field]: id, ...rest.properties };
  const required = [rule.field, ...rest.required];
  const out: JsonSchema = { type: 'object' };
  if (resource.description !== undefined) out.description = resource.description;
  if (machine) {
    // The state is set on create and moved by transitions, so every record has one.
    const declared = properties[machine.field];
    properties[machine.field] = {
      ...(declared ?? { type: 'string', enum: [...machine.states] }),
      readOnly: true,
      description: `${typeof declared?.description === 'string' ? `${declared.description} ` : ''}The state: ${machine.initial} when created, then moved only by the transitions (${machine.transitions.map((t) => t.name).join(', ') || 'none'}).`,
    };
    if (!required.includes(machine.field)) required.push(machine.field);
    out['x-svcspec-states'] = statesExtension(machine);
  }
  domainOfRecord(resource, properties, out);
  out.properties = properties;
  out.required = required;
  return out;
}

/**
 * The domain rules of a record (docs/format.md "Domain rules in OpenAPI"): `x-svcspec-unique`
 * and `x-svcspec-rules` on the record, `x-svcspec-managed` and `x-svcspec-on-delete` on its
 * members, each in the format's own shape and said in words in the descriptions.
 */
function domainOfRecord(resource: Resource, properties: Record<string, JsonSchema>, out: JsonSchema): void {
  const words: string[] = [];
  if (resource.unique.length) {
    out['x-svcspec-unique'] = resource.unique.map(uniqueExtension);
    words.push(...resource.unique.map((u) => uniqueWords(resource, u)));
  }
  if (resource.rules.length) {
    out['x-svcspec-rules'] = resource.rules.map(ruleExtension);
    words.push(...resource.rules.map(ruleWords));
  }
  if (words.length) out.description = [typeof out.description === 'string' ? out.description : '', ...words].filter(Boolean).join('\n\n');
  for (const f of resource.fields) {
    const p = properties[f.name];
    if (!p) continue;
    const said: string[] = [];
    if (f.managed) {
      p['x-svcspec-managed'] = managedExtension(f.managed);
      said.push(managedWords(f.managed));
    }
    const onDelete = onDeleteExtension(f);
    if (onDelete !== undefined) {
      p['x-svcspec-on-delete'] = onDelete;
      said.push(f.onDelete?.kind === 'refuse' ? `Deleting the ${f.resource} it names is refused with \`${f.onDelete.error}\` while any ${resource.name} refers to it.` : f.onDelete?.kind === 'cascade' ? `Deleting the ${f.resource} it names deletes this ${resource.name} with it.` : `Deleting the ${f.resource} it names sets it to null.`);
    }
    if (said.length) p.description = [typeof p.description === 'string' ? p.description : '', ...said].filter(Boolean).join(' ');
  }
}

/** `x-svcspec-states`: the state machine of part 3, which neither OpenAPI nor JSON Schema has a keyword for. */
export function statesExtension(machine: StateMachine): JsonSchema {
  const transitions: Record<string, JsonSchema> = {};
  for (const t of machine.transitions) {
    transitions[t.name] = {
      from: [...t.from], to: t.to,
      ...(t.requires.length ? { requires: [...t.requires] } : {}),
      ...(t.description !== undefined ? { description: t.description } : {}),
    };
  }
  return { field: machine.field, states: [...machine.states], initial: machine.initial, transitions };
}

/** "Moves a loan from active, overdue to returned." */
export function transitionSentence(resource: string, machine: StateMachine, name: string): string | undefined {
  const t = machine.transitions.find((x) => x.name === name);
  if (!t) return undefined;
  return `Moves a ${resource} from ${t.from.join(', ')} to ${t.to}${t.requires.length ? `; the body carries ${t.requires.join(', ')}` : ''}.`;
}

export interface RequestBodyShape {
  readonly schema: JsonSchema;
  /** False when the service also takes no body at all (nothing in it is required). */
  readonly required: boolean;
  /** A merge patch: `application/merge-patch+json` as well as `application/json`. */
  readonly mergePatch: boolean;
}

/** What the endpoint's request body may carry; undefined when it takes none. */
export function requestBodyOf(endpoint: Endpoint, resource: Resource, machine: StateMachine | undefined, c: SchemaContext): RequestBodyShape | undefined {
  const r = endpoint.request;
  const rule = idOf(resource);
  const clientId = rule.assigned === 'client';
  const op = endpoint.operation;
  // Never writable: the state (only transitions move it) and a service-assigned id, or any id but on create.
  const refused = new Set<string>();
  if (machine) refused.add(machine.field);
  if (!(clientId && op === 'create')) refused.add(rule.field);

  if (op === 'transition') {
    const t = machine?.transitions.find((x) => x.name === endpoint.transition);
    if (!t) return undefined;
    const listed = r.kind === 'fields' ? r.fields : r.kind === 'none' ? [] : resource.fields.filter((f) => !f.readOnly).map((f) => f.name);
    const names = [...new Set([...listed, ...t.requires])];
    const onlyRequired = names.every((n) => t.requires.includes(n));
    // src/serve/states.ts: only required fields are written in full; with optional ones beside, a patch's rules.
    return named(resource, names, onlyRequired ? 'write' : 'patch', (f) => t.requires.includes(f.name), refused, c, false);
  }
  if (r.kind === 'none') return undefined;
  // An action's own body (src/serve/validation.ts shapeValidator): its fields as declared.
  if (r.kind === 'shape') {
    const m = members(r.fields, 'write', c);
    return { schema: objectSchema(m.properties, m.required), required: m.required.length > 0, mergePatch: false };
  }
  if (r.kind === 'fields') {
    const names = op === 'create' && clientId && !r.fields.includes(rule.field) ? [rule.field, ...r.fields] : r.fields;
    const dir: Direction = op === 'update' ? 'patch' : 'write';
    return named(resource, names, dir, (f) => (dir === 'write' && f.required) || (op === 'create' && clientId && f.name === rule.field), refused, c, op === 'update');
  }
  const dir: Direction = op === 'update' ? 'patch' : 'write';
  const writable = resource.fields.filter((f) => !refused.has(f.name) && !(f.readOnly && !(clientId && op === 'create' && f.name === rule.field)));
  const m = members(writable.map((f) => (f.name === rule.field ? { ...f, readOnly: false } : f)), dir, c);
  if (op === 'create' && clientId) {
    if (!m.properties[rule.field]) m.properties = { [rule.field]: { type: rule.type, ...(rule.type === 'string' ? { minLength: 1 } : {}) }, ...m.properties };
    if (!m.required.includes(rule.field)) m.required.unshift(rule.field);
  }
  if (resource.readOnlyFields !== 'refuse') {
    // src/serve/validation.ts: what the service sets itself is dropped from a request, not refused.
    for (const f of resource.fields) {
      if (m.properties[f.name] || !(f.readOnly || refused.has(f.name))) continue;
      m.properties[f.name] = { ...fieldSchema({ ...f, readOnly: false }, 'patch', c), readOnly: true, description: resource.readOnlyFields === 'either' ? 'Set by the service; when sent, refused or ignored, as the service chooses.' : 'Set by the service; ignored when sent.' };
    }
  }
  // `keep` and `ignore` both take members the fields do not declare (the one stores them, the other drops them).
  return { schema: objectSchema(m.properties, m.required, resource.unknownFields !== 'refuse'), required: true, mergePatch: op === 'update' };
}

/** A body of only the named fields (an endpoint that names them may take a readOnly one). */
function named(
  resource: Resource, names: readonly string[], dir: Direction, isRequired: (f: Field) => boolean,
  refused: ReadonlySet<string>, c: SchemaContext, mergePatch: boolean,
): RequestBodyShape {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const name of names) {
    const f = resource.fields.find((x) => x.name === name);
    if (!f || refused.has(name)) continue;
    const plain = { ...f, readOnly: false };
    properties[name] = fieldSchema(plain, dir, c);
    if (isRequired(f)) {
      required.push(name);
      // Required in a patch-like body: present, so null only where the field allows it.
      if (dir === 'patch' && !f.nullable) properties[name] = fieldSchema({ ...plain, required: true }, dir, c);
    }
  }
  return { schema: objectSchema(properties, required, resource.unknownFields === 'ignore'), required: required.length > 0, mergePatch };
}

function objectSchema(properties: Record<string, JsonSchema>, required: readonly string[], open = false): JsonSchema {
  // `unknownFields: keep`: an open record takes members its fields do not declare.
  return { type: 'object', properties, ...(required.length ? { required: [...required] } : {}), ...(open ? {} : { additionalProperties: false }) };
}
