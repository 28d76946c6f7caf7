/**
 * What a webhook delivery carries (docs/events.md "The delivery"): the Standard Webhooks
 * payload structure `{type, timestamp, data}`, or, when the spec asks for CloudEvents, a
 * CloudEvents 1.0 event in structured mode (https://github.com/cloudevents/spec, "JSON Event
 * Format"; `application/cloudevents+json`). The text is the same on every retry.
 */
import type { Spec } from '../../spec/model.ts';
import type { EventRecord } from '../../store/events.ts';
import { UNVERSIONED } from './emit.ts';
import { webhookBody } from '../../spec/conventions/events.ts';

export interface Envelope {
  readonly contentType: string;
  readonly text: string;
}

/** The event's id everywhere: stream `id:`, `webhook-id`, CloudEvents `id`. */
export function eventId(seq: number): string {
  return `evt_${seq}`;
}

/** The event's payload in an API version, or undefined when the event is not in it. */
export function payloadIn(event: EventRecord, version: string | undefined): unknown {
  const key = version ?? UNVERSIONED;
  return Object.hasOwn(event.payloads, key) ? event.payloads[key] : undefined;
}

export function envelope(spec: Spec, event: EventRecord, version: string | undefined): Envelope {
  const data = payloadIn(event, version) ?? null;
  const time = new Date(event.createdAt).toISOString();
  if (spec.events.webhooks?.cloudEvents) {
    const resource = spec.resources.find((r) => r.name === event.resource);
    const source = `/${resource?.plural ?? event.resource}`;
    const ce = { specversion: '1.0', id: eventId(event.seq), source, type: event.name, subject: event.recordId, time, datacontenttype: 'application/json', data };
    return { contentType: 'application/cloudevents+json', text: JSON.stringify(ce) };
  }
  return { contentType: 'application/json', text: JSON.stringify(webhookBody(event.name, time, data)) };
}
