/**
 * Part 6, who sees an event (docs/events.md "Who sees an event"): only a principal that could
 * read the record, one holding the scopes of the resource's read endpoint (else its list
 * endpoint), and for an owned resource only the record's owner.
 *
 * Absence is judged by a later event the watcher may see: the watcher's stream is an ordered
 * log, so once that event has arrived, any event before it that was to come has come.
 * Webhooks are not ordered: there, what has arrived by the time the later delivery did is
 * what is judged. The watchers listen before the events are made to happen.
 */
import { statusAs } from './errors.ts';
import type { Endpoint, EventDef, Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError, isObject } from '../expect.ts';
import { deliveryExchange, type WebhookReceiver } from '../receiver.ts';
import type { EventStream } from '../stream.ts';
import { isAbout } from './events-payload.ts';
import { arrivedOfEvent } from './events-stream.ts';
import { attempt, type Triggered } from './events-trigger.ts';
import { arrivedOf, deliveryOf, webhooksRule, type Subscription } from './events-webhooks.ts';

/** Where one principal listens: its subscription (with the receiver) and its stream. */
export interface Listening {
  readonly as?: Principal;
  sub?: Subscription;
  stream?: EventStream;
}

export interface VisibilityRun {
  readonly ctx: TestContext;
  readonly data: DataFactory;
  readonly live: readonly EventDef[];
  readonly main: Listening;
  readonly receiver?: WebhookReceiver;
  readonly fired: ReadonlyMap<EventDef, Triggered | Error>;
  readonly timeoutMs: number;
  /** Makes an event happen as a principal (the run keeps count of what its subscription is to receive). */
  readonly act: (e: EventDef, as: Principal | undefined) => Promise<Triggered>;
}

/** The endpoint whose scopes decide who sees a resource's events: read, else list. */
export function readerOf(ctx: TestContext, r: Resource): Endpoint | undefined {
  return ctx.endpoint(r.name, 'read') ?? ctx.endpoint(r.name, 'list');
}

function canRead(ctx: TestContext, p: Principal, r: Resource): boolean {
  const reader = readerOf(ctx, r);
  return !reader || ctx.may(p, reader);
}

const resourceOf = (ctx: TestContext, e: EventDef): Resource | undefined => ctx.resource(e.trigger.resource);

/** Another principal (another name) that may do to the owned resources with events what the owner does. */
export function otherOwner(ctx: TestContext, live: readonly EventDef[], owner: Principal | undefined): Principal | undefined {
  if (!owner || !live.some((e) => resourceOf(ctx, e)?.owned)) return undefined;
  const owned = new Set(live.map((e) => e.trigger.resource).filter((r) => ctx.resource(r)?.owned));
  return ctx.principals.find((p) => p !== owner && p.name !== owner.name && ctx.spec.endpoints.filter((e) => owned.has(e.resource)).every((e) => ctx.may(p, e)));
}

/** A principal (another name) lacking the read scopes of a resource with events, yet able to see an event of another. */
export function narrowReader(ctx: TestContext, live: readonly EventDef[], owner: Principal | undefined): Principal | undefined {
  const shared = (e: EventDef) => resourceOf(ctx, e) !== undefined && !resourceOf(ctx, e)?.owned;
  return ctx.principals.find((p) => p.scopes !== undefined && p !== owner && p.name !== owner?.name
    && live.some((e) => shared(e) && !canRead(ctx, p, resourceOf(ctx, e) as Resource))
    && live.some((e) => shared(e) && canRead(ctx, p, resourceOf(ctx, e) as Resource)));
}

/** Waits for a later event on a watcher's stream; fails when it does not come. */
async function caughtUp(l: Listening, later: Triggered, idField: string, deadline: number, timeoutMs: number): Promise<void> {
  if (!l.stream) return;
  const came = await l.stream.events.until((items) => items.find((x) => isAbout(later, idField, arrivedOfEvent(x))), deadline);
  if (!came) throw new Failure(`${later.event.name} about ${later.resource.name} '${later.id}', which ${l.as?.name} may see, did not arrive on ${l.as?.name}'s stream within ${timeoutMs / 1000} s`, l.stream.exchange());
}

function leakOnStream(l: Listening, theirs: readonly Triggered[], idField: (r: Resource) => string, whose: string): void {
  if (!l.stream) return;
  for (const t of theirs) {
    const got = l.stream.events.items.find((x) => isAbout(t, idField(t.resource), arrivedOfEvent(x)));
    if (got) throw new Failure(`${l.as?.name}'s stream got ${t.event.name} (${got.id ?? 'no id'}) of ${whose} ${t.resource.name} '${t.id}'`, l.stream.exchange());
  }
}

