/**
 * Part 4 on the wire: a request carries the body its endpoint declares (the resource's
 * writable fields, a transition's required ones, an action's own shape), and the answer
 * is a declared success status with a JSON body of the declared shape: a record of the
 * resource as the version sees it (no writeOnly field, no undeclared member of a closed
 * record, every value of its declared type), a page, an action's shape, a bulk write's items.
 */
import { isBulk, type Endpoint, type Field, type Resource, type Spec } from '../../spec/model.ts';
import { memberPath, pageSettings, readPage, type ReadPage } from '../../spec/conventions/pagination.ts';
import { pointer } from '../../spec/pointer.ts';
import { resourceAt } from '../../spec/conventions/versions.ts';
import { EXPAND_PARAM } from '../../spec/conventions/expand.ts';
import { BULK_ITEMS } from '../../spec/conventions/bulk.ts';
import { successStatuses } from '../../conformance/expect.ts';
import { mediaTypeOf } from '../../conformance/http.ts';
import type { RequestProblem } from '../finding.ts';
import type { Found, Seen } from '../seen.ts';
import { isObject, objectFits, objectProblems, valueProblems, type ValueProblem } from './values.ts';

const JSON_TYPE = /^application\/([\w.+-]+\+)?json$/;

/** The resource as the request's version sees it. */
export function resourceFor(spec: Spec, name: string, version: string | undefined): Resource | undefined {
  const resource = spec.resources.find((r) => r.name === name);
  if (!resource || version === undefined || !spec.versioning.versions.some((v) => v.name === version)) return resource;
  return resourceAt(spec, resource, version);
}

/** What is wrong with a request's body, by its endpoint's request shape. */
/**
 * A body that is not JSON, told by its Content-Type alone (415): so also of a body too large
 * to be held, which the service refuses by its type before it reads it (a Fastify service
 * finds no parser for the type before it counts the bytes).
 */
export function mediaTypeProblem(endpoint: Endpoint, headers: Readonly<Record<string, string>>): RequestProblem | undefined {
  const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (JSON_TYPE.test(type)) return undefined;
  return { part: 'endpoints', id: 'request-media-type', situation: 'unsupported-media-type', message: `the body is '${type || '(no content type)'}', not JSON`, pointer: endpoint.pointer, text: `${endpoint.id}: a JSON body` };
}

export function bodyProblems(spec: Spec, endpoint: Endpoint, resource: Resource | undefined, headers: Readonly<Record<string, string>>, text: string | undefined, body: unknown): RequestProblem[] {
  const request = endpoint.request;
  if (request.kind === 'none' || isBulk(endpoint.operation) || !resource) return [];
  if (text === undefined || text === '') {
    // Listed fields of which none is required (no fields, an update's) may all be left out: serve takes no body so.
    return request.kind === 'fields' && (request.fields.length === 0 || endpoint.operation === 'update') ? [] : [{ part: 'endpoints', id: 'request-body-missing', situation: request.kind === 'resource' && request.partial ? 'validation-failed' : 'validation-failed', message: `${endpoint.id} takes a JSON body; the request has none`, pointer: endpoint.pointer, text: `${endpoint.id}: request ${request.kind}` }];
  }
  const media = mediaTypeProblem(endpoint, headers);
  if (media) return [media];
  if (body === undefined) return [{ part: 'endpoints', id: 'request-malformed', situation: 'malformed-body', message: 'the body is not well-formed JSON', pointer: endpoint.pointer, text: `${endpoint.id}: a JSON body` }];
  if (!isObject(body)) return [{ part: 'endpoints', id: 'request-invalid', situation: 'validation-failed', message: 'the body is not a JSON object', pointer: endpoint.pointer, text: `${endpoint.id}: a JSON object` }];
  // The parent a nested path names fills its ref (src/serve/nesting.ts): no body need carry it.
  const bound = new Set(endpoint.params.flatMap((p) => (p.binding.kind === 'parent' ? [p.binding.field] : [])));
  const required = (fields: readonly Field[]) => (bound.size ? fields.map((f) => (f.required && bound.has(f.name) ? { ...f, required: false } : f)) : fields);
  let found: ValueProblem[];
  if (request.kind === 'shape') {
    found = objectProblems(request.fields, body, '', endpoint.id, true, { required: true, undeclared: true });
  } else if (request.kind === 'fields') {
    // Only the named fields the version has; a transition needs the ones it requires, a create or replace the required ones.
    const fields = request.fields.map((n) => resource.fields.find((f) => f.name === n)).filter((f): f is Field => f !== undefined);
    // An update is a merge patch whichever fields it lists (./values.ts objectProblems).
    found = objectProblems(fields, body, '', resource.name, true, { required: false, undeclared: false, patch: endpoint.operation === 'update' });
    const transition = endpoint.transition ? spec.states.find((m) => m.resource === resource.name)?.transitions.find((t) => t.name === endpoint.transition) : undefined;
    const needed = transition ? transition.requires : ['create', 'replace'].includes(endpoint.operation) ? fields.filter((f) => f.required && !bound.has(f.name)).map((f) => f.name) : [];
    for (const name of needed) if (!(name in body)) found.push({ at: `/${name}`, message: `/${name} is required by ${endpoint.id} and absent`, pointer: transition?.pointer ?? endpoint.pointer, text: `${endpoint.id}: requires ${name}` });
  } else {
    const writable = required(resource.fields.filter((f) => !f.readOnly && !f.managed));
    // An update is a merge patch (RFC 7396): null removes, objects merge (./values.ts objectProblems).
    found = objectProblems(writable, body, '', resource.name, true, { required: !request.partial && endpoint.operation !== 'update', undeclared: false, patch: endpoint.operation === 'update' });
    for (const name of Object.keys(body)) {
      const field = resource.fields.find((f) => f.name === name);
      if (!field && resource.unknownFields === 'refuse') found.push({ at: `/${name}`, message: `/${name} is not a field of ${resource.name}`, pointer: resource.pointer, text: `${resource.name}: no field '${name}'` });
      else if (field && (field.readOnly || field.managed) && resource.readOnlyFields === 'refuse' && name !== (resource.id?.field ?? 'id')) found.push({ at: `/${name}`, message: `/${name} is read-only`, pointer: field.pointer, text: `${resource.name}.${name}: readOnly` });
    }
  }
  return found.map((v) => ({ part: 'resources', id: 'request-invalid', situation: 'validation-failed', message: v.message, pointer: v.pointer || resource.pointer, text: v.text, at: v.at }));
}

