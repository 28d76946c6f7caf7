/**
 * What the endpoints tell of the resources' fields once they are placed: who assigns an id
 * the create does not take, and which schema-required fields a client cannot be held to send.
 */
import { isBulk, type Field, type IdAssignment, type Resource, type Shape } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { IMPORT_CODES } from '../codes.ts';
import { isObject, jsonContent, report, resolve, type ImportContext } from './context.ts';
import { namesComponent, recordEnvelopeOf } from './pages.ts';
import { mergeAllOf } from './schema.ts';
import type { Placed } from './endpoints.ts';
import { idAssignment, idProperties, listOf } from './resources.ts';
import { singular } from './paths.ts';

/**
 * A record without an `id` property whose item paths all name one parameter that is also one
 * of its properties (`/special-events/{eventId}` and `eventId`, Redocly's Museum API) is
 * identified by it: the path says which value finds the record. Otherwise the id stays
 * unwritten (IMPORT_CODES.resourceId).
 */
export function idFromPaths(ctx: ImportContext, r: Resource, placed: readonly Placed[]): Resource {
  if (r.id !== undefined) return r;
  const names = new Set(placed.filter((p) => p.endpoint.resource === r.name && p.idParam !== undefined).map((p) => p.idParam!));
  if (names.size !== 1) return r;
  const [param] = names;
  // `{id}` over records with no `id` member names the one called after its collection (Hydra's
  // `/admin/clients/{id}` and `client_id`).
  // A parameter naming the collection beside the member (Lago's `/customers/{external_customer_id}`
  // and `external_id`) names the member without it.
  const name = param === 'id' ? collectionId(r, placed) ?? param : r.fields.some((f) => f.name === param) ? param : withoutCollection(r, placed, param) ?? param;
  const field = r.fields.find((f) => f.name === name);
  if (!field || (field.type !== 'string' && field.type !== 'integer')) return r;
  const read = idAssignment(field);
  // A create's body leaving it out, or no request carrying it, says the service assigns it (as settleId): said so here, once.
  const { assigned, how } = (read.assigned === 'client' && byService(r, placed, field)) || read;
  const at = placed.find((p) => p.endpoint.resource === r.name && p.idParam === param)!.op.pointer;
  const why = param === name ? `, which its item paths name ({${name}})` : param === 'id' ? `, named after its collection, which its item paths name {${param}}` : `, which its item paths name {${param}} with the collection's name`;
  report(ctx, IMPORT_CODES.resourceIdRead, { resource: r.name, field: name, why, how }, at);
  // An id the service assigns is the service's to set: read-only, as check asks (resource-id-not-readonly).
  return { ...r, id: { field: name, assigned, pointer: child(r.pointer, 'id') }, ...(assigned !== 'client' ? { fields: readOnlyId(r, name) } : {}) };
}

/** Words that qualify an identifier the client or another system gives: `external_id`, `publicId`. */
const ID_QUALIFIERS = ['external', 'public', 'internal', 'global', 'client', 'custom', 'unique'];

/** The member a parameter names with its collection's singular left out (`external_customer_id` under /customers: `external_id`; `externalCustomerId`: `externalId`), where the record has it. */
function withoutCollection(r: Resource, placed: readonly Placed[], param: string): string | undefined {
  const collection = collectionOf(r, placed, param);
  if (collection === undefined) return undefined;
  const one = singular(collection).replace(/[-_](.)/g, (_, c: string) => c.toUpperCase());
  const snake = one.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const pascal = one.charAt(0).toUpperCase() + one.slice(1);
  // Only after a word that qualifies an identifier (`external`, `public`): `team_member_id` under
  // /members is a member's id in a team, and `team_id` the team's, not the member's.
  const qualified = new RegExp(`^(${ID_QUALIFIERS.join('|')})(?:_${snake}_id|${pascal}Id)$`).exec(param);
  if (!qualified) return undefined;
  const candidate = param.startsWith(`${qualified[1]}_`) ? `${qualified[1]}_id` : `${qualified[1]}Id`;
  return r.fields.some((f) => f.name === candidate) ? candidate : undefined;
}

/** The member `<singular of the collection>_id` or `…Id` (`client_id` under `/clients/{id}`), where the record has one. */
function collectionId(r: Resource, placed: readonly Placed[]): string | undefined {
  const collection = collectionOf(r, placed, 'id');
  if (collection === undefined) return undefined;
  const one = singular(collection);
  return [`${one}_id`, `${one}Id`].find((n) => r.fields.some((f) => f.name === n));
}

