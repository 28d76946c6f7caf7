/**
 * Part 6 through the proxy (docs/events.md): webhook deliveries the service sends to the
 * proxy's relay address, which it relays to the client's receiver. Each delivery is judged
 * for its signature (Standard Webhooks, against the secret the subscription's answer carried
 * through the proxy, or the one it is given), its envelope (the convention's, or CloudEvents
 * 1.0 structured mode), and its payload against the change that caused it: an event of the
 * catalog, of the record's resource, carrying only what the payload declares, no writeOnly
 * field, and, of a record the proxy saw change once, the values that change left.
 */
import type { EventDef, Spec } from '../../spec/model.ts';
import { signatureProblem } from '../../conformance/signature.ts';
import { EVENT_TIME } from '../../conformance/parts/events-payload.ts';
import { BoundedMap } from '../../spec/bounded-map.ts';
import { WEBHOOK_BODY_MEMBERS } from '../../spec/conventions/events.ts';
import type { Found, Seen } from '../seen.ts';
import { isObject } from './values.ts';

/** The path of the proxy's own port where a service delivers webhooks to be relayed. */
export const RELAY_PATH = '/__svcspec/webhooks';

interface Change {
  readonly record: Record<string, unknown>;
  count: number;
}

export class EventJudge {
  readonly #spec: Spec;
  readonly #secrets = new Set<string>();
  readonly #changes = new BoundedMap<string, Change>(100_000);

  constructor(spec: Spec, secret?: string) {
    this.#spec = spec;
    if (secret) this.#secrets.add(secret);
  }

  /** What a relayed exchange tells of later events: a subscription's secret, a record's change. */
  observe(x: Seen): void {
    const webhooks = this.#spec.events.webhooks;
    const ex = x.exchange;
    if (webhooks?.path && x.route.path.replace(/\/$/, '') === webhooks.path && ex.request.method === 'POST' && ex.response.status === 201 && isObject(ex.response.json) && typeof ex.response.json.secret === 'string') this.#secrets.add(ex.response.json.secret);
    const endpoint = x.endpoint;
    if (!endpoint || !x.ok || endpoint.method === 'GET' || !isObject(ex.response.json)) return;
    const resource = this.#spec.resources.find((r) => r.name === endpoint.resource);
    const id = resource ? ex.response.json[resource.id?.field ?? 'id'] : undefined;
    if (!resource || (typeof id !== 'string' && typeof id !== 'number')) return;
    const key = `${resource.name}\u0000${id}`;
    const before = this.#changes.get(key);
    this.#changes.set(key, { record: ex.response.json, count: (before?.count ?? 0) + 1 });
  }

