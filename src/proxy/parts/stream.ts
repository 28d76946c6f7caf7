/**
 * Part 6 through the proxy: the event stream (docs/events.md, "The event stream"), judged as
 * it flows to the client, event by event, without holding it back. Each event has an id
 * `evt_<n>` that increases within the stream and, on a stream resumed with Last-Event-ID,
 * starts after it (none repeated); its `event:` is an event of the catalog, in the stream's
 * API version (the event's since/until); its `data:` is the payload the event declares
 * (events.ts: no writeOnly field, nothing undeclared, the values the change left); and it
 * concerns a record the listening principal may read: an event of an owned record goes only
 * to the principal the proxy saw create it.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { inVersion, versionOrder } from '../../spec/conventions/versions.ts';
import type { Spec, Version } from '../../spec/model.ts';
import type { Found } from '../seen.ts';
import type { EventJudge } from './events.ts';

const EVENT_ID = /^evt_(\d+)$/;

export interface StreamContext {
  readonly spec: Spec;
  readonly events: EventJudge;
  /** Who created a record, as the traffic showed. */
  readonly ownerOf: (resource: string, id: unknown) => string | undefined;
  /** The listening principal (a digest of its credential). */
  readonly principal?: string;
  /** The API version the stream is served in. */
  readonly version?: Version;
  /** The Last-Event-ID the client resumed from (header or `?lastEventId=`). */
  readonly lastEventId?: string;
}

export class StreamWatch {
  readonly #ctx: StreamContext;
  readonly #parser: EventSourceParser;
  readonly #decoder = new TextDecoder();
  readonly #order: ReadonlyMap<string, number>;
  /** The position of the last event seen, or the one resumed from. */
  #last: number | undefined;
  readonly #resumedFrom: number | undefined;
  #found: Found[] = [];
  #each: (() => void) | undefined;

  constructor(ctx: StreamContext) {
    this.#ctx = ctx;
    this.#order = versionOrder(ctx.spec);
    const resumed = ctx.lastEventId === undefined ? undefined : EVENT_ID.exec(ctx.lastEventId);
    this.#resumedFrom = resumed ? Number(resumed[1]) : undefined;
    this.#last = this.#resumedFrom;
    this.#parser = createParser({ onEvent: (event) => this.#event(event) });
  }

  /** A chunk of the stream as it passed: the findings of the events it completed (`each` told of every event). */
  feed(chunk: Buffer, each?: () => void): Found[] {
    this.#each = each;
    this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
    const out = this.#found;
    this.#found = [];
    return out;
  }

  #event(message: EventSourceMessage): void {
    const { spec, events } = this.#ctx;
    const stream = spec.events.stream;
    const pointer = stream?.pointer ?? spec.parts.events.pointer;
    const text = `events.stream: ${stream?.path ?? 'the event stream'} (id: evt_<n>, event: its type, data: its payload)`;
    const base = { part: 'events' as const, pointer, text };
    const out = this.#found;
    this.#each?.();
    const m = message.id === undefined ? null : EVENT_ID.exec(message.id);
    if (!m) out.push({ ...base, id: 'stream-id', message: `an event of the stream has the id ${JSON.stringify(message.id ?? null)}, not evt_<n>` });
    else {
      const n = Number(m[1]);
      if (this.#last !== undefined && n <= this.#last) {
        out.push(this.#resumedFrom !== undefined && n <= this.#resumedFrom
          ? { ...base, id: 'stream-resume', message: `the stream resumed after evt_${this.#resumedFrom} (Last-Event-ID) sent ${message.id}, which is not after it` }
          : { ...base, id: 'stream-order', message: `the stream sent ${message.id} after evt_${this.#last}: ids increase, none repeated` });
      }
      this.#last = Math.max(n, this.#last ?? n);
    }
    const event = spec.events.catalog.find((e) => e.name === message.event);
    if (!event) {
      out.push({ part: 'events', id: 'stream-type-undeclared', message: `the stream sent an event of type ${JSON.stringify(message.event ?? null)}, which is no event of the catalog`, pointer: spec.parts.events.pointer, text: `events: ${spec.events.catalog.map((e) => e.name).join(', ')}` });
      return;
    }
    const version = this.#ctx.version;
    const at = version ? this.#order.get(version.name) : undefined;
    if (version && at !== undefined && !inVersion(this.#order, at, event)) {
      out.push({ part: 'events', id: 'stream-version', message: `the stream, in version ${version.name}, sent ${event.name}, which version ${version.name} does not have (since ${event.since ?? '-'}, until ${event.until ?? '-'})`, pointer: event.pointer, text: `${event.name}: since ${event.since ?? '-'}, until ${event.until ?? '-'}` });
    }
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      out.push({ part: 'events', id: 'stream-payload', message: `the data of ${message.id ?? 'an event'} (${event.name}) is not JSON`, pointer: event.pointer, text: `${event.name}: its payload as one line of JSON` });
      return;
    }
    out.push(...events.payload(event, data, 'stream-payload'));
    const resource = spec.resources.find((r) => r.name === event.trigger.resource);
    const id = resource && data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[resource.id?.field ?? 'id'] : undefined;
    const owner = resource?.owned ? this.#ctx.ownerOf(resource.name, id) : undefined;
    if (resource && owner && this.#ctx.principal && owner !== this.#ctx.principal) {
      out.push({ part: 'authentication', id: 'stream-visibility', message: `the stream carried ${event.name} of ${resource.name} ${String(id)} to a principal other than the one that created it`, pointer: resource.pointer, text: `${resource.name}: owned` });
    }
  }
}
