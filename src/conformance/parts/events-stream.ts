/**
 * Part 6, the event stream (docs/events.md "The event stream"): `GET {stream path}` with
 * `Accept: text/event-stream` answers 200 `text/event-stream`; each event comes with
 * `id: evt_<n>`, `event:` its name and `data:` its payload as one line of JSON (the same as
 * the webhook's); a client reconnecting with `Last-Event-ID` gets every later event, in
 * order, none repeated and none missing.
 */
import type { Events } from '../../spec/model.ts';
import { sleep } from '../arrivals.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import { jsonEqual } from '../expect.ts';
import { TransportError } from '../http.ts';
import type { Delivery } from '../receiver.ts';
import { EventStream, type StreamEvent } from '../stream.ts';
import { EVENT_ID, eventRule, isAbout, payloadProblem, summary, type Arrived } from './events-payload.ts';
import type { Triggered } from './events-trigger.ts';

export type Stream = NonNullable<Events['stream']>;

/** How long a reconnected stream is watched after the replay, for events it should not send. */
const SETTLE_MS = 300;

export function streamRule(s: Stream): { pointer: string; text: string } {
  return { pointer: s.pointer, text: `stream: ${s.path}` };
}

/** Opens the stream as a principal in the working version, or the one given (with Last-Event-ID when given). */
export async function openStream(ctx: TestContext, s: Stream, as: Principal | undefined, lastEventId?: string, version?: string): Promise<EventStream> {
  const { url, headers } = ctx.address(s.path, { as: as ?? null, ...(version !== undefined ? { version } : {}) });
  return EventStream.open(`${ctx.client.baseUrl}${url}`, { ...headers, ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) }, ctx.client.timeoutMs);
}

/** Opens the stream and checks its answer; undefined (and closed) when it did not open as a stream. */
export async function openChecked(ctx: TestContext, s: Stream, as: Principal | undefined, id: string, who: string): Promise<EventStream | undefined> {
  let opened: EventStream | undefined;
  await ctx.check('events', id, `GET ${s.path} as ${who} opens the event stream: 200 text/event-stream`, streamRule(s), async () => {
    let stream: EventStream;
    try {
      stream = await openStream(ctx, s, as);
    } catch (error) {
      if (error instanceof TransportError) throw new Failure(error.message);
      throw error;
    }
    if (stream.status !== 200 || !/^text\/event-stream\b/i.test(stream.headers['content-type'] ?? '')) {
      await sleep(50);
      stream.close();
      throw new Failure(`the stream answered ${stream.status} with content type '${stream.headers['content-type'] ?? '(none)'}', not 200 text/event-stream`, stream.exchange());
    }
    opened = stream;
  });
  return opened;
}

export function arrivedOfEvent(e: StreamEvent): Arrived | undefined {
  try {
    return { type: e.event, data: JSON.parse(e.data) };
  } catch {
    return undefined;
  }
}