/** The answer of a success: a declared status, JSON where it has a body, the declared body (unless `unread`: too large to keep). */
export function successFindings(spec: Spec, x: Seen, endpoint: Endpoint, unread = false): Found[] {
  const out: Found[] = [];
  const ex = x.exchange;
  const status = ex.response.status;
  // RFC 9110 §9.3.4: a PUT that creates the record (a singleton's first replace) answers 201.
  const allowed = endpoint.operation === 'replace' && !endpoint.responses.some((r) => r.status === 201) ? [...successStatuses(endpoint), 201] : successStatuses(endpoint);
  const at = { part: 'endpoints' as const, endpoint: endpoint.id, pointer: endpoint.pointer };
  if (!allowed.includes(status)) out.push({ ...at, id: 'status-undeclared', message: `${endpoint.id} answered ${status}; the spec declares ${allowed.join(' or ')}`, text: `${endpoint.id}: responds ${allowed.join(', ')}` });
  const declared = endpoint.responses.find((r) => r.status === status);
  const kind = declared?.body ?? (endpoint.operation === 'delete' ? 'none' : endpoint.operation === 'list' ? 'page' : endpoint.action?.response.kind ?? 'resource');
  if (status === 204 || kind === 'none' || kind === 'error' || unread) return out;
  if (!JSON_TYPE.test(mediaTypeOf(ex))) {
    out.push({ ...at, id: 'content-type', message: `${endpoint.id} answered with content type '${ex.response.headers['content-type'] ?? '(none)'}', not JSON`, text: `${endpoint.id}: a JSON body` });
    return out;
  }
  const resource = resourceFor(spec, endpoint.resource, x.version?.name);
  if (!resource) return out;
  const expanded = new Set((x.route.query.get(EXPAND_PARAM) ?? '').split(',').map((s) => s.split('.')[0]).filter(Boolean));
  const body = ex.response.json;
  // The records the answer carries, where they stand in it (made into a path only for a record with a finding).
  let records: readonly unknown[] = [];
  let prefix = '';
  if (kind === 'page') {
    const page = readList(spec, endpoint, x.route.query, body, ex.response.headers.link);
    // Where the spec states no pagination, svcspec's page is the runtime's default, not the spec's
    // promise (the tester holds no one to it either): a page of another shape is no finding, and its records go unjudged.
    // A list stating its own page (`page:`) is held to it, and pointed at it, pagination part or not.
    if (typeof page === 'string') {
      if (endpoint.page) out.push({ ...at, id: 'page-shape', message: `${endpoint.id}: ${page}`, pointer: `${endpoint.pointer}/page`, text: `${endpoint.id}: page` });
      else if (spec.limits.pagination) out.push({ ...at, id: 'page-shape', message: `${endpoint.id}: ${page}`, pointer: spec.limits.pagination.pointer, text: 'limits.pagination: the page body' });
    }
    else {
      records = page.items;
      // Where the records stand in the page: the root of a bare array (as readList read it), else the member holding them.
      const settings = pageSettings(spec, endpoint);
      const bare = settings.body.kind === 'array' || (settings.unpaged === 'all' && !x.route.query.has(settings.positionParam));
      prefix = bare ? '' : pointer(...memberPath(settings.body.items));
      const bound = pageBound(spec, x.route.query);
      if (bound && page.items.length > bound.size) {
        const p = pageSettings(spec);
        out.push({ part: 'limits', endpoint: endpoint.id, id: 'page-size', message: `${endpoint.id}: a page of ${page.items.length} records, where ${bound.why}`, pointer: spec.limits.pagination!.pointer, text: `limits.pagination: default ${p.defaultSize}, maximum ${p.maxSize}` });
      }
    }
  } else if (kind === 'items') {
    const items = isObject(body) ? body[BULK_ITEMS] : undefined;
    if (!Array.isArray(items)) out.push({ ...at, id: 'body-shape', message: `${endpoint.id}: the answer has no '${BULK_ITEMS}' list`, text: `${endpoint.id}: { ${BULK_ITEMS}: [records] }` });
    else (records = items), (prefix = `/${BULK_ITEMS}`);
  } else if (kind === 'shape') {
    const fields = endpoint.action?.response.kind === 'shape' ? endpoint.action.response.fields : [];
    if (!isObject(body)) out.push({ ...at, id: 'body-shape', message: `${endpoint.id}: the answer is not a JSON object`, text: `${endpoint.id}: response shape` });
    else for (const p of objectProblems(fields, body, '', endpoint.id, false, { required: true, undeclared: true })) out.push({ ...at, id: 'body-shape', message: `${endpoint.id}: ${p.message}`, pointer: p.pointer || endpoint.pointer, text: p.text });
  } else return recordFits(resource, body, expanded) ? out : [...out, ...recordFindings(resource, body, '', endpoint, expanded)];
  for (let i = 0; i < records.length; i++) if (!recordFits(resource, records[i], expanded)) out.push(...recordFindings(resource, records[i], `${prefix}/${i}`, endpoint, expanded));
  return out;
}

