/**
 * Part 2 from components.schemas: every object schema is a resource, its properties its
 * fields (./schema.ts). Schemas that are not objects (arrays, strings) are written into the
 * fields that reference them; schemas used only as error bodies are part 7's shape; a schema
 * used only as the request body of writes answered with a schema holding all its properties
 * (`NewPet` for `Pet`) is that resource's writable part, not a resource of its own.
 * OpenAPI never says which field is a record's id nor who assigns it, so no `id` is written.
 */
import type { Field, IdAssignment, Resource } from '../../spec/model.ts';
import { child, pointer } from '../../spec/pointer.ts';
import { defined } from '../../load/normalize/read.ts';
import { IMPORT_CODES } from '../codes.ts';
import { componentOf, isObject, jsonContent, keyName, report, resolve, unique, type ImportContext, type Json } from './context.ts';
import { mergeAllOf, objectFields, type SchemaScope } from './schema.ts';
import { isErrorResponse } from './bodies.ts';
import { envelopeOf, namesComponent, recordEnvelopeOf, type Envelope } from './pages.ts';

export const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation {
  readonly path: string;
  readonly method: (typeof OPERATION_METHODS)[number];
  readonly node: Json;
  readonly pointer: string;
  /** Path-level parameters, which every operation of the path shares. */
  readonly shared: readonly unknown[];
}

/** Every operation of the document, in its order. */
export function operations(ctx: ImportContext): Operation[] {
  const out: Operation[] = [];
  const paths = isObject(ctx.doc.paths) ? ctx.doc.paths : {};
  for (const [path, value] of Object.entries(paths)) {
    const item = resolve(ctx, value, child('/paths', path));
    if (!item) continue;
    const shared = Array.isArray(item.node.parameters) ? item.node.parameters : [];
    for (const method of OPERATION_METHODS) {
      const node = item.node[method];
      if (isObject(node)) out.push({ path, method, node, pointer: child(item.pointer, method), shared });
    }
  }
  return out;
}

/**
 * `held`: named inside a body's own structure rather than as its record (`oneOf: [Cat, Dog]`, an
 * inline `{data: Owner}`): an operation sends or answers it, so it is no mere part of another schema.
 */
export type Role = 'success' | 'request' | 'error' | 'held';

/** The component schema a body names, directly or as the items of an array. */
export function bodyComponent(ctx: ImportContext, schema: unknown, at: string): { component: string; array: boolean; envelope?: Envelope; added?: readonly string[]; record?: string } | undefined {
  // A list envelope (`{data: [Customer], has_more}`) is a page of its records (./pages.ts).
  const paged = envelopeOf(ctx, schema, at);
  if (paged) return { component: paged.component, array: true, envelope: paged.envelope };
  // A record with members of the answer's own (`allOf: [Booking, {properties: {links}}]`, hypermedia
  // links beside the record, Bump.sh's Train Travel API): the record, its added members not carried.
  // A record inside an envelope of one member (`{article: Article}`, ./pages.ts recordEnvelopeOf).
  const single = recordEnvelopeOf(ctx, schema, at);
  if (single?.component !== undefined) return { component: single.component, array: false, record: single.member };
  const composed = recordWithAdditions(ctx, schema, at);
  if (composed) return { component: composed.component, array: false, added: composed.added };
  if (isObject(schema) && schema.type === 'array') {
    const item = recordWithAdditions(ctx, schema.items, child(at, 'items'));
    if (item) return { component: item.component, array: true, added: item.added };
  }
  const direct = componentOf(schema);
  if (direct !== undefined) {
    const r = resolve(ctx, schema, at);
    // A component that is itself an array (`Pets: {type: array, items: Pet}`) names its items.
    if (r && r.node.type === 'array' && componentOf(r.node.items) !== undefined) return { component: componentOf(r.node.items)!, array: true };
    return { component: direct, array: false };
  }
  if (isObject(schema) && schema.type === 'array' && componentOf(schema.items) !== undefined) return { component: componentOf(schema.items)!, array: true };
  return undefined;
}