/** The literal segment before the record's parameter in the document's item path (`customers` in `/customers/{external_customer_id}`). */
function collectionOf(r: Resource, placed: readonly Placed[], param: string): string | undefined {
  const item = placed.find((p) => p.endpoint.resource === r.name && p.idParam === param);
  const segments = item?.op.path.split('/').filter(Boolean) ?? [];
  const collection = segments[segments.findIndex((s) => s === `{${param}}`) - 1];
  return collection === undefined || collection.startsWith('{') ? undefined : collection;
}

/**
 * Who assigns an `id` property (resources.ts idOf), said once (IMPORT_CODES.resourceIdRead): a
 * writable, required one reads as given by the client, unless the create takes only other
 * fields (petstore-expanded's `NewPet`), or no request of the document carries it at all (a
 * resource with no create, Kratos's sessions): then the service assigns it, as an integer
 * (sequence) or text (service), and it is read-only, as check asks of such an id.
 */
export function settleId(ctx: ImportContext, r: Resource, placed: readonly Placed[]): Resource {
  const at = idProperties(ctx).get(r.name);
  if (r.id === undefined || at === undefined || r.id.field !== 'id') return r;
  const field = r.fields.find((f) => f.name === 'id');
  let how = field ? idAssignment(field).how : '';
  let out = r;
  const service = r.id.assigned === 'client' && field ? byService(r, placed, field) : undefined;
  if (service) {
    how = service.how;
    out = { ...r, id: { ...r.id, assigned: service.assigned }, fields: readOnlyId(r, 'id') };
  }
  report(ctx, IMPORT_CODES.resourceIdRead, { resource: r.name, field: 'id', why: '', how }, at);
  return out;
}

/** Whether no endpoint of the resource takes a body that may hold `field`: none takes the record, none lists it. */
function noRequestCarries(r: Resource, placed: readonly Placed[], field: string): boolean {
  return placed.every((p) => p.endpoint.resource !== r.name || p.endpoint.request.kind === 'none' || (p.endpoint.request.kind === 'fields' && !p.endpoint.request.fields.includes(field)) || p.endpoint.operation === 'action');
}

/** Whether the resource's create lists the fields it takes, without `field`. */
function createOmits(r: Resource, placed: readonly Placed[], field: string): boolean {
  const create = placed.find((p) => p.endpoint.resource === r.name && p.endpoint.operation === 'create')?.endpoint;
  return create !== undefined && create.request.kind === 'fields' && !create.request.fields.includes(field);
}

/**
 * The service's assignment of an id the client cannot give: the create's body leaves it out, or
 * no request of the document carries it. Undefined where a request does carry it. An integer is
 * a sequence; a uuid-format text a uuid; other text the service's own.
 */
function byService(r: Resource, placed: readonly Placed[], field: Field): { readonly assigned: IdAssignment; readonly how: string } | undefined {
  const why = createOmits(r, placed, field.name) ? "the create's body leaves it out" : noRequestCarries(r, placed, field.name) ? 'no request of the document carries it' : undefined;
  if (why === undefined) return undefined;
  const assigned: IdAssignment = field.type === 'integer' ? 'sequence' : field.format === 'uuid' ? 'uuid' : 'service';
  return { assigned, how: `${why}, so the service assigns it (${assigned})` };
}

function readOnlyId(r: Resource, name: string): Field[] {
  return r.fields.map((f) => (f.name === name ? { ...f, readOnly: true, required: false } : f));
}

/**
 * A required field the create's body leaves out is not the client's to send: OpenAPI
 * schemas shared by requests and responses say `required` of the answer (Box's `type`,
 * "always `group`", which its `POST /groups` does not take). In the format, `required` is
 * what a client must send on create and replace, so such a field is written optional and
 * reported; else every record the create makes would break its own resource, and the first
 * update of it would be refused.
 */
export function optionalWhenCreateOmits(ctx: ImportContext, r: Resource, placed: readonly Placed[]): Resource {
  const create = placed.find((p) => p.endpoint.resource === r.name && p.endpoint.operation === 'create');
  if (!create || create.endpoint.request.kind !== 'fields') return r;
  const taken = new Set(create.endpoint.request.fields);
  const relaxable = r.fields.filter((f) => f.required && !f.readOnly && !f.hasDefault && f.name !== r.id?.field);
  const omitted = relaxable.filter((f) => !taken.has(f.name));
  // Taken, but not required by the create's own schema (Lago's input requires its name and code, its
  // answer also its description): the client may leave it out, as the create's schema says.
  const requires = create.requires === undefined ? undefined : new Set(create.requires);
  const optional = requires === undefined ? [] : relaxable.filter((f) => taken.has(f.name) && !requires.has(f.name));
  if (!omitted.length && !optional.length) return r;
  const where = { resource: r.name, method: create.op.method.toUpperCase(), path: create.op.path };
  if (omitted.length) report(ctx, IMPORT_CODES.requiredNotSent, { ...where, fields: listOf(omitted.map((f) => `'${f.name}'`)) }, child(create.op.pointer, 'requestBody'));
  if (optional.length) report(ctx, IMPORT_CODES.requiredOptionalOnCreate, { ...where, fields: listOf(optional.map((f) => `'${f.name}'`)), them: optional.length === 1 ? 'it' : 'them' }, child(create.op.pointer, 'requestBody'));
  const names = new Set([...omitted, ...optional].map((f) => f.name));
  return { ...r, fields: r.fields.map((f) => (names.has(f.name) ? { ...f, required: false } : f)) };
}

