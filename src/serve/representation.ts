/**
 * What a client sees of a stored record, shared by resources (2), states (3) and the list
 * operation: the JSON body, the ETag, the Location. Small and pure: no store, no request.
 *
 *   present(resource, record)   the body: writeOnly fields never, the id typed as the API types it
 *   etagOf(record)              a strong entity tag `"<version>-<hash>"` (RFC 9110 §8.8.3)
 *   locationOf(resource, …)     where the record is read (its read endpoint's path), relative to {base_url}
 *   idOf(resource)              the id field and how it is assigned
 *   Outcome                     a response as data (status, headers, body), so it can be replayed
 *
 * A resource may be one version's view of the spec's resource (part 9, declareView; built by
 * src/spec/conventions/versions.ts): it declares only the fields of its version. The stored
 * record holds the fields of every version; present() shows only the view's, replace keeps
 * the others (keepUnseen), and a path-selected version puts its prefix before Locations.
 */
import type { Endpoint, Field, Resource, Shape } from '../spec/model.ts';
import { fillRecordPath } from '../spec/conventions/paths.ts';
import { apiId, idOf, type IdRule } from '../spec/conventions/ids.ts';
import { wrapRecord, wrapRecordJson } from '../spec/conventions/envelope.ts';
import type { ListedRecord, StoredRecord } from '../store/store.ts';

/** A response as data: handlers return it, the idempotency layer stores and replays it. */
export interface Outcome {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON value, or JsonText; undefined for no body (204, 304). */
  readonly body?: unknown;
}

/**
 * A JSON body serialized already (a record's stored text, a page built as text): sent as
 * it is, and stored as it is for an idempotent replay.
 */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** The media type Fastify gives a serialized object; JsonText bodies are sent with the same. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The text of a JSON body: JsonText as it is, any other value serialized. */
export function jsonOf(body: unknown): string {
  return body instanceof JsonText ? body.text : JSON.stringify(body);
}

/**
 * The JSON body of a record: the id first, then the fields in declared order, writeOnly ones
 * left out, and so are the fields of other versions when the resource is a version's view.
 */
export function present(resource: Resource, record: ListedRecord): Record<string, unknown> {
  const { rule, project } = presenterOf(resource);
  // The hot path of every read and list: nothing to strip, the stored order is the declared one.
  // Built by assignment: a literal with a computed key and a spread after it is made by the
  // runtime, member by member (an event's payload of every create paid it: callgrind, ~30K
  // instructions). A member named __proto__ is defined as the spread defines it, not assigned.
  if (!project) {
    const data = record.data;
    if (Object.hasOwn(data, '__proto__')) return { [rule.field]: apiId(rule, record.id), ...data };
    const out: Record<string, unknown> = {};
    out[rule.field] = apiId(rule, record.id);
    return Object.assign(out, data);
  }
  return project(record.data, { [rule.field]: apiId(rule, record.id) });
}

/**
 * present(resource, record) as JSON text. When the record's stored text is at hand and the
 * presenter shows the stored data as it is (no writeOnly field, nothing of another version),
 * the id is put in front of that text: no parse, no serialization. The stored text is
 * JSON.stringify's own, so this is byte for byte what serializing present() gives. A text
 * that might hold a member named like the id (a spec whose id field changed) takes the
 * general way, as does any other record.
 */
export function presentJson(resource: Resource, record: ListedRecord): string {
  return presentWith(presenterOf(resource), resource, record);
}

/**
 * The records of a page as presentJson gives each, comma-separated: the items of a list body,
 * between `head` and `tail` (the body's text before and after its items). Joined once, head
 * and tail with them: `+=` makes a rope of slices, and a text added around the joined items
 * another, each of which the socket write copies out flat again before it writes.
 */
export function presentJsonList(resource: Resource, records: readonly ListedRecord[], head = '', tail = '', plain = false): string {
  const p = presenterOf(resource);
  const items: string[] = new Array(records.length);
  if (p.project || p.rule.type === 'integer') {
    for (let i = 0; i < records.length; i++) items[i] = presentWith(p, resource, records[i]!);
    return joined(head, items, tail);
  }
  // `plain`: the store vouches for every record of the page (ListResult `plain`): each id
  // needs no escape, no stored text holds the id's member; neither is checked.
  if (plain) {
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const json = record.json;
      items[i] = json === undefined ? JSON.stringify(present(resource, record)) : textItem(p, record.id, json);
    }
    return joined(head, items, tail);
  }
  // String ids, the common case: each put in quotes as it is, and all of them checked at the
  // end in one call into the serializer: JSON.stringify of the ids is exactly as long as the
  // ids in quotes, commas and brackets only if none of them needs an escape. Checked one by
  // one (jsonString), they were a tenth of a page's instructions (callgrind: ~1.2K a
  // 36-character UUID, charCodeAt by charCodeAt).
  const ids: string[] = new Array(records.length);
  let chars = 0;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const json = record.json;
    const id = record.id;
    ids[i] = id;
    chars += id.length;
    items[i] = json === undefined || holdsKey(json, p.idTail) ? JSON.stringify(present(resource, record)) : textItem(p, id, json);
  }
  // An id that needs an escape (rare: ids are UUIDs, numbers, slugs): the page record by record.
  if (ids.length > 0 && JSON.stringify(ids).length !== chars + 3 * ids.length + 1) for (let i = 0; i < records.length; i++) items[i] = presentWith(p, resource, records[i]!);
  return joined(head, items, tail);
}