/** `allOf` of exactly one component and inline objects that only add members: that component, and the names the inline ones add. */
function recordWithAdditions(ctx: ImportContext, schema: unknown, at: string): { component: string; added: string[] } | undefined {
  if (!isObject(schema) || !Array.isArray(schema.allOf)) return undefined;
  const refs = schema.allOf.filter((s) => componentOf(s) !== undefined);
  if (refs.length !== 1) return undefined;
  const added: string[] = [];
  for (const [i, part] of schema.allOf.entries()) {
    if (componentOf(part) !== undefined) continue;
    const r = resolve(ctx, part, child(at, 'allOf', i));
    if (!r || (r.node.type !== undefined && r.node.type !== 'object') || !isObject(r.node.properties)) return undefined;
    added.push(...Object.keys(r.node.properties));
  }
  const component = componentOf(refs[0])!;
  const target = resolve(ctx, refs[0], child(at, 'allOf', schema.allOf.indexOf(refs[0])));
  // An answer that adds the id (`allOf: [NewPet, {properties: {id}}]`) is a record of its own, not NewPet's with links beside it.
  if (added.includes('id') || !target || target.node.type === 'array') return undefined;
  return { component, added };
}

/** How each component schema is used as a body: for success responses, requests, errors. */
export function schemaUsage(ctx: ImportContext, ops: readonly Operation[]): Map<string, Set<Role>> {
  const usage = new Map<string, Set<Role>>();
  const mark = (component: string, role: Role) => (usage.get(component) ?? usage.set(component, new Set()).get(component)!).add(role);
  // The components a body names in its own inline structure, not inside another component.
  const held = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > 8) return;
    const ref = componentOf(node);
    if (ref !== undefined) {
      if (depth > 0) mark(ref, 'held');
      return;
    }
    // Not allOf: a component composed into the body is a part of its record (NewPet in Pet's allOf).
    for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(node[key])) for (const n of node[key] as unknown[]) held(n, depth + 1);
    if (node.items !== undefined) held(node.items, depth + 1);
    if (isObject(node.properties)) for (const n of Object.values(node.properties)) held(n, depth + 1);
  };
  const use = (schema: unknown, at: string, role: Role) => {
    const found = bodyComponent(ctx, schema, at);
    // A page's own members (Vultr's `meta`, a component of its own) are the page's, not records it holds.
    if (role !== 'error' && !found?.envelope) held(schema, 0);
    if (!found) return;
    mark(found.component, role);
    // An error body of one member holding the error (`{error: genericError}`, Ory): what it holds is the error's too.
    if (role !== 'error') return;
    const r = resolve(ctx, schema, at);
    const members = r && isObject(r.node.properties) ? Object.values(r.node.properties) : [];
    const inner = members.length === 1 ? componentOf(members[0]) : undefined;
    if (inner !== undefined) mark(inner, 'error');
  };
  for (const op of ops) {
    const body = resolve(ctx, op.node.requestBody, child(op.pointer, 'requestBody'));
    const json = body && jsonContent(body.node.content);
    if (json) use(json.schema, child(body.pointer, 'content', json.mediaType, 'schema'), 'request');
    for (const [status, value] of Object.entries(isObject(op.node.responses) ? op.node.responses : {})) {
      const response = resolve(ctx, value, child(op.pointer, 'responses', status));
      const content = response && jsonContent(response.node.content);
      if (!content) continue;
      const role: Role = isErrorResponse(op, status) ? 'error' : 'success';
      use(content.schema, child(response.pointer, 'content', content.mediaType, 'schema'), role);
    }
  }
  return usage;
}