/**
 * What a create sends inside a field of objects (Lago's customer `metadata: [{key, value}]`)
 * against what the records answer there (`[{lago_id, key, value}]`): a member the create's
 * body does not have is the service's to set, written read-only and optional (the tester then sends none,
 * and the reference neither requires nor takes it); one the records require and the create's
 * body does not is written optional, as a top-level field is (optionalWhenCreateOmits).
 * Without this, every create the tester sent carried a `lago_id` of its own, and a faithful
 * implementation answering its own id failed the read back.
 */
export function nestedFromCreate(ctx: ImportContext, r: Resource, placed: readonly Placed[]): Resource {
  const create = placed.find((p) => p.endpoint.resource === r.name && p.endpoint.operation === 'create' && p.body !== undefined);
  if (!create?.body || create.endpoint.request.kind !== 'fields') return r;
  const taken = new Set(create.endpoint.request.fields);
  const sent = isObject(create.body.node.properties) ? create.body.node.properties : {};
  const changed = { readOnly: [] as string[], optional: [] as string[] };
  const fields = r.fields.map((f) => {
    if (!taken.has(f.name) || f.readOnly || !(f.name in sent)) return f;
    const at = child(create.body!.at, 'properties', f.name);
    typeSent(ctx, r, f, sent[f.name], at, create);
    return nestedShape(ctx, f, sent[f.name], at, f.name, changed);
  });
  const where = { resource: r.name, method: create.op.method.toUpperCase(), path: create.op.path };
  if (changed.readOnly.length) report(ctx, IMPORT_CODES.nestedServiceSet, { ...where, members: listOf(changed.readOnly.map((m) => `'${m}'`)) }, child(create.op.pointer, 'requestBody'));
  // Made optional, as a top-level field the create takes without requiring it is (optionalWhenCreateOmits).
  if (changed.optional.length) report(ctx, IMPORT_CODES.requiredOptionalOnCreate, { ...where, fields: listOf(changed.optional.map((m) => `'${m}'`)), them: changed.optional.length === 1 ? 'it' : 'them' }, child(create.op.pointer, 'requestBody'));
  return changed.readOnly.length || changed.optional.length ? { ...r, fields } : r;
}

/**
 * A field the create sends as another type than its records answer (Lago's tax `rate`, sent as
 * the text `"20.0"`, answered as the number 20.0): the format has one type a field, the
 * answer's is written, and the difference is said where the create's schema gives it, since a
 * client sending the document's text is refused and the tester sends numbers.
 */
function typeSent(ctx: ImportContext, r: Resource, f: Field, schema: unknown, at: string, create: Placed): void {
  const s = resolve(ctx, schema, at);
  const types = s ? (Array.isArray(s.node.type) ? s.node.type : [s.node.type]).filter((t): t is string => typeof t === 'string' && t !== 'null') : [];
  // A ref's and an `any` field's values are not of one JSON type: nothing to compare.
  const answered = f.type === 'ref' || f.type === 'any' ? undefined : f.type === 'integer' ? ['integer', 'number'] : [f.type];
  if (!s || types.length !== 1 || !answered || answered.includes(types[0]!) || (types[0] === 'integer' && f.type === 'number')) return;
  report(ctx, IMPORT_CODES.fieldTypeSent, { resource: r.name, field: f.name, method: create.op.method.toUpperCase(), path: create.op.path, sent: types[0]!, answered: f.type }, s.pointer);
}

/** A field's members (an object's, an array's items') against the schema a create sends for it; `changed` collects the paths of those set by the service, and of those made optional. */
function nestedShape<T extends Shape>(ctx: ImportContext, shape: T, schema: unknown, at: string, path: string, changed: { readOnly: string[]; optional: string[] }): T {
  const r = resolve(ctx, schema, at);
  if (!r) return shape;
  const node = mergeAllOf({ ctx, resources: new Map() }, r.node, r.pointer);
  if (shape.type === 'array' && shape.items) return { ...shape, items: nestedShape(ctx, shape.items, node.items, child(r.pointer, 'items'), `${path}[]`, changed) };
  if (shape.type !== 'object' || !shape.properties || !isObject(node.properties)) return shape;
  const sent = node.properties;
  const requires = new Set(Array.isArray(node.required) ? node.required : []);
  // A body sending none of the members says nothing of them (an open object): nothing is read from it.
  if (!shape.properties.some((p) => p.name in sent)) return shape;
  const properties = shape.properties.map((p): Field => {
    if (p.readOnly) return p;
    if (!(p.name in sent)) {
      changed.readOnly.push(`${path}.${p.name}`);
      // `required` is the client's duty on create (docs/format.md): the service's member is not.
      return { ...p, readOnly: true, required: false };
    }
    const inner = nestedShape(ctx, p, sent[p.name], child(r.pointer, 'properties', p.name), `${path}.${p.name}`, changed);
    if (!inner.required || requires.has(p.name)) return inner;
    changed.optional.push(`${path}.${p.name}`);
    return { ...inner, required: false };
  });
  return { ...shape, properties };
}

