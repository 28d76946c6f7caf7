/**
 * Part 6 at run time, the emitting side: which writes make which events, and what they
 * carry (docs/events.md "The event").
 *
 * The handlers of resources (create, update, replace, delete) and states (transitions) pass
 * the maker of their trigger to the store write; the store calls it inside the write's
 * transaction with the record as written (a delete: as it was), and appends what it returns
 * to the event log. A write whose trigger names no event gets no maker and pays nothing.
 *
 * The payload is rendered once per live API version, as a read in that version shows the
 * record (writeOnly fields never; fields outside the version left out), cut to the payload's
 * fields. A version the event is not in (its since/until) gets no payload, and so no delivery.
 */
import type { EventDef, Resource, Spec, TriggerAction } from '../../spec/model.ts';
import type { EventMaker, NewEvent } from '../../store/events.ts';
import type { StoredRecord } from '../../store/store.ts';
import { declareView, jsonString, present, presentJson } from '../representation.ts';
import { inVersion, resourceAt, versionOrder } from '../../spec/conventions/versions.ts';

/** The key of the payload of a spec without versions. */
export const UNVERSIONED = '';

export interface EventEmitting {
  /** The maker of a write's events; undefined when the write triggers none. */
  maker(resource: string, action: TriggerAction, transition?: string): EventMaker | undefined;
  /** Called after events were appended; the bus wakes delivery and streams once the write has committed. */
  readonly bus: EventBus;
}

/**
 * Tells listeners that the log may have grown. A notice is sent at setImmediate after the
 * maker ran: the write's transaction commits before that (an update commits inside its call;
 * a group-committed insert in the check phase the maker runs in), so listeners that read the
 * log find the events. A notice of a write that rolled back finds nothing; that costs a read.
 */
export class EventBus {
  readonly #listeners = new Set<() => void>();
  #scheduled = false;
  readonly #fire = (): void => {
    this.#scheduled = false;
    for (const listener of this.#listeners) listener();
  };

  notify(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#fire);
  }

  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

interface Renderer {
  /** The API version ('' unversioned) and how that version presents the record, as JSON text. */
  readonly version: string;
  readonly render: (record: StoredRecord) => string;
}

/**
 * An event as the maker makes it: its payloads as JSON text, written to the log as they are.
 * A payload carrying the record is the record's stored text with its id put in front
 * (presentJson), as a read sends it: the record is not parsed, nor its payload serialized
 * (callgrind: ~15K of the ~41K instructions the outbox added to a create). `payloads` is
 * parsed from the text only if someone asks for it.
 */
class MadeEvent implements NewEvent {
  readonly name: string;
  readonly resource: string;
  readonly recordId: string;
  // Declared only: an owner-less event has no `owner` member at all, as the others made it.
  declare readonly owner?: string;
  readonly payloadsJson: string;
  readonly createdAt: number;
  #payloads: Record<string, unknown> | undefined;
  constructor(name: string, resource: string, record: StoredRecord, payloadsJson: string, createdAt: number) {
    this.name = name;
    this.resource = resource;
    this.recordId = record.id;
    if (record.owner !== undefined) this.owner = record.owner;
    this.payloadsJson = payloadsJson;
    this.createdAt = createdAt;
    // An own enumerable accessor, not a getter on the prototype: a spread, structuredClone or
    // JSON.stringify of the event (a Store of one's own may copy events so) keeps `payloads`.
    Object.defineProperty(this, 'payloads', MadeEvent.#lazyPayloads);
  }
  declare readonly payloads: Readonly<Record<string, unknown>>;
  static readonly #lazyPayloads: PropertyDescriptor = {
    get(this: MadeEvent) {
      return (this.#payloads ??= JSON.parse(this.payloadsJson) as Record<string, unknown>);
    },
    enumerable: true,
  };
}

/** The event part's plan: undefined when the spec emits no events. */
export function planEmitting(spec: Spec, now: () => number): EventEmitting | undefined {
  if (spec.parts.events.statement !== 'given' || spec.events.catalog.length === 0) return undefined;
  const bus = new EventBus();
  const byTrigger = new Map<string, EventMaker>();
  const resources = new Map(spec.resources.map((r) => [r.name, r]));
  const versions = spec.parts.versioning.statement === 'given' ? spec.versioning.versions.filter((v) => v.status !== 'retired') : [];
  const order = versionOrder(spec);
  const groups = new Map<string, EventDef[]>();
  for (const e of spec.events.catalog) {
    const key = triggerKey(e.trigger.resource, e.trigger.action, e.trigger.transition);
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  for (const [key, defs] of groups) {
    const resource = resources.get(defs[0].trigger.resource);
    if (!resource) continue; // check's error (event-trigger-unknown-resource)
    const plans = defs.map((e) => {
      const renderers: Renderer[] = [];
      if (versions.length === 0) renderers.push({ version: UNVERSIONED, render: pick(e, resource) });
      for (const v of versions) {
        if (!inVersion(order, order.get(v.name) as number, e)) continue;
        const view = resourceAt(spec, resource, v.name);
        declareView(view, { base: resource, version: v.name, prefix: '' });
        renderers.push({ version: v.name, render: pick(e, view) });
      }
      // Each version's key, quoted once: the payloads' text is `{"<version>":<payload>,…}`.
      return { name: e.name, renderers: renderers.map((r) => ({ ...r, key: `${jsonString(r.version)}:` })) };
    });
    byTrigger.set(key, (record) => {
      const createdAt = now();
      const events: NewEvent[] = [];
      for (const p of plans) {
        if (p.renderers.length === 0) continue;
        let text = '{';
        for (let i = 0; i < p.renderers.length; i++) text += `${i > 0 ? ',' : ''}${p.renderers[i].key}${p.renderers[i].render(record)}`;
        events.push(new MadeEvent(p.name, resource.name, record, `${text}}`, createdAt));
      }
      if (events.length) bus.notify();
      return events;
    });
  }
  return {
    bus,
    maker: (resource, action, transition) => byTrigger.get(triggerKey(resource, action, transition)),
  };
}

function triggerKey(resource: string, action: TriggerAction, transition?: string): string {
  return action === 'transition' ? `${resource}.${transition ?? ''}` : `${resource}#${action}`;
}

/** The whole record as read, or only the payload's fields of it (absent ones left out), as JSON text. */
function pick(e: EventDef, view: Resource): (record: StoredRecord) => string {
  if (e.payload.kind === 'resource') return (record) => presentJson(view, record);
  const fields = e.payload.fields;
  return (record) => {
    const whole = present(view, record);
    const out: Record<string, unknown> = {};
    for (const f of fields) if (f in whole) out[f] = whole[f];
    return JSON.stringify(out);
  };
}
