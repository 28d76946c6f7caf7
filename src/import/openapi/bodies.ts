/**
 * The payload shapes of one operation, in the format's words: a request body is nothing, the
 * resource or some of its fields; a response is a record, a page, nothing or an error, keyed
 * by status. What falls outside is reported where it stands in the document.
 */
import type { EndpointResponse, Field, RequestShape, Resource, ResponseBody } from '../../spec/model.ts';
import { child, pointer } from '../../spec/pointer.ts';
import { defined } from '../../load/normalize/read.ts';
import { IMPORT_CODES } from '../codes.ts';
import { componentOf, isObject, jsonContent, notCarried, report, resolve, type ImportContext } from './context.ts';
import { bodyComponent, writesPath, writesRecord, type Operation } from './resources.ts';
import { mergeAllOf, objectFields, type SchemaScope } from './schema.ts';
import { namesComponent, recordEnvelopeOf, type Envelope } from './pages.ts';
import { holdsObject } from './records.ts';

/** What the bodies of an operation name, before it is placed under a resource. */
export interface BodySummary {
  /** The component of the first successful JSON response (or its array items). */
  readonly success?: { readonly component: string; readonly array: boolean; readonly envelope?: Envelope };
  /** The component of the JSON request body. */
  readonly request?: string;
}

export function summarize(ctx: ImportContext, op: Operation): BodySummary {
  let success: BodySummary['success'];
  for (const [status, value] of statuses(op)) {
    if (!/^2\d\d$/.test(status)) continue;
    const r = resolve(ctx, value, child(op.pointer, 'responses', status));
    const json = r && jsonContent(r.node.content);
    if (!json) continue;
    success = bodyComponent(ctx, json.schema, child(r.pointer, 'content', json.mediaType, 'schema'));
    break;
  }
  const body = resolve(ctx, op.node.requestBody, child(op.pointer, 'requestBody'));
  const json = body && jsonContent(body.node.content);
  const request = json ? componentOf(json.schema) : undefined;
  return defined({ success, request });
}

/** The responses by status, in numeric order (`default` and ranges last). */
export function statuses(op: Operation): [string, unknown][] {
  const responses = isObject(op.node.responses) ? op.node.responses : {};
  return Object.entries(responses).sort(([a], [b]) => (Number(a) || 1000) - (Number(b) || 1000));
}

/**
 * Whether a response is an error's: 4xx and 5xx, and `default` when the operation lists a
 * status that is no failure, a success or a redirect (then `default` stands for the failures,
 * as Kratos's `303` and `default: errorGeneric`; alone, it is the answer).
 */
export function isErrorResponse(op: Operation, status: string): boolean {
  if (/^[45]/.test(status)) return true;
  return status === 'default' && statuses(op).some(([s]) => /^[23]/.test(s));
}

type RequestReading =
  | { readonly shape: RequestShape; readonly dropped?: readonly string[]; readonly at?: string; readonly requires?: readonly string[]; readonly record?: RequestRecord }
  | { readonly problem: Readonly<Record<string, unknown>>; readonly at: string }
  | undefined;