/**
 * The envelope of a resource's records (`{"article": {…}}`, ./pages.ts recordEnvelopeOf), from
 * the bodies that are its record: the requests that send it or some of its fields, and the
 * answers that are it. The member most of them use is written; one wrapped otherwise, or not
 * at all, is reported (the format has one envelope a resource, src/spec/conventions/envelope.ts).
 */
export function envelopeFromBodies(ctx: ImportContext, r: Resource, placed: readonly Placed[]): Resource {
  const seen: { member: string | undefined; method: string; path: string; at: string; request: boolean }[] = [];
  for (const { op, endpoint } of placed) {
    if (endpoint.resource !== r.name || isBulk(endpoint.operation)) continue;
    const where = { method: op.method.toUpperCase(), path: op.path };
    if (endpoint.request.kind === 'resource' || endpoint.request.kind === 'fields') {
      const body = resolve(ctx, op.node.requestBody, child(op.pointer, 'requestBody'));
      const json = body && jsonContent(body.node.content);
      if (json) {
        const at = child(body.pointer, 'content', json.mediaType, 'schema');
        // A request's record schema is often its own (NewArticle): its member names the resource (`article`).
        const wrapped = recordEnvelopeOf(ctx, json.schema, at, true);
        seen.push({ member: wrapped && namesComponent(wrapped.member, r.name) && !holdsObject(r, wrapped.member) ? wrapped.member : undefined, ...where, at, request: true });
      }
    }
    for (const response of endpoint.responses) {
      if (response.body !== 'resource') continue;
      const responses = isObject(op.node.responses) ? op.node.responses : {};
      const answer = resolve(ctx, responses[String(response.status)], child(op.pointer, 'responses', String(response.status)));
      const json = answer && jsonContent(answer.node.content);
      if (!json) continue;
      const at = child(answer.pointer, 'content', json.mediaType, 'schema');
      seen.push({ member: recordEnvelopeOf(ctx, json.schema, at)?.member, ...where, at, request: false });
    }
  }
  const counts = new Map<string | undefined, number>();
  for (const s of seen) counts.set(s.member, (counts.get(s.member) ?? 0) + 1);
  const member = [...counts].filter(([m]) => m !== undefined).sort((a, b) => b[1] - a[1])[0]?.[0];
  if (member === undefined) return r;
  const first = seen.find((s) => s.member === member)!;
  // Every request bare and the answers wrapped (Vultr: a create sends the instance, and answers
  // `{"instance": {…}}`): the format says so (`requests: bare`); the two sides are judged apart,
  // so an answer left bare is a difference of its own, not a reason to wrap the requests.
  const requests = seen.filter((s) => s.request);
  const bareRequests = requests.length > 0 && requests.every((s) => s.member === undefined);
  report(ctx, IMPORT_CODES.recordEnvelope, { resource: r.name, member, example: `${first.method} ${first.path}`, how: bareRequests ? 'answered inside' : 'sent and answered inside' }, first.at);
  const said = new Set<string>();
  for (const s of bareRequests ? seen.filter((x) => !x.request) : seen) {
    const other = s.member === undefined ? 'bare' : `inside '${s.member}'`;
    const key = `${s.method} ${s.path} ${other}`;
    if (s.member === member || said.has(key)) continue;
    said.add(key);
    report(ctx, IMPORT_CODES.recordEnvelopeMixed, { resource: r.name, member, other, method: s.method, path: s.path }, s.at);
  }
  return bareRequests ? { ...r, envelope: member, envelopeRequests: 'bare' } : { ...r, envelope: member };
}

/**
 * Whether the record has an object field of this name (`Profile: {id, profile: {bio}}` taking
 * `{profile: {…}}`): a body of that one member is the field, not the record in an envelope. A
 * field of another type (an ssh key's text `ssh_key`) leaves `{ssh_key: {…}}` the envelope.
 */
export function holdsObject(r: Resource, member: string): boolean {
  return r.fields.some((f) => f.name === member && (f.type === 'object' || f.type === 'any'));
}
