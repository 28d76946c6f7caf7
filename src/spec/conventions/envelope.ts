/**
 * Record envelopes (`resources.<r>.envelope`): a service that sends and answers each record
 * inside one member named for it, `{"article": {…}}` (RealWorld's API, Rails' JSON root,
 * many JSON:API-like services). One definition of where the envelope applies, read by serve
 * (which wraps and unwraps), the tester and the proxy (which expect it), export (which
 * describes it) and import (which finds it):
 *
 *   requests   the bodies that are the record or some of its fields: create, update, replace,
 *              a transition's fields (where it takes any), an action taking the record (`request: resource`)
 *   answers    every answer that is the record (`body: resource`): create, read, update,
 *              replace, a transition, an action answering the record, a delete answering it
 *   bare       a page's items and a bulk write's items (they sit in an array the page or the
 *              bulk body names), an action's body or answer of its own shape, error bodies,
 *              event payloads (their members are the events convention's, ./events.ts)
 *
 * `envelope: { member, requests: bare }` wraps the answers only: the requests send the record
 * bare (Vultr answers `{"instance": {…}}` to a create sent as the instance itself).
 *
 * An enveloped body is an object with that one member; another member beside it is not part
 * of the request (refused like an undeclared field). Decided here, where the format is
 * silent on it: a client that sends the record bare gets a validation error naming the
 * envelope, not a guess that it meant the record.
 */
import type { Endpoint, Resource, Spec } from '../model.ts';
import { isBulk } from '../model.ts';
import { closest } from '../diagnostics.ts';

/** The member the request body of `endpoint` is inside, or undefined when it is sent bare. */
export function requestEnvelope(spec: Pick<Spec, 'resources'>, endpoint: Pick<Endpoint, 'resource' | 'operation' | 'request'>): string | undefined {
  if (isBulk(endpoint.operation)) return undefined;
  if (endpoint.request.kind !== 'resource' && endpoint.request.kind !== 'fields') return undefined;
  // A transition that takes no field takes no body: nothing to envelope (`{}` is as good as none).
  if (endpoint.request.kind === 'fields' && endpoint.request.fields.length === 0) return undefined;
  // `requests: bare`: only the answers are wrapped (Vultr's creates send the record bare).
  if (bareRequests(spec).has(endpoint.resource)) return undefined;
  return envelopeOf(spec, endpoint.resource);
}

/** The resources whose requests send the record bare though their answers wrap it. */
function bareRequests(spec: Pick<Spec, 'resources'>): ReadonlySet<string> {
  let names = bare.get(spec.resources);
  if (!names) bare.set(spec.resources, (names = new Set(spec.resources.filter((r) => r.envelope !== undefined && r.envelopeRequests === 'bare').map((r) => r.name))));
  return names;
}

const bare = new WeakMap<readonly Resource[], ReadonlySet<string>>();

/**
 * The member an answer of `endpoint` with `status` is inside (the record), or undefined. A
 * success at a status the endpoint does not declare is the record where its declared success
 * is: a replace that creates answers 201 (RFC 9110 §9.3.4), which it need not declare.
 */
export function responseEnvelope(spec: Pick<Spec, 'resources'>, endpoint: Pick<Endpoint, 'resource' | 'operation' | 'responses'>, status: number): string | undefined {
  if (isBulk(endpoint.operation)) return undefined;
  const declared = endpoint.responses.find((r) => r.status === status);
  const record = declared ? declared.body === 'resource' : status >= 200 && status < 300 && status !== 204 && endpoint.responses.some((r) => r.status >= 200 && r.status < 300 && r.body === 'resource');
  return record ? envelopeOf(spec, endpoint.resource) : undefined;
}

export function envelopeOf(spec: Pick<Spec, 'resources'>, resource: string): string | undefined {
  // Asked per request by the proxy and the tester: one map per spec's resources, not a search each time.
  let byName = envelopes.get(spec.resources);
  if (!byName) envelopes.set(spec.resources, (byName = new Map(spec.resources.map((r: Resource) => [r.name, r.envelope]))));
  return byName.get(resource);
}

const envelopes = new WeakMap<readonly Resource[], ReadonlyMap<string, string | undefined>>();

/** `{"<member>": record}`. */
export function wrapRecord(member: string, record: unknown): Record<string, unknown> {
  return { [member]: record };
}

/** The JSON text of an enveloped record, from the record's own text (no parse, no copy). */
export function wrapRecordJson(member: string, recordJson: string): string {
  return `{${JSON.stringify(member)}:${recordJson}}`;
}

/** What an enveloped body holds: the record, or why the body is not enveloped as declared. */
export type Unwrapped = { readonly ok: true; readonly record: unknown } | { readonly ok: false; readonly pointer: string; readonly message: string };

/**
 * The record inside an enveloped body. Not an object, the member missing, or another member
 * beside it: not as declared (`pointer` says where, relative to the body).
 */
export function unwrapRecord(member: string, body: unknown): Unwrapped {
  const shown = `{${JSON.stringify(member)}: {…}}`;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, pointer: '', message: `must be an object holding the record in '${member}': ${shown}` };
  // The member missing first: a record sent bare is told where it goes, not that its first field is extra.
  if (!Object.hasOwn(body, member)) {
    // One member a slip away from the envelope's (`articles`, `Article`): said, as a misspelt field is.
    const keys = Object.keys(body);
    const near = keys.length === 1 && closest(keys[0]!, [member]) === member ? `; '${keys[0]}' is not it` : '';
    return { ok: false, pointer: `/${escapePointer(member)}`, message: `is required: the record is sent inside '${member}', ${shown}${near}` };
  }
  const other = Object.keys(body).find((k) => k !== member);
  if (other !== undefined) return { ok: false, pointer: `/${escapePointer(other)}`, message: `is not part of the body: the record is sent inside '${member}', ${shown}` };
  return { ok: true, record: (body as Record<string, unknown>)[member] };
}

/** Pointers into the parts of a request other than its body (`/query/…`, `/path/…`, `/headers/…`), as svcspec's refusals write them. */
const NOT_BODY = /^\/(?:query|path|headers)(?:\/|$)/;

/**
 * A pointer of a refusal into the record, as a pointer into the enveloped body as sent
 * (RFC 6901): `/title` is `/article/title`. Pointers into the query, the path and the
 * headers stay as they are.
 */
export function envelopedPointer(member: string, pointer: string): string {
  return NOT_BODY.test(pointer) ? pointer : `/${escapePointer(member)}${pointer}`;
}

function escapePointer(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