/** The request body in the format's words, or what keeps it from them. */
function readRequest(scope: SchemaScope, op: Operation, resource: Resource, partial: boolean, creates: boolean): RequestReading {
  const { ctx } = scope;
  if (op.node.requestBody === undefined) return { shape: { kind: 'none' } };
  const body = resolve(ctx, op.node.requestBody, child(op.pointer, 'requestBody'));
  if (!body) return undefined;
  const json = jsonContent(body.node.content);
  const media = Object.keys(isObject(body.node.content) ? body.node.content : {});
  if (!json) return { problem: { shape: media.join(', ') || 'no content', expected: 'JSON' }, at: child(body.pointer, 'content') };
  const outer = child(body.pointer, 'content', json.mediaType, 'schema');
  // The record inside an envelope of one member is the body (./pages.ts recordEnvelopeOf); the resource's `envelope` says so.
  const wrapped = recordEnvelopeOf(ctx, json.schema, outer, true);
  // Only this resource's envelope: `{comment: NewComment}` posted under an article is a comment's.
  // Nor a member the record itself has (`Profile: {id, profile: {bio}}` takes `{profile: {…}}`, its own field).
  const inside = wrapped && !holdsObject(resource, wrapped.member) && ((wrapped.component !== undefined && scope.resources.get(wrapped.component) === resource.name) || namesComponent(wrapped.member, resource.name)) ? wrapped : undefined;
  const schema = inside ? inside.schema : json.schema;
  const at = inside ? inside.at : outer;
  const component = componentOf(schema);
  if (component !== undefined && scope.resources.get(component) === resource.name) return { shape: { kind: 'resource', partial } };
  const r = resolve(ctx, schema, at);
  const node = r ? mergeAllOf(scope, r.node, r.pointer) : undefined;
  const names = node && isObject(node.properties) ? Object.keys(node.properties) : [];
  // The record's id is the client's to send on a create where the client assigns it, and is
  // the record's own in a PUT or PATCH of the record (`PUT /users/{id}` with `{id, name}`, as
  // many documents write a replace); elsewhere a body with an `id` names another record (Box's
  // `POST /files/{file_id}/versions/current` takes the `{id, type}` of a file version).
  const ofTheRecord = (op.method === 'put' || op.method === 'patch') && /\{[^}/]+\}\/?$/.test(op.path.replace(/[?#].*$/, ''));
  const idSent = (creates && resource.id?.assigned === 'client') || ofTheRecord;
  const fields = new Set(resource.fields.filter((f) => f.name !== (resource.id?.field ?? 'id') || idSent).map((f) => f.name));
  // The members its schema requires (3.1's `required` beside a `$ref` included, as resolve merges it).
  const requires = node && Array.isArray(node.required) ? node.required.filter((n): n is string => typeof n === 'string') : [];
  const record = node && r ? { node, at: r.pointer } : undefined;
  if (node && (node.type === 'object' || node.type === undefined) && names.length > 0 && names.every((n) => fields.has(n))) return { shape: { kind: 'fields', fields: names }, requires, ...(record ? { record } : {}) };
  // Most of the record's fields and a few members its records never answer (Lago's add-on create
  // takes `tax_codes`, and answers `taxes`): a write of the fields it shares, the others reported.
  // Only a write's path (./resources.ts writesPath), and never leaving out the id or a member the
  // body requires: without it the service refuses every write the reference or the tester sends.
  const dropped = names.filter((n) => !fields.has(n));
  const droppable = writesPath(op.path) && !dropped.includes(resource.id?.field ?? 'id') && !dropped.some((n) => requires.includes(n));
  if (node && (node.type === 'object' || node.type === undefined) && droppable && writesRecord(names, (n) => fields.has(n))) return { shape: { kind: 'fields', fields: names.filter((n) => fields.has(n)) }, dropped, at, requires, ...(record ? { record } : {}) };
  return { problem: { shape: describeSchema(schema, node), expected: `the resource '${resource.name}' nor some of its fields` }, at };
}

/** Of a body of some of the resource's fields: the members its schema requires; undefined for another body. */
export function requestRequires(scope: SchemaScope, op: Operation, resource: Resource): readonly string[] | undefined {
  const reading = readRequest(scope, op, resource, false, true);
  return reading !== undefined && 'shape' in reading && reading.shape.kind === 'fields' ? reading.requires : undefined;
}

/** A request body's record schema (inside its envelope, allOf merged), with its place. */
export interface RequestRecord {
  readonly node: Record<string, unknown>;
  readonly at: string;
}

/** Of a create taking some fields: its body's record schema, to read what it sends inside each field (records.ts nestedFromCreate). */
export function requestRecord(scope: SchemaScope, op: Operation, resource: Resource): RequestRecord | undefined {
  const reading = readRequest(scope, op, resource, false, true);
  return reading !== undefined && 'shape' in reading && reading.shape.kind === 'fields' ? reading.record : undefined;
}

/** Whether the request body is the resource or some of its fields (a create, replace or update can take it). */
export function requestFits(scope: SchemaScope, op: Operation, resource: Resource, creates: boolean): boolean {
  const reading = readRequest(scope, op, resource, false, creates);
  return reading !== undefined && 'shape' in reading && reading.shape.kind !== 'none';
}

/**
 * Whether the request body is the whole writable record: the resource itself, or a list of
 * fields naming every writable one. A PUT that takes fewer (Box's `PUT /comments/{id}` takes
 * `message` alone) is a partial update in all but its method, not a replace: a replace
 * answers for the fields it was not sent (they are cleared), which such a service never does.
 */
export function requestWhole(scope: SchemaScope, op: Operation, resource: Resource): boolean {
  const reading = readRequest(scope, op, resource, false, false);
  if (reading === undefined || !('shape' in reading)) return false;
  if (reading.shape.kind === 'resource') return true;
  if (reading.shape.kind !== 'fields') return false;
  const sent = new Set(reading.shape.fields);
  return resource.fields.every((f) => f.readOnly || f.name === (resource.id?.field ?? 'id') || sent.has(f.name));
}

/**
 * The request shape, or undefined (reported) when the format cannot say it. `own`: the
 * operation is written as the action of that key, which may take a body of its own shape: an
 * object body that is no record of the resource is written so (./schema.ts objectFields).
 */
export function requestShape(scope: SchemaScope, op: Operation, resource: Resource, partial: boolean, creates: boolean, own?: string): RequestShape | undefined {
  let reading = readRequest(scope, op, resource, partial, creates);
  if (reading === undefined) return undefined;
  // An action keeps a body of its own shape whole: the members a write would drop are ones it needs (a cancel's `reason`).
  if ('shape' in reading && own !== undefined && reading.dropped?.length) reading = { problem: { shape: 'an object', expected: `the resource '${resource.name}' nor some of its fields` }, at: reading.at ?? op.pointer };
  if ('shape' in reading) {
    if (reading.dropped?.length) report(scope.ctx, IMPORT_CODES.requestMembersDropped, { method: op.method.toUpperCase(), path: op.path, resource: resource.name, members: reading.dropped.map((n) => `'${n}'`).join(', '), they: reading.dropped.length === 1 ? 'it is' : 'they are' }, reading.at ?? op.pointer);
    const content = resolve(scope.ctx, op.node.requestBody, child(op.pointer, 'requestBody'))?.node.content;
    if (isObject(content) && Object.keys(content).length > 1) notCarried(scope.ctx, 'media types other than JSON', child(op.pointer, 'requestBody'));
    return reading.shape;
  }
  const where = { what: 'request body', method: op.method.toUpperCase(), path: op.path, resource: resource.name };
  // The body as sent, its envelope member included (an own shape is never enveloped: src/spec/conventions/envelope.ts).
  const body = resolve(scope.ctx, op.node.requestBody, child(op.pointer, 'requestBody'));
  const json = body && jsonContent(body.node.content);
  const outer = json ? child(body!.pointer, 'content', json.mediaType, 'schema') : undefined;
  const fields = own === undefined || outer === undefined ? undefined : ownFields(scope, outer, pointer('endpoints', resource.name, own, 'request', 'fields'), `${resource.name}.${own} request`);
  if (fields) {
    report(scope.ctx, IMPORT_CODES.actionOwnBody, { ...where, shape: String(reading.problem.shape), fields: fields.map((f) => f.name).join(', ') }, reading.at);
    return { kind: 'shape', fields };
  }
  report(scope.ctx, IMPORT_CODES.bodyInexpressible, { ...where, ...reading.problem, done: 'so it is left out' }, reading.at);
  return undefined;
}

/** The fields of an object schema at `at` (a body's), written at `target`; undefined where it is no object with members. */
export function ownFields(scope: SchemaScope, at: string, target: string, label: string): Field[] | undefined {
  const r = resolve(scope.ctx, { $ref: `#${at}` }, at);
  if (!r) return undefined;
  const node = mergeAllOf(scope, r.node, r.pointer);
  if ((node.type !== undefined && node.type !== 'object') || !isObject(node.properties) || Object.keys(node.properties).length === 0) return undefined;
  const fields = objectFields(scope, node, r.pointer, { target, resource: label, label, stack: [] });
  return fields.length ? fields : undefined;
}

/** The responses in the format's words; undefined when none could be written. */
/**
 * The responses of an operation. `action`: the operation is written as an action, which
 * answers a record or nothing, never a page (docs/format.md#actions): an array of the
 * resource's records is reported as a body it cannot carry, written as none (as
 * actionResponses writes it), not as a page.
 */
export function responsesOf(scope: SchemaScope, op: Operation, resource: Resource, action = false, own?: { readonly key: string; fields?: Field[] }): EndpointResponse[] | undefined {
  const { ctx } = scope;
  const out: EndpointResponse[] = [];
  const where = { method: op.method.toUpperCase(), path: op.path };
  const unkeyed: [string, string][] = [];
  for (const [status, value] of statuses(op)) {
    const at = child(op.pointer, 'responses', status);
    if (!/^[1-5]\d\d$/.test(status)) {
      unkeyed.push([status, at]);
      continue;
    }
    const r = resolve(ctx, value, at);
    const description = r && typeof r.node.description === 'string' && r.node.description.trim() ? r.node.description.trim() : undefined;
    const code = Number(status);
    let body: ResponseBody = code >= 400 ? 'error' : 'none';
    const content = r && isObject(r.node.content) ? r.node.content : {};
    if (code < 400 && Object.keys(content).length > 0) {
      const json = jsonContent(content);
      const schemaAt = json ? child(r!.pointer, 'content', json.mediaType, 'schema') : child(r!.pointer, 'content');
      const found = json ? bodyComponent(ctx, json.schema, schemaAt) : undefined;
      if (Object.keys(content).length > 1 && json) notCarried(ctx, 'media types other than JSON', child(r!.pointer, 'content'));
      const records = found !== undefined && scope.resources.get(found.component) === resource.name;
      if (records && !(action && found.array)) {
        body = found.array ? 'page' : 'resource';
        if (found.added?.length) notCarried(ctx, 'members an answer adds to its record (allOf)', schemaAt);
        // An envelope's members are the pagination's to state (./pagination.ts); a bare array is reported here.
        if (found.array && !found.envelope) report(ctx, IMPORT_CODES.listPage, { ...where, resource: resource.name }, schemaAt);
      } else if (action && own && own.fields === undefined && json && (own.fields = ownFields(scope, schemaAt, pointer('endpoints', resource.name, own.key, 'response', 'fields'), `${resource.name}.${own.key} response`))) {
        // An action's answer of its own shape (the first success's): written so, not as none.
        body = 'shape';
        report(ctx, IMPORT_CODES.actionOwnBody, { what: `${status} response`, ...where, resource: resource.name, shape: describeSchema(json.schema, resolve(ctx, json.schema, schemaAt)?.node), fields: own.fields.map((f) => f.name).join(', ') }, schemaAt);
      } else {
        const shape = json ? describeSchema(json.schema, resolve(ctx, json.schema, schemaAt)?.node) : `a ${Object.keys(content).join(', ')} body`;
        report(ctx, IMPORT_CODES.bodyInexpressible, {
          what: `${status} response`, ...where, shape, expected: records ? `a record of '${resource.name}' or nothing, what an action answers (a page is a list's)` : `a record of '${resource.name}', a page of them, or nothing`, done: 'so it is written as none',
        }, schemaAt);
      }
    }
    out.push(defined({ status: code, body, description }));
  }
  const more = out.length === 0 ? '; with no other response, the endpoint keeps the convention\'s responses' : '';
  for (const [key, at] of unkeyed) {
    if (key === 'default') report(ctx, IMPORT_CODES.responseDefault, { ...where, more }, at);
    else report(ctx, IMPORT_CODES.bodyInexpressible, { what: `${key} responses`, ...where, shape: 'a range of statuses', expected: 'one status', done: `so they are left out${more}` }, at);
  }
  return out.length ? out : undefined;
}

/** The parameters the format has no place for: the query's, headers and cookies (path parameters are all carried). */
export function extraParameters(ctx: ImportContext, op: Operation, carried: ReadonlySet<string> = new Set()): void {
  const params = new Map<string, string>();
  const add = (list: readonly unknown[], base: string) => list.forEach((p, i) => {
    const r = resolve(ctx, p, child(base, 'parameters', i));
    if (r && typeof r.node.name === 'string' && typeof r.node.in === 'string') params.set(`${r.node.in} ${r.node.name}`, r.node.in);
  });
  add(op.shared, op.pointer.slice(0, op.pointer.lastIndexOf('/')));
  add(Array.isArray(op.node.parameters) ? op.node.parameters : [], op.pointer);
  // Path parameters are all carried (the record's id, or declared with their shape); so are a list's filters on its fields.
  const extra = [...params.keys()].filter((k) => !k.startsWith('path ') && !carried.has(k));
  if (!extra.length) return;
  const at = Array.isArray(op.node.parameters) && op.node.parameters.length ? child(op.pointer, 'parameters') : op.pointer;
  report(ctx, IMPORT_CODES.parameters, { method: op.method.toUpperCase(), path: op.path, params: extra.join(', ') }, at);
}

/** A schema in a few words, for findings: `an array of Pet`, `a string`, `the schema ApiResponse`. */
function describeSchema(schema: unknown, node: Record<string, unknown> | undefined): string {
  const component = componentOf(schema);
  if (component !== undefined) return `the schema ${component}`;
  if (!node) return 'an unreadable schema';
  if (node.type === 'array') return componentOf(node.items) ? `an array of ${componentOf(node.items)}` : 'an array';
  if (typeof node.type === 'string') return node.type === 'object' && isObject(node.additionalProperties) ? 'a map' : `${/^[aeiou]/.test(node.type) ? 'an' : 'a'} ${node.type}`;
  if (Array.isArray(node.allOf)) return `a combination (allOf) of ${node.allOf.map((s) => componentOf(s) ?? 'an inline schema').join(' and ')}`;
  return 'a schema without a type';
}