/** The check of one event on the stream: it arrives with its id, name and payload, the same as its webhook. */
export async function checkStreamEvent(ctx: TestContext, s: Stream, stream: EventStream, t: Triggered, idField: string, deadline: number, timeoutMs: number, webhook?: Delivery): Promise<void> {
  const name = t.event.name;
  await ctx.check('events', `${name}.stream`, `${name} arrives on the stream within ${timeoutMs / 1000} s: id evt_<n>, event ${name}, data its payload (the webhook's)`, eventRule(t.event), async () => {
    const found = await stream.events.until((items) => items.find((e) => isAbout(t, idField, arrivedOfEvent(e))), deadline);
    const ex = stream.exchange();
    if (!found) {
      const near = stream.events.items.find((e) => isAbout(t, idField, arrivedOfEvent(e), true));
      if (near) {
        const problem = payloadProblem(ctx, t, arrivedOfEvent(near)?.data);
        throw new Failure(`a ${name} arrived on the stream, but not about ${t.resource.name} '${t.id}'${problem ? `: ${problem}` : ''}`, ex);
      }
      throw new Failure(`no ${name} about ${t.resource.name} '${t.id}' arrived on the stream within ${timeoutMs / 1000} s of the change (${summary(stream.events.items.map(arrivedOfEvent), idField)})`, ex);
    }
    if (found.id === undefined || !EVENT_ID.test(found.id)) throw new Failure(`the event's id: is ${JSON.stringify(found.id)}, not of the form evt_<n>`, ex);
    if (found.data.includes('\n')) throw new Failure('the event\'s data spans several data: lines; the convention sends one line of JSON', ex);
    const data = arrivedOfEvent(found)?.data;
    const problem = payloadProblem(ctx, t, data);
    if (problem) throw new Failure(problem, ex);
    if (!webhook) return;
    const hookId = webhook.headers['webhook-id'];
    if (hookId !== undefined && hookId !== found.id) throw new Failure(`the stream's id: ${found.id} differs from the webhook's webhook-id ${hookId}: one event has one id`, ex);
    let hookData: unknown;
    try {
      hookData = (JSON.parse(webhook.body) as { data?: unknown }).data;
    } catch {
      return;
    }
    if (!jsonEqual(hookData, data)) throw new Failure(`the stream's data ${found.data} differs from the webhook's ${JSON.stringify(hookData)}`, ex);
  });
}

/** Reconnecting with Last-Event-ID set to an event in the middle replays exactly the later ones, in order. */
export async function checkResume(ctx: TestContext, s: Stream, first: EventStream, as: Principal | undefined, timeoutMs: number): Promise<void> {
  await ctx.check('events', 'stream.resume', `reconnecting with Last-Event-ID replays exactly the later events, in order, none repeated or missing`, streamRule(s), async () => {
    const seen = first.events.items.filter((e) => e.id !== undefined).map((e) => e.id as string);
    if (seen.length < 2) throw new Skip(`the first connection brought ${seen.length} event${seen.length === 1 ? '' : 's'} with an id; resuming needs two`);
    const numbers = seen.map((id) => Number(EVENT_ID.exec(id)?.[1] ?? NaN));
    const back = numbers.findIndex((n, i) => i > 0 && !(n > numbers[i - 1]));
    if (back > 0) throw new Failure(`the stream's ids do not increase: ${seen[back - 1]} came before ${seen[back]}`, first.exchange());
    const k = Math.floor(seen.length / 2);
    const last = seen[k - 1];
    const expected = seen.slice(k);
    let again: EventStream;
    try {
      again = await openStream(ctx, s, as, last);
    } catch (error) {
      if (error instanceof TransportError) throw new Failure(error.message);
      throw error;
    }
    try {
      if (again.status !== 200) throw new Failure(`reconnecting with Last-Event-ID: ${last} answered ${again.status}`, again.exchange());
      const got = () => again.events.items.filter((e) => e.id !== undefined).map((e) => e.id as string);
      await again.events.until((items) => (items.filter((e) => e.id !== undefined).length >= expected.length ? true : undefined), Date.now() + timeoutMs);
      await sleep(SETTLE_MS);
      const ids = got();
      const ex = again.exchange();
      const said = `with Last-Event-ID: ${last}, expected ${expected.join(', ')}; got ${ids.length ? ids.join(', ') : 'nothing'}`;
      for (const [i, id] of expected.entries()) {
        const at = ids[i];
        if (at === id) continue;
        if (at === undefined) throw new Failure(`the replay misses ${id} (${said})`, ex);
        if (seen.slice(0, k).includes(at)) throw new Failure(`the replay sends ${at}, which came before the resume point (${said})`, ex);
        if (ids.slice(0, i).includes(at)) throw new Failure(`the replay repeats ${at} (${said})`, ex);
        if (!ids.includes(id)) throw new Failure(`the replay misses ${id} (${said})`, ex);
        throw new Failure(`the replay is out of order (${said})`, ex);
      }
      const repeated = ids.slice(expected.length).find((id) => seen.includes(id));
      if (repeated) throw new Failure(`the replay sends ${repeated} again after the later events (${said})`, ex);
    } finally {
      again.close();
    }
  });
}
