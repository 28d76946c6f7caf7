/**
 * Record envelopes in the tester's requests and answers (`resources.<r>.envelope`; where they
 * apply: src/spec/conventions/envelope.ts). Every check speaks of the record: the body a check
 * gives is put into the envelope on its way out, and an answer that is the record is read out
 * of it, so no check needs to know of envelopes. The exchange shown in a finding keeps the
 * text as sent and as answered. An answer that is not enveloped as declared is left as it
 * came (the checks reading it fail on it) and is the `<resource>.envelope` check's finding.
 */
import { envelopedPointer, requestEnvelope, responseEnvelope, unwrapRecord, wrapRecord } from '../spec/conventions/envelope.ts';
import type { Endpoint, Spec } from '../spec/model.ts';
import type { Exchange, RequestOptions } from './http.ts';

/** The options of a request to `endpoint`, its body inside the envelope where the endpoint takes one. */
export function envelopedRequest<O extends RequestOptions>(spec: Spec, endpoint: Endpoint | undefined, options: O): O {
  if (!endpoint || options.body === undefined || options.raw) return options;
  const member = requestEnvelope(spec, endpoint);
  return member === undefined ? options : { ...options, body: wrapRecord(member, options.body) };
}

/** The exchange with its answer's record taken out of the envelope, where the answer is the record and is enveloped as declared. */
export function unenvelopedAnswer(spec: Spec, endpoint: Endpoint | undefined, ex: Exchange, sent: RequestOptions): Exchange {
  if (!endpoint) return ex;
  const sentInside = sent.body !== undefined && !sent.raw ? requestEnvelope(spec, endpoint) : undefined;
  const marked = sentInside === undefined ? ex : { ...ex, envelope: sentInside };
  const member = responseEnvelope(spec, endpoint, ex.response.status);
  if (member === undefined) return marked;
  const inside = unwrapRecord(member, ex.response.json);
  return inside.ok ? { ...marked, response: { ...ex.response, json: inside.record } } : marked;
}

/** A pointer into the record, as the refusal of `ex` lists it: into the envelope its body was sent in. */
export function refusedAt(ex: Exchange, pointer: string): string {
  return ex.envelope === undefined ? pointer : envelopedPointer(ex.envelope, pointer);
}

/** The body a check gave for `ex`, as it gave it: parsed, and out of the envelope it was sent in. */
export function sentBody(ex: Exchange): unknown {
  if (ex.request.body === undefined) return undefined;
  const sent: unknown = JSON.parse(ex.request.body);
  if (ex.envelope === undefined) return sent;
  const inside = unwrapRecord(ex.envelope, sent);
  return inside.ok ? inside.record : sent;
}