  /** A delivery, as the service sent it. */
  delivery(headers: Readonly<Record<string, string>>, raw: Buffer, nowMs: number): Found[] {
    const webhooks = this.#spec.events.webhooks;
    const pointer = webhooks?.pointer ?? this.#spec.parts.events.pointer;
    const base = { part: 'events' as const };
    const out: Found[] = [];
    if (webhooks?.signing === 'standard-webhooks') {
      const text = 'events.webhooks: signing standard-webhooks';
      if (!headers['webhook-id'] || !headers['webhook-timestamp'] || !headers['webhook-signature']) out.push({ ...base, id: 'delivery-signature', message: 'the delivery lacks webhook-id, webhook-timestamp or webhook-signature', pointer, text });
      else if (this.#secrets.size) {
        const problems = [...this.#secrets].map((s) => signatureProblem(s, headers, raw, nowMs));
        if (!problems.includes(undefined)) out.push({ ...base, id: 'delivery-signature', message: `the delivery's signature does not verify: ${problems[0]}`, pointer, text });
      }
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return [...out, { ...base, id: 'delivery-envelope', message: 'the delivery body is not JSON', pointer, text: 'events.webhooks: the delivery envelope' }];
    }
    const cloud = webhooks?.cloudEvents === true;
    const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const envelope = cloud ? 'CloudEvents 1.0 structured mode' : `{${WEBHOOK_BODY_MEMBERS.join(', ')}}`;
    const text = `events.webhooks: ${envelope}`;
    const wantType = cloud ? 'application/cloudevents+json' : 'application/json';
    if (type !== wantType) out.push({ ...base, id: 'delivery-envelope', message: `the delivery's content type is '${type}', not ${wantType}`, pointer, text });
    if (!isObject(body)) return [...out, { ...base, id: 'delivery-envelope', message: 'the delivery body is not a JSON object', pointer, text }];
    const time = cloud ? body.time : body.timestamp;
    if (!cloud) {
      // The members the convention states (src/spec/conventions/events.ts), no more: as the tester holds deliveries to them.
      const extra = Object.keys(body).filter((k) => !(WEBHOOK_BODY_MEMBERS as readonly string[]).includes(k));
      if (extra.length) out.push({ ...base, id: 'delivery-envelope', message: `the delivery body has ${extra.map((k) => `'${k}'`).join(', ')} beside ${WEBHOOK_BODY_MEMBERS.join(', ')}`, pointer, text });
    }
    if (cloud && body.specversion !== '1.0') out.push({ ...base, id: 'delivery-envelope', message: `specversion is ${JSON.stringify(body.specversion)}, not "1.0"`, pointer, text });
    if (typeof time !== 'string' || !EVENT_TIME.test(time)) out.push({ ...base, id: 'delivery-envelope', message: `the event's ${cloud ? 'time' : 'timestamp'} is ${JSON.stringify(time)}, not an RFC 3339 UTC time`, pointer, text });
    const event = this.#spec.events.catalog.find((e) => e.name === body.type);
    if (!event) return [...out, { ...base, id: 'delivery-type-undeclared', message: `the delivery's type ${JSON.stringify(body.type)} is no event of the catalog`, pointer: this.#spec.parts.events.pointer, text: `events: ${this.#spec.events.catalog.map((e) => e.name).join(', ')}` }];
    const resource = this.#spec.resources.find((r) => r.name === event.trigger.resource);
    if (!resource) return out;
    if (cloud && body.source !== `/${resource.plural}`) out.push({ ...base, id: 'delivery-envelope', message: `source is ${JSON.stringify(body.source)}, not /${resource.plural}`, pointer, text });
    return [...out, ...this.payload(event, body.data, 'delivery-payload', body.subject)];
  }

  /**
   * An event's payload (a delivery's `data`, a stream event's `data:` line) against the
   * change that caused it: an object, carrying only what the payload declares, no writeOnly
   * field, and, of a record the proxy saw change once, the values that change left.
   */
  payload(event: EventDef, data: unknown, id: string, subject?: unknown): Found[] {
    const resource = this.#spec.resources.find((r) => r.name === event.trigger.resource);
    if (!resource) return [];
    const base = { part: 'events' as const };
    const rule = { pointer: event.pointer, text: `${event.name}: on ${event.trigger.on}, payload ${event.payload.kind === 'resource' ? 'resource' : `[${event.payload.fields.join(', ')}]`}` };
    if (!isObject(data)) return [{ ...base, id, message: `'data' is ${JSON.stringify(data)}, not an object`, ...rule }];
    const out: Found[] = [];
    const declared = event.payload.kind === 'fields' ? event.payload.fields : undefined;
    for (const key of Object.keys(data)) {
      const field = resource.fields.find((f) => f.name === key);
      if (field?.writeOnly) out.push({ ...base, id, message: `'data' leaks the writeOnly field '${key}'`, ...rule });
      else if (declared && !declared.includes(key) && key !== (resource.id?.field ?? 'id')) out.push({ ...base, id, message: `'data' carries '${key}', which the payload [${declared.join(', ')}] does not list`, ...rule });
      else if (!declared && !field && resource.unknownFields !== 'keep') out.push({ ...base, id, message: `'data' carries '${key}', which ${resource.name} does not declare`, ...rule });
    }
    const recordId = data[resource.id?.field ?? 'id'] ?? subject;
    const change = recordId === undefined ? undefined : this.#changes.get(`${resource.name}\u0000${recordId}`);
    // Only a record the proxy saw change once: a later change makes an earlier event's values stale, not wrong.
    if (change && change.count === 1 && event.trigger.action === 'created') {
      for (const [key, value] of Object.entries(data)) {
        if (key in change.record && JSON.stringify(change.record[key]) !== JSON.stringify(value)) {
          out.push({ ...base, id, message: `'data.${key}' is ${JSON.stringify(value)}; the change that caused ${event.name} left ${JSON.stringify(change.record[key])}`, ...rule });
          break;
        }
      }
    }
    return out;
  }
}