/** For each owned resource with events: the other principal gets none of the owner's, on its stream or its subscription. */
export async function checkOwnership(run: VisibilityRun, other: Listening): Promise<void> {
  const { ctx, data, main, receiver, timeoutMs } = run;
  const w = ctx.spec.events.webhooks;
  const as = other.as as Principal;
  const idField = (r: Resource) => data.idField(r);
  const owned = run.live.filter((e) => resourceOf(ctx, e)?.owned);
  if (w?.path && main.sub?.itemPath) {
    await ctx.check('events', 'webhooks.other-principal', `another principal's subscription is ${statusAs(ctx, 'not-found')} to ${as.name}, and not in ${as.name}'s list`, webhooksRule(w), async () => {
      expectError(ctx, await ctx.call('GET', main.sub?.itemPath as string, { as }), 'not-found');
      const list = await ctx.call('GET', w.path as string, { as });
      const items = isObject(list.response.json) ? list.response.json.items : undefined;
      if (list.response.status !== 200 || !Array.isArray(items)) throw new Failure(`GET ${w.path} as ${as.name} answered ${list.response.status} without an 'items' array`, list);
      if (items.some((i) => isObject(i) && String(i.id) === main.sub?.id)) throw new Failure(`${as.name}'s list shows ${main.as?.name ?? 'another principal'}'s subscription '${main.sub?.id}'`, list);
    });
  }
  const probe = owned.find((e) => e.trigger.action === 'created') ?? owned[0];
  let own: Triggered | Error | undefined;
  for (const name of [...new Set(owned.map((e) => e.trigger.resource))]) {
    const resource = ctx.resource(name) as Resource;
    const theirs = owned.filter((e) => e.trigger.resource === name).map((e) => run.fired.get(e)).filter((t): t is Triggered => t !== undefined && !(t instanceof Error));
    await ctx.check('events', `${name}.visibility`, `${name} is owned: ${as.name} gets none of the events of ${main.as?.name ?? 'the owner'}'s records, on the stream or by webhook`, { pointer: resource.pointer, text: `${name}: owned` }, async () => {
      if (!theirs.length) throw new Skip(`none of ${name}'s events was made to happen`);
      if (!other.stream && !other.sub) throw new Skip(`${as.name} could neither open the stream nor subscribe`);
      own ??= await attempt(() => run.act(probe, as));
      if (own instanceof Error) throw new Skip(`${as.name} could not make an event of its own to wait for: ${own.message}`);
      const mine = own;
      const deadline = Date.now() + timeoutMs;
      await caughtUp(other, mine, idField(mine.resource), deadline, timeoutMs);
      leakOnStream(other, theirs, idField, `${main.as?.name ?? 'the owner'}'s`);
      if (other.sub && receiver) {
        await deliveryOf(receiver, other.sub, mine, idField(mine.resource), w?.cloudEvents === true, deadline);
        const seen = receiver.deliveries.items.filter(receiver.to(other.sub.tag));
        for (const t of theirs) {
          const leak = seen.find((d) => isAbout(t, idField(t.resource), arrivedOf(d, w?.cloudEvents === true)));
          if (leak) throw new Failure(`${as.name}'s subscription was delivered ${t.event.name} of ${main.as?.name ?? 'the owner'}'s ${name} '${t.id}'`, deliveryExchange(receiver, leak));
        }
      }
    });
  }
}

/** A principal lacking a resource's read scopes gets none of its events on the stream. */
export async function checkScopes(run: VisibilityRun, narrow: Listening): Promise<void> {
  const { ctx, data, main, timeoutMs } = run;
  const as = narrow.as as Principal;
  const idField = (r: Resource) => data.idField(r);
  const shared = run.live.filter((e) => resourceOf(ctx, e) && !resourceOf(ctx, e)?.owned);
  const hidden = [...new Set(shared.map((e) => resourceOf(ctx, e) as Resource).filter((r) => !canRead(ctx, as, r)))];
  const reader = readerOf(ctx, hidden[0]) as Endpoint;
  const lacking = [...new Set(hidden.flatMap((r) => readerOf(ctx, r)?.auth?.scopes.filter((s) => !as.scopes?.includes(s)) ?? []))];
  await ctx.check('events', 'visibility.scopes', `${as.name}, lacking ${lacking.join(', ')}, gets none of the events of ${hidden.map((r) => r.name).join(', ')} on the stream`, { pointer: reader.pointer, text: `${reader.id} needs ${reader.auth?.scopes.join(', ')}` }, async () => {
    if (!narrow.stream) throw new Skip(`${as.name} could not open the stream`);
    const theirs = shared.filter((e) => hidden.includes(resourceOf(ctx, e) as Resource)).map((e) => run.fired.get(e)).filter((t): t is Triggered => t !== undefined && !(t instanceof Error));
    if (!theirs.length) throw new Skip(`none of the events of ${hidden.map((r) => r.name).join(', ')} was made to happen`);
    const seeable = shared.find((e) => canRead(ctx, as, resourceOf(ctx, e) as Resource) && e.trigger.action === 'created') ?? shared.find((e) => canRead(ctx, as, resourceOf(ctx, e) as Resource));
    if (!seeable) throw new Skip(`no event ${as.name} may see, to show its stream has caught up`);
    const later = await attempt(() => run.act(seeable, main.as));
    if (later instanceof Error) throw new Skip(`the event to wait for could not be made to happen: ${later.message}`);
    await caughtUp(narrow, later, idField(later.resource), Date.now() + timeoutMs, timeoutMs);
    leakOnStream(narrow, theirs, idField, `${main.as?.name ?? 'a principal'}'s`);
  });
}