/** An item of a page: the string id, in quotes as it is, in front of the record's stored text. */
function textItem(p: Presenter, id: string, json: string): string {
  return json.length <= 2 ? `${p.open}${id}"}` : `${p.open}${id}",${json.slice(1)}`;
}

/** head, the items comma-separated, tail: one flat string (join copies each piece once). */
function joined(head: string, items: string[], tail: string): string {
  const last = items.length - 1;
  if (last < 0) return head + tail;
  items[0] = head + items[0]!;
  items[last] = items[last]! + tail;
  return items.join(',');
}

function presentWith(p: Presenter, resource: Resource, record: ListedRecord): string {
  const json = record.json;
  if (p.project || json === undefined || holdsKey(json, p.idTail)) return JSON.stringify(present(resource, record));
  const id = apiId(p.rule, record.id);
  const head = `{${p.idKey}${typeof id === 'string' ? jsonString(id) : id}`;
  return json.length <= 2 ? `${head}}` : `${head},${json.slice(1)}`;
}

/**
 * Whether the JSON text holds `"<name>":` (the id's key: the general way then). Searched
 * for from its second character, rarer than the quote that starts every member and string:
 * a search for `"id":` stops at each of them (about 4x the cost of this on a page's records).
 */
function holdsKey(json: string, tail: string): boolean {
  for (let i = json.indexOf(tail, 1); i >= 0; i = json.indexOf(tail, i + 1)) if (json.charCodeAt(i - 1) === 0x22) return true;
  return false;
}

/**
 * What JSON.stringify escapes in a string (RFC 8259 §7; lone surrogates too, as \u escapes
 * since ES2019): any surrogate is taken for one, paired or not (a regular expression without
 * the u flag sees code units), and JSON.stringify decides.
 */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * JSON.stringify(s) for a string (RFC 8259 §7): quoted as it is when nothing in it needs an
 * escape (an id almost always), which spares a call into the serializer per record.
 */