/** A record as a client receives it: an object, no writeOnly field, nothing undeclared (a closed record), values of their declared type. */
export function recordFindings(resource: Resource, value: unknown, at: string, endpoint: Endpoint, expanded: ReadonlySet<string>): Found[] {
  const base = { part: 'resources' as const, endpoint: endpoint.id };
  if (!isObject(value)) return [{ ...base, id: 'record-shape', message: `${endpoint.id}: ${at || 'the body'} is not a ${resource.name} record (a JSON object)`, pointer: resource.pointer, text: `${resource.name}: a record` }];
  const { readable, writeOnly, present } = fieldsOf(resource);
  // An answer holds no undeclared member unless they are kept (`ignore` drops them on the way in).
  const ask = { required: false, undeclared: resource.unknownFields !== 'keep', expanded };
  const out: Found[] = [];
  for (const f of present) {
    if (!(f.name in value)) out.push({ ...base, id: 'record-value', message: `${endpoint.id}: ${at}/${f.name} is required and absent`, pointer: f.pointer, text: `${resource.name}.${f.name}: required` });
  }
  for (const f of writeOnly) {
    if (f.name in value) out.push({ ...base, id: 'write-only-leak', message: `${endpoint.id}: writeOnly '${f.name}' came back at ${at}/${f.name}`, pointer: f.pointer, text: `${resource.name}.${f.name}: writeOnly` });
  }
  for (const p of objectProblems(readable, value, at, resource.name, false, ask)) {
    const hidden = resource.fields.find((f) => f.writeOnly && p.at === `${at}/${f.name}`);
    if (hidden) continue;
    out.push({ ...base, id: p.message.endsWith('is not declared') ? 'record-undeclared-member' : 'record-value', message: `${endpoint.id}: ${p.message}`, pointer: p.pointer || resource.pointer, text: p.text });
  }
  return out;
}

/**
 * Whether recordFindings finds nothing in a record: the compiled check (values.ts objectFits),
 * which makes no finding, path or list, for the records of every answer, most of them fine.
 */