/** Whether a path is one a record's write goes to: its collection's, or its own (ending at a parameter), not an action's (`/orders/{id}/cancel`). */
export function writesPath(path: string): boolean {
  const segments = path.replace(/[?#].*$/, '').split('/').filter(Boolean);
  return !segments.some((s) => s.startsWith('{')) || segments.at(-1)!.startsWith('{');
}

/**
 * Whether a body of these members writes a record holding `held`: every member one of its
 * fields, or most of them with a few it never answers (an input's `tax_codes` beside an
 * answer's `taxes`, Lago), at least two shared and at most a third not.
 */
export function writesRecord(names: readonly string[], held: (name: string) => boolean): boolean {
  const extra = names.filter((n) => !held(n)).length;
  return names.length > 0 && (extra === 0 || (names.length - extra >= 2 && extra * 3 <= names.length));
}

/**
 * The request bodies that are another schema's writable part: by operation, a component used
 * only as a request body, answered with a component holding every property it has
 * (`NewPet`, answered with `Pet: allOf [NewPet, {id}]`). Not a resource: its record is the
 * other's. Request component -> the success components that hold it.
 */
export function requestShapes(ctx: ImportContext, ops: readonly Operation[], usage: ReadonlyMap<string, ReadonlySet<Role>>): Map<string, string> {
  const schemas = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {};
  const propertiesAt = (schema: unknown, at: string): Set<string> | undefined => {
    const r = resolve(ctx, schema, at);
    const node = r && mergeAllOf({ ctx, resources: new Map() }, r.node, r.pointer);
    return node && isObject(node.properties) ? new Set(Object.keys(node.properties)) : undefined;
  };
  const properties = (name: string) => propertiesAt(schemas[name], child('/components/schemas', name));
  const shapes = new Map<string, string>();
  for (const op of ops) {
    const body = resolve(ctx, op.node.requestBody, child(op.pointer, 'requestBody'));
    const json = body && jsonContent(body.node.content);
    const request = json && bodyComponent(ctx, json.schema, child(body.pointer, 'content', json.mediaType, 'schema'));
    const roles = request && usage.get(request.component);
    if (!request || request.array || !roles || roles.size !== 1 || shapes.has(request.component)) continue;
    // A request enveloped as its answer is (`AddOnCreateInput: {add_on: AddOnBaseInput}`
    // answered `{add_on: AddOnObject}`, Lago): what it sends is what its member holds.
    const at = child('/components/schemas', request.component);
    const wrapped = recordEnvelopeOf(ctx, schemas[request.component], at, true, request.component);
    const own = properties(request.component);
    const inside = wrapped ? propertiesAt(wrapped.schema, wrapped.at) : undefined;
    for (const [status, value] of Object.entries(isObject(op.node.responses) ? op.node.responses : {})) {
      if (!/^2/.test(status)) continue;
      const response = resolve(ctx, value, child(op.pointer, 'responses', status));
      const content = response && jsonContent(response.node.content);
      const answered = content && bodyComponent(ctx, content.schema, child(response.pointer, 'content', content.mediaType, 'schema'));
      if (!answered || answered.array || answered.component === request.component) continue;
      // Read as an envelope only where the answer is enveloped in the same member; else the request is its own properties.
      const enveloped = wrapped !== undefined && answered.record === wrapped.member;
      const sent = enveloped ? inside : own;
      if (!sent?.size) continue;
      const held = properties(answered.component);
      // Foreign members only on a write's path (an action's body keeps its own schema, CancelOrder for Order).
      if (held && ([...sent].every((p) => held.has(p)) || (writesPath(op.path) && writesRecord([...sent], (p) => held.has(p))))) {
        shapes.set(request.component, answered.component);
        // The schema inside such a request, used by no body of its own, is that record's writable part too.
        if (enveloped && wrapped.component !== undefined && !usage.has(wrapped.component)) shapes.set(wrapped.component, answered.component);
        break;
      }
    }
  }
  return shapes;
}

export interface ImportedResources {
  readonly resources: Resource[];
  /** Component schema name -> resource name. */
  readonly byComponent: Map<string, string>;
  readonly scope: SchemaScope;
}

export function importResources(ctx: ImportContext, usage: ReadonlyMap<string, ReadonlySet<Role>>, shapes: ReadonlyMap<string, string> = new Map()): ImportedResources {
  const schemas = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {};
  const byComponent = new Map<string, string>();
  const taken = new Set<string>();
  const chosen: [string, Json, string][] = [];
  // A record held by a wrapper named alike with its member (`AddOn: {add_on: AddOnObject}`) is
  // called what the wrapper calls it (addOn), not by its own component's name.
  const calledBy = new Map<string, string>();
  for (const [name, value] of Object.entries(schemas)) {
    const wrapping = recordEnvelopeOf(ctx, value, child('/components/schemas', name), false, name);
    if (wrapping?.component !== undefined && namesComponent(wrapping.member, name) && !calledBy.has(wrapping.component)) calledBy.set(wrapping.component, name);
  }
  for (const [name, value] of Object.entries(schemas)) {
    const at = child('/components/schemas', name);
    const r = resolve(ctx, value, at);
    if (!r) continue;
    const node = mergeAllOf({ ctx, resources: byComponent }, r.node, r.pointer);
    const roles = usage.get(name);
    const isObjectSchema = node.type === 'object' || (node.type === undefined && (isObject(node.properties) || Array.isArray(node.required)));
    const hasProperties = isObject(node.properties) && Object.keys(node.properties).length > 0;
    let what: string | undefined;
    const paged = roles?.has('request') ? undefined : envelopeOf(ctx, value, at);
    // A component named for the record it wraps (`ArticleResponse`); a `Team` of one `address` stays a team.
    const wrapping = paged ? undefined : recordEnvelopeOf(ctx, value, at, false, name);
    const wrapper = wrapping?.component !== undefined && (name.toLowerCase().includes(wrapping.component.toLowerCase()) || namesComponent(wrapping.member, name)) ? { ...wrapping, component: wrapping.component } : undefined;
    if (paged) what = `a page of ${paged.component}, its records under '${paged.envelope.items}' (the lists answering it are read as pages)`;
    else if (wrapper) what = `the envelope of a ${wrapper.component}, the record under '${wrapper.member}' (the resource's envelope says so)`;
    else if (roles?.has('error') && !roles.has('success') && !roles.has('request')) what = 'an error body, used only by error responses';
    else if (shapes.has(name)) what = `the request body of writes answered with ${shapes.get(name)}, which holds each of its properties`;
    else if (!isObjectSchema) what = describe(node);
    else if (!hasProperties) what = 'an object without named properties';
    // No operation sends or answers it as a record: a part of others (a base of their allOf, a
    // member's shape, Lago's PaginationMeta), held where they hold it, not a collection of its own.
    else if (!roles) what = 'a part of other schemas that no operation sends or answers as a record';
    if (what) {
      const use = what.startsWith('an error') ? ' (part 7 reads it)' : paged || wrapper ? '' : shapes.has(name) ? ` (a write of ${shapes.get(name)} takes its fields)` : ' (fields that reference it take its constraints)';
      report(ctx, IMPORT_CODES.schemaNotResource, { schema: name, what, use }, at);
      continue;
    }
    const resource = unique(keyName(calledBy.get(name) ?? name, 'resource'), taken);
    taken.add(resource);
    byComponent.set(name, resource);
    chosen.push([name, node, r.pointer]);
  }
  const scope: SchemaScope = { ctx, resources: byComponent };
  const resources = chosen.map(([component, node, at]): Resource => {
    const name = byComponent.get(component)!;
    const target = pointer('resources', name);
    const fields = objectFields(scope, node, at, { target: child(target, 'fields'), resource: name, stack: [component] });
    return defined({
      name,
      plural: name,
      description: typeof node.description === 'string' ? node.description : undefined,
      id: idOf(ctx, fields, name, at, target),
      owned: false,
      // OpenAPI's readings: a schema takes members it does not name unless it says
      // `additionalProperties: false`, and a readOnly member a client sends is "expected to be
      // ignored or rejected" (JSON Schema Validation §9.4): either, the service's choice, rather
      // than refused by a default of svcspec's.
      unknownFields: node.additionalProperties === false ? 'refuse' : 'ignore',
      readOnlyFields: 'either',
      fields,
      unique: [],
      rules: [],
      pointer: target,
    });
  });
  return { resources, byComponent, scope };
}

/**
 * A property named `id` read as the record's id. Who assigns it is settled once the endpoints
 * are placed (./records.ts settleId), which says so (IMPORT_CODES.resourceIdRead) at the
 * property kept here: what the requests carry can overrule what the schema alone tells.
 */
function idOf(ctx: ImportContext, fields: readonly Field[], resource: string, at: string, target: string): Resource['id'] {
  const f = fields.find((x) => x.name === 'id');
  if (!f || (f.type !== 'string' && f.type !== 'integer')) return undefined;
  idProperties(ctx).set(resource, child(at, 'properties', 'id'));
  return { field: 'id', assigned: idAssignment(f).assigned, pointer: child(target, 'id') };
}

const idPropertiesOf = new WeakMap<ImportContext, Map<string, string>>();

/** Where the `id` property idOf read stands in the document, by resource. */
export function idProperties(ctx: ImportContext): Map<string, string> {
  let m = idPropertiesOf.get(ctx);
  if (!m) idPropertiesOf.set(ctx, (m = new Map()));
  return m;
}

/** Who assigns an id field, as its schema tells: the service where it is read-only or optional, else the client. */
export function idAssignment(f: Field): { readonly assigned: IdAssignment; readonly how: string } {
  if (f.readOnly || !f.required) {
    const assigned: IdAssignment = f.type === 'integer' ? 'sequence' : f.format === 'uuid' ? 'uuid' : 'service';
    return { assigned, how: `it is ${f.readOnly ? 'read-only' : 'not required'}, so the service assigns it (${assigned})` };
  }
  return { assigned: 'client', how: 'it is writable and required, so the client gives it' };
}

function describe(node: Json): string {
  const type = Array.isArray(node.type) ? node.type.join(' or ') : node.type;
  if (type === 'array') {
    const items = componentOf(node.items);
    return items ? `an array of ${items}` : 'an array';
  }
  if (typeof type === 'string') return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
  if (Array.isArray(node.oneOf) || Array.isArray(node.anyOf)) return 'a choice between schemas';
  return 'not an object';
}

/** `a, b and c`; long lists end with how many more. */
export function listOf(names: readonly string[], max = 8): string {
  const shown = names.slice(0, max);
  const rest = names.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest} more`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : (shown[0] ?? '');
}
