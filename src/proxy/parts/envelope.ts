/**
 * Record envelopes on the wire (`resources.<r>.envelope`; where they apply:
 * src/spec/conventions/envelope.ts). A request body and a success answer that are the record
 * are judged as the record inside the member; one not inside it as declared is a finding of
 * its own, and the rest is judged as it came.
 */
import { requestEnvelope, responseEnvelope, unwrapRecord } from '../../spec/conventions/envelope.ts';
import type { Endpoint, Spec } from '../../spec/model.ts';
import type { Exchange } from '../../conformance/http.ts';
import type { RequestProblem } from '../finding.ts';
import type { Found } from '../seen.ts';

/**
 * The request's record out of its envelope, or the problem of a body not enveloped as
 * declared; `member`, the envelope it was sent in, for the pointers of a refusal (serve's are
 * into the body as sent: `/talk/title`).
 */
export function requestRecord(spec: Spec, endpoint: Endpoint, body: unknown): { readonly body: unknown; readonly problem?: RequestProblem; readonly member?: string } {
  const member = body === undefined ? undefined : requestEnvelope(spec, endpoint);
  if (member === undefined) return { body };
  const inside = unwrapRecord(member, body);
  if (inside.ok) return { body: inside.record, member };
  const rule = ruleOf(spec, endpoint.resource, member);
  // Part 2 and at its pointer in the body, as the other findings of a record's request body (./endpoints.ts bodyProblems).
  return { body, problem: { part: 'resources', id: 'request-envelope', situation: 'validation-failed', message: `${inside.pointer || 'the body'} ${inside.message}`, at: inside.pointer, ...rule } };
}

/** The exchange with its answer's record out of the envelope, and the finding of an answer not enveloped as declared. */
export function answerRecord(spec: Spec, endpoint: Endpoint, exchange: Exchange): { readonly exchange: Exchange; readonly found?: Found } {
  const member = responseEnvelope(spec, endpoint, exchange.response.status);
  if (member === undefined || exchange.response.json === undefined) return { exchange };
  const inside = unwrapRecord(member, exchange.response.json);
  if (inside.ok) return { exchange: { ...exchange, response: { ...exchange.response, json: inside.record } } };
  return { exchange, found: { part: 'resources', id: 'envelope', endpoint: endpoint.id, message: `${endpoint.id}: the answer is not the record inside '${member}': ${inside.pointer || 'the body'} ${inside.message}`, ...ruleOf(spec, endpoint.resource, member) } };
}

function ruleOf(spec: Spec, resource: string, member: string): { readonly pointer: string; readonly text: string } {
  const r = spec.resources.find((x) => x.name === resource);
  return { pointer: r ? `${r.pointer}/envelope` : '', text: `${resource}: envelope ${member}` };
}