export function recordFits(resource: Resource, value: unknown, expanded: ReadonlySet<string>): boolean {
  if (!isObject(value)) return false;
  const { readable, writeOnly, present } = fieldsOf(resource);
  for (const f of writeOnly) if (f.name in value) return false;
  for (const f of present) if (!(f.name in value)) return false;
  return objectFits(readable, value, { required: false, undeclared: resource.unknownFields !== 'keep', expanded });
}

type FieldList = readonly Resource['fields'][number][];
interface Split {
  readonly readable: FieldList;
  readonly writeOnly: FieldList;
  /**
   * The fields every record holds whatever version wrote it: required of a client on every
   * create, in every version (no since/until), so a record always carries them. Other
   * required fields may be absent from a record another version made (README, Decisions).
   */
  readonly present: FieldList;
}

/** A resource's fields a client may read, those it must never see, and those always there, split once per resource (not per record of every answer). */
const split = new WeakMap<Resource, Split>();
function fieldsOf(resource: Resource): Split {
  let fields = split.get(resource);
  if (!fields) {
    split.set(resource, (fields = {
      readable: resource.fields.filter((f) => !f.writeOnly),
      writeOnly: resource.fields.filter((f) => f.writeOnly),
      present: resource.fields.filter((f) => f.required && !f.writeOnly && !f.readOnly && f.since === undefined && f.until === undefined),
    }));
  }
  return fields;
}

/** The record of a `resource` body of an endpoint's answer, with its id; undefined where the body is no record. */
export function recordOf(resource: Resource, body: unknown): { id: string; record: Record<string, unknown> } | undefined {
  if (!isObject(body)) return undefined;
  const id = body[resource.id?.field ?? 'id'];
  return typeof id === 'string' || typeof id === 'number' ? { id: String(id), record: body } : undefined;
}

export { valueProblems };

/** A list's answer: a page, or (`unpaged: all`, no position asked) every record as a bare array. */
export function readList(spec: Spec, endpoint: Endpoint, query: URLSearchParams, body: unknown, link: string | undefined): ReadPage | string {
  // Three parts read each list answer (endpoints, records, promises), one after the other:
  // the page is read once (the answer's values do not change while it is judged).
  if (last && last.spec === spec && last.endpoint === endpoint && last.query === query && last.body === body && last.link === link) return last.page;
  // A list's own page body (its `page:`) stands in for the part's.
  const settings = pageSettings(spec, endpoint);
  const page = settings.unpaged === 'all' && !query.has(settings.positionParam)
    ? Array.isArray(body) ? { items: body, next: null } : 'the list asked for without a position is not a bare JSON array of every record, as the spec declares (unpaged: all)'
    : readPage(settings, body, link);
  last = { spec, endpoint, query, body, link, page };
  return page;
}

let last: { spec: Spec; endpoint: Endpoint; query: URLSearchParams; body: unknown; link: string | undefined; page: ReadPage | string } | undefined;

/** Query parameters that may well ask a size under another name than the spec's (an imported list's own `per_page`). */
const SIZE_LIKE = /size|limit|count|per_?page|max|top|first|take/i;

/**
 * The most records a page may hold, as the spec states its pagination (none where it is
 * silent: the reference's safety default is no promise): the size asked, else the default;
 * a size above the maximum is clamped to it (or refused, and a page is then wrong anyway).
 * Judged only where the request leaves no doubt: the default only for a first page asked
 * with no size under any name (a later page's cursor may carry the size first asked), a
 * size only when given once as a plain whole number; never with `unpaged: all` and no position.
 */
export function pageBound(spec: Spec, query: URLSearchParams): { readonly size: number; readonly why: string } | undefined {
  if (!spec.limits.pagination) return undefined;
  const settings = pageSettings(spec);
  const { defaultSize, maxSize, stated } = settings;
  if (settings.unpaged === 'all' && !query.has(settings.positionParam)) return undefined;
  const asked = query.getAll(settings.sizeParam);
  if (asked.length === 0) {
    // A default the spec does not state is the runtime's (pageSettings): no promise to judge by.
    if (!stated.defaultSize || query.has(settings.positionParam) || [...query.keys()].some((k) => SIZE_LIKE.test(k))) return undefined;
    return { size: defaultSize, why: `no size was asked and the default is ${defaultSize}` };
  }
  if (asked.length > 1 || !/^[1-9]\d{0,8}$/.test(asked[0]!)) return undefined;
  const n = Number(asked[0]);
  // The size asked bounds the page whatever the spec states; the maximum only where it states one.
  if (stated.maxSize && Number.isFinite(maxSize) && n > maxSize) return { size: maxSize, why: `${n} was asked, above the maximum of ${maxSize}` };
  return { size: n, why: `${settings.sizeParam}=${n} was asked` };
}