export function jsonString(s: string): string {
  // One regular-expression pass: a charCodeAt loop costs about twice its instructions.
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** A version's view of a resource: the spec's resource it is cut from, and the version's path prefix. */
export interface ViewOf {
  readonly base: Resource;
  /** The name of the version. */
  readonly version: string;
  /** Put before Locations: `/v1` when the version is selected by a path prefix, else ''. */
  readonly prefix: string;
}

const views = new WeakMap<Resource, ViewOf>();

/** What `resource` is a view of, if it is one. */
export function viewOf(resource: Resource): ViewOf | undefined {
  return views.get(resource);
}

/** Declares `view` a version's view of `of.base`; at start-up, before it presents any record. */
export function declareView(view: Resource, of: ViewOf): void {
  views.set(view, of);
  presenters.delete(view);
}

/**
 * For replace (PUT) in a version: members of the stored record that the version does not
 * see (fields of other versions, at any depth) are copied into the new data, so a client
 * of one version never erases what clients of another wrote. Objects present on both sides
 * are walked; a list is replaced whole, as a merge patch replaces it (RFC 7396 §2).
 */
export function keepUnseen(resource: Resource, stored: Readonly<Record<string, unknown>>, next: Record<string, unknown>): void {
  const view = views.get(resource);
  if (view) restore(resource.fields, view.base.fields, stored, next);
}

function restore(fields: readonly Field[], all: readonly Field[], stored: Readonly<Record<string, unknown>>, next: Record<string, unknown>): void {
  if (fields === all) return; // views.ts copies only what hides something
  for (const a of all) {
    const f = fields.find((x) => x.name === a.name);
    if (!f) {
      if (a.name in stored) next[a.name] = structuredClone(stored[a.name]);
    } else if (f.properties && a.properties && isObject(stored[a.name]) && isObject(next[a.name])) {
      restore(f.properties, a.properties, stored[a.name] as Record<string, unknown>, next[a.name] as Record<string, unknown>);
    }
  }
}

/**
 * The stored data less what a version does not see (writeOnly members kept), for checking a
 * merged record against the version's rules; undefined when the version sees every field.
 */
export function unseenDropped(resource: Resource): Projector | undefined {
  const view = views.get(resource);
  return view && projector(resource.fields, view.base.fields, false);
}

/** Copies the members to show into `out`; compiled once per resource (or view). */
export type Projector = (data: Readonly<Record<string, unknown>>, out?: Record<string, unknown>) => Record<string, unknown>;

interface Presenter {
  readonly rule: IdRule;
  /** `"id":`, the id member's key as it starts in JSON text. */
  readonly idKey: string;
  /** idKey without its opening quote (see holdsKey). */
  readonly idTail: string;
  /** `{"id":"`: an item of a page up to its string id, made once (each `+` of a page's items makes a string of its own). */
  readonly open: string;
  /** Undefined when the stored data is shown as it is: no writeOnly field, nothing of another version. */
  readonly project?: Projector;
  readonly prefix: string;
}

const presenters = new WeakMap<Resource, Presenter>();

function presenterOf(resource: Resource): Presenter {
  let p = presenters.get(resource);
  if (!p) {
    const view = views.get(resource);
    const rule = idOf(resource);
    const project = projector(resource.fields, view?.base.fields ?? resource.fields, true, rule.field);
    const idKey = `${JSON.stringify(rule.field)}:`;
    presenters.set(resource, (p = { rule, idKey, idTail: idKey.slice(1), open: `{${idKey}"`, prefix: view?.prefix ?? '', ...(project ? { project } : {}) }));
  }
  return p;
}

/**
 * The members of `fields` in declared order, each projected in depth; the members of `all`
 * that `fields` leaves out (another version's) and, with dropWriteOnly, writeOnly ones are
 * dropped. Members no field declares (a field removed from the spec since the record was
 * written) stay visible. Undefined when there is nothing to drop at any depth.
 */
function projector(fields: readonly Field[], all: readonly Field[], dropWriteOnly: boolean, skip?: string): Projector | undefined {
  const dropped = new Set<string>();
  if (all !== fields) for (const a of all) if (!fields.some((f) => f.name === a.name)) dropped.add(a.name);
  const members: { readonly name: string; readonly inner?: (value: unknown) => unknown }[] = [];
  let needed = dropped.size > 0;
  for (const f of fields) {
    if (f.name === skip) continue;
    if (dropWriteOnly && f.writeOnly) {
      dropped.add(f.name);
      needed = true;
      continue;
    }
    const inner = valueProjector(f, all.find((a) => a.name === f.name) ?? f, dropWriteOnly);
    if (inner) needed = true;
    members.push(inner ? { name: f.name, inner } : { name: f.name });
  }
  if (!needed) return undefined;
  return (data, out = {}) => {
    for (const m of members) if (m.name in data) out[m.name] = m.inner ? m.inner(data[m.name]) : data[m.name];
    for (const k of Object.keys(data)) if (!(k in out) && !dropped.has(k)) out[k] = data[k];
    return out;
  };
}

/** Nested objects (and objects inside lists) are projected too. */
function valueProjector(shape: Shape, base: Shape, dropWriteOnly: boolean): ((value: unknown) => unknown) | undefined {
  if (shape.type === 'object' && shape.properties) {
    const p = projector(shape.properties, base.properties ?? shape.properties, dropWriteOnly);
    return p && ((v) => (isObject(v) ? p(v) : v));
  }
  if (shape.type === 'array' && shape.items) {
    const p = valueProjector(shape.items, base.items ?? shape.items, dropWriteOnly);
    return p && ((v) => (Array.isArray(v) ? v.map(p) : v));
  }
  return undefined;
}

/**
 * A strong entity tag (RFC 9110 §8.8.3): the record's insertion sequence and version. The
 * version changes on every write, so the tag does; the sequence is never reused, so a record
 * deleted and re-created under the same client id never matches a tag of its predecessor.
 * Opaque to clients; compared as a whole. No hashing: it is on the path of every response.
 */
export function etagOf(record: StoredRecord): string {
  return `"${record.seq.toString(36)}.${record.version.toString(36)}"`;
}

/**
 * The Location of a record (RFC 9110 §10.2.2, a reference relative to {base_url}): the path
 * of `address`, the endpoint that reads it (src/spec/conventions/paths.ts recordAddress),
 * filled with its id and its parents' refs, after a path-selected version's prefix.
 * undefined where nothing reads it, or a parent's ref is not set.
 */
export function locationOf(resource: Resource, record: StoredRecord, address: Endpoint | undefined): string | undefined {
  if (address === undefined) return undefined;
  const p = presenterOf(resource);
  const path = fillRecordPath(address, apiId(p.rule, record.id), record.data);
  return path === undefined ? undefined : `${p.prefix}${path}`;
}

/** The usual answer with a record: its body, its ETag, and a Location when it was created (where `address` reads it). */
export function recordOutcome(resource: Resource, record: StoredRecord, status = 200, address?: Endpoint): Outcome {
  const etag = etagOf(record);
  const location = status === 201 ? locationOf(resource, record, address) : undefined;
  const headers: Record<string, string> = location === undefined ? { etag } : { etag, location };
  return { status, headers, body: recordBody(resource, presentJson(resource, record)) };
}

/**
 * An answer that is the record, from its JSON text: inside the resource's envelope where it
 * has one (`{"article": {…}}`, src/spec/conventions/envelope.ts); a page's items stay bare.
 */
export function recordBody(resource: Resource, json: string): JsonText {
  return new JsonText(resource.envelope === undefined ? json : wrapRecordJson(resource.envelope, json));
}

/** recordBody for a record already presented as an object (an expanded read, a handler's answer). */
export function recordObject(resource: Resource, record: Record<string, unknown>): Record<string, unknown> {
  return resource.envelope === undefined ? record : wrapRecord(resource.envelope, record);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
