/**
 * Part 6: events, held to the convention of docs/events.md. The tester listens first: it
 * subscribes its own webhook receiver (src/conformance/receiver.ts) through the API with
 * `subscriptions: api`, checking the subscription's answer, list and item and the refusals
 * (with `subscriptions: config` it uses the subscription the operator registered, given its
 * secret, else skips the webhook checks saying what to do), and opens the event stream.
 * Then it makes each event of the catalog in the working version happen through the API
 * (events-trigger.ts) and checks that each arrives within the tester's time-out on every
 * channel (signed, in its envelope, with exactly its payload); that the stream resumes from
 * Last-Event-ID; that events of other versions are not sent, and that a stream in each other
 * live version replays the run's events in that version's fields (events-versions.ts); that nobody sees the events of
 * records they could not read (events-visibility.ts); that a refused delivery is retried
 * (events-retry.ts); that a rotated secret signs at once beside the old one, and that a
 * delivery is listed and replayed with its webhook-id (events-manage.ts); that a 410
 * disables the subscription (events-retry.ts); and at last it unsubscribes.
 *
 * The time-out is the tester's (`--event-timeout`, 10 s by default): the spec's webhook
 * `timeout` is how long a receiver may take to answer, not how soon an event is sent.
 */
import type { EventDef, Resource } from '../../spec/model.ts';
import { DEFAULT_EVENT_TIMEOUT_MS, Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { isObject } from '../expect.ts';
import { WebhookReceiver, type Delivery } from '../receiver.ts';
import type { EventStream } from '../stream.ts';
import { eventRule, isAbout } from './events-payload.ts';
import { arrivedOfEvent, checkResume, checkStreamEvent, openChecked, openStream } from './events-stream.ts';
import { checkRotation, checkReplay } from './events-manage.ts';
import { checkGone, checkRetry } from './events-retry.ts';
import { checkOtherVersions, openVersionStreams } from './events-versions.ts';
import { attempt, trigger, type Triggered } from './events-trigger.ts';
import { checkOwnership, checkScopes, narrowReader, otherOwner, type Listening } from './events-visibility.ts';
import { checkDelivery, postSubscription, subscribeChecked, unsubscribe, unsubscribeChecked, type Subscription, type Webhooks } from './events-webhooks.ts';

export async function checkEvents(ctx: TestContext, data: DataFactory): Promise<void> {
  const { events } = ctx.spec;
  const part = ctx.spec.parts.events;
  if (part.statement === 'none') return ctx.skip('events', 'events', 'events are emitted as declared', `the spec states the service emits none${part.reason ? `: ${part.reason}` : ''}`, { kind: 'not-applicable' });
  if (!events.catalog.length) return ctx.skip('events', 'events', 'events are emitted as declared', 'the catalog lists no events', { kind: 'not-applicable' });
  if (!events.webhooks && !events.stream) return ctx.skip('events', 'events', 'events are emitted as declared', 'the spec declares neither webhooks nor a stream to receive them by', { kind: 'not-applicable' });
  const live = events.catalog.filter((e) => ctx.inVersion(e));
  const outside = events.catalog.filter((e) => !ctx.inVersion(e));
  if (!live.length) return ctx.skip('events', 'events', 'events are emitted as declared', `no event of the catalog is emitted in version ${ctx.version}`, { kind: 'not-applicable' });
  const timeoutMs = ctx.events.timeoutMs ?? DEFAULT_EVENT_TIMEOUT_MS;
  const owner = listenerFor(ctx, live);
  const guarded = ctx.spec.parts.authentication.statement === 'given' && ctx.spec.authentication.schemes.length > 0;
  if (guarded && !owner) return ctx.skip('events', 'events', 'events are emitted as declared', 'subscribing, listening and making changes need credentials: give a principal with --credentials or --header', { needs: 'a principal that may call the endpoints of the resources with events' });
  const otherOne = otherOwner(ctx, live, owner);
  const narrowOne = narrowReader(ctx, live, owner);
  const idField = (r: Resource) => data.idField(r);
  const main: Listening = { ...(owner ? { as: owner } : {}) };
  const other: Listening = { ...(otherOne ? { as: otherOne } : {}) };
  const narrow: Listening = { ...(narrowOne ? { as: narrowOne } : {}) };
  let receiver: WebhookReceiver | undefined;
  let versionStreams = new Map<string, EventStream | Error>();
  try {
    const w = events.webhooks;
    if (w) {
      receiver = await startReceiver(ctx, w);
      if (receiver) main.sub = await subscribe(ctx, w, receiver, live, owner);
    }
    if (events.stream) main.stream = await openChecked(ctx, events.stream, owner, 'stream.opens', owner?.name ?? 'an anonymous client');
    // The owner also listens in every other live version, for what those versions show of the same events.
    if (events.stream && main.stream) versionStreams = await openVersionStreams(ctx, events.stream, owner);
    // The watchers of the visibility checks listen before anything happens.
    if (other.as && events.stream) other.stream = await openStream(ctx, events.stream, other.as).catch(() => undefined);
    if (other.as && w?.subscriptions === 'api' && receiver && main.sub) other.sub = await quietSubscribe(ctx, w, receiver, live, other.as);
    if (narrow.as && events.stream) narrow.stream = await openStream(ctx, events.stream, narrow.as).catch(() => undefined);

    // Out-of-version events first: live events triggered after them show, on the ordered stream, that they were passed over.
    const passed = new Map<EventDef, Triggered | Error>();
    // What the owner makes happen in the version its subscription receives: waited for before the receiver refuses one on purpose.
    const made: Triggered[] = [];
    const act = async (e: EventDef, as: Principal | undefined): Promise<Triggered> => {
      const t = await trigger(ctx, data, e, as);
      if (as === owner && live.includes(e)) made.push(t);
      return t;
    };
    for (const e of main.stream ? outside : []) passed.set(e, await attempt(() => act(e, owner)));
    const fired = new Map<EventDef, Triggered | Error>();
    for (const e of live) fired.set(e, await attempt(() => act(e, owner)));
    const deadline = Date.now() + timeoutMs;

    for (const e of live) {
      const t = fired.get(e) as Triggered | Error;
      if (t instanceof Error) {
        await ctx.check('events', `${e.name}.trigger`, `${e.name} is made to happen through the API (${e.trigger.on})`, eventRule(e), async () => {
          throw t;
        });
        continue;
      }
      let delivery: Delivery | undefined;
      if (w && receiver && main.sub) delivery = await checkDelivery(ctx, w, receiver, main.sub, t, idField(t.resource), deadline, timeoutMs);
      if (events.stream && main.stream) await checkStreamEvent(ctx, events.stream, main.stream, t, idField(t.resource), deadline, timeoutMs, delivery);
    }
    if (events.stream && main.stream) await checkResume(ctx, events.stream, main.stream, owner, timeoutMs);
    for (const [e, t] of passed) await checkPassedOver(ctx, e, t, main.stream as EventStream, [...fired.values()], idField);
    if (events.stream && versionStreams.size) {
      const made = [...passed.values(), ...fired.values()].filter((t): t is Triggered => !(t instanceof Error));
      await checkOtherVersions(ctx, events.stream, versionStreams, made, (t) => idField(t.resource), timeoutMs);
    }
    for (const e of main.stream ? [] : outside) ctx.skip('events', `${e.name}.not-in-version`, `${e.name} is not sent in version ${ctx.version}, outside its versions`, 'only an open stream, an ordered log, shows an event was passed over (a subscription names the events it receives)');
    const run = { ctx, data, live, main, ...(receiver ? { receiver } : {}), fired, timeoutMs, act };
    if (other.as) await checkOwnership(run, other);
    else if (live.some((e) => ctx.resource(e.trigger.resource)?.owned)) ctx.skip('events', 'visibility', "another principal gets none of the events of the owner's records", 'needs two principals (different names) that may call every endpoint of the owned resources; give them with --credentials', { needs: 'a second principal that may call every endpoint of the owned resources' });
    if (narrow.as) await checkScopes(run, narrow);
    if (w && receiver && main.sub) {
      // The event made again for each delivery check: a create's, of the resource whose create the quota can best spare.
      const created = live.filter((e) => e.trigger.action === 'created' && !(fired.get(e) instanceof Error));
      const roomiest = ctx.roomiest(created.map((e) => ctx.endpoint(e.trigger.resource, 'create')).filter((x): x is NonNullable<typeof x> => x !== undefined));
      const fresh = created.find((e) => ctx.endpoint(e.trigger.resource, 'create') === roomiest) ?? created[0] ?? live.find((e) => !(fired.get(e) instanceof Error)) ?? live[0];
      const redo = { ctx, w, receiver, sub: main.sub, again: () => act(fresh, owner), idField: (t: Triggered) => idField(t.resource), timeoutMs, made };
      await checkRetry(redo);
      if (w.subscriptions === 'api') {
        await checkRotation(redo);
        await checkReplay(redo);
        await checkGone(redo);
        await unsubscribeChecked(ctx, w, main.sub);
      }
    }
  } finally {
    for (const v of versionStreams.values()) if (!(v instanceof Error)) v.close();
    for (const l of [main, other, narrow]) {
      l.stream?.close();
      if (l.sub && !l.sub.deleted && l.sub.itemPath) await unsubscribe(ctx, l.sub.itemPath, l.as).catch(() => undefined);
    }
    await receiver?.close();
  }
}

/** The principal that acts and listens: one that may call every endpoint, else every endpoint of the resources with events. */
function listenerFor(ctx: TestContext, live: readonly EventDef[]): Principal | undefined {
  const involved = new Set(live.map((e) => e.trigger.resource));
  return ctx.principals.find((p) => ctx.spec.endpoints.every((e) => ctx.may(p, e))) ?? ctx.principals.find((p) => ctx.spec.endpoints.filter((e) => involved.has(e.resource)).every((e) => ctx.may(p, e))) ?? ctx.main;
}

async function startReceiver(ctx: TestContext, w: Webhooks): Promise<WebhookReceiver | undefined> {
  const { callbackHost, callbackPort, webhookSecret } = ctx.events;
  const where = `http://${callbackHost ?? '127.0.0.1'}:${callbackPort ?? '<port>'}/svcspec/webhooks`;
  if (w.subscriptions === 'config' && (!webhookSecret || callbackPort === undefined)) {
    ctx.skip('events', 'webhooks', 'webhook deliveries', `subscriptions are configured by the operator: register ${where} (svcspec webhooks add)${callbackPort === undefined ? ', with the port fixed by --callback-port,' : ''} and pass its secret with --webhook-secret; the stream is still checked`, { needs: '--callback-port and --webhook-secret of the subscription the operator registered' });
    return undefined;
  }
  try {
    return await WebhookReceiver.start({ ...(callbackHost ? { callbackHost } : {}), ...(callbackPort !== undefined ? { port: callbackPort } : {}) });
  } catch (error) {
    ctx.skip('events', 'webhooks', 'webhook deliveries', `the tester's webhook receiver could not listen (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})${callbackPort !== undefined ? ` on port ${callbackPort}` : ''}`, { needs: 'a --callback-host and --callback-port the implementation can reach and this machine can listen on' });
    return undefined;
  }
}

/** The subscription deliveries are checked against: the API's (checked), or the operator's (its secret given). */
async function subscribe(ctx: TestContext, w: Webhooks, receiver: WebhookReceiver, live: readonly EventDef[], as: Principal | undefined): Promise<Subscription | undefined> {
  if (w.subscriptions === 'config') return { id: 'operator', secret: ctx.events.webhookSecret as string, deleted: true };
  if (!w.path) {
    ctx.skip('events', 'webhooks', 'webhook deliveries', 'subscriptions: api without a path: the tester has nowhere to subscribe', { kind: 'not-applicable' });
    return undefined;
  }
  const sub = await subscribeChecked(ctx, w, receiver, live.map((e) => e.name), as);
  if (!sub) ctx.skip('events', 'webhooks.deliveries', 'webhook deliveries', 'the tester could not subscribe (webhooks.subscribe failed), so no delivery can be checked');
  return sub;
}

/** The other principal's subscription, for the visibility check only: its own checks are the main one's. */
async function quietSubscribe(ctx: TestContext, w: Webhooks, receiver: WebhookReceiver, live: readonly EventDef[], as: Principal): Promise<Subscription | undefined> {
  const ex = await postSubscription(ctx, w, receiver.url('other'), live.map((e) => e.name), as);
  const body = ex.response.json;
  if (ex.response.status !== 201 || !isObject(body) || typeof body.secret !== 'string') return undefined;
  return { id: String(body.id), secret: body.secret, itemPath: `${w.path}/${encodeURIComponent(String(body.id))}`, as, tag: 'other', deleted: false };
}

/** An event outside the working version is not sent on the stream, which later events show was read past. */
async function checkPassedOver(ctx: TestContext, e: EventDef, t: Triggered | Error, stream: EventStream, later: readonly (Triggered | Error)[], idField: (r: Resource) => string): Promise<void> {
  await ctx.check('events', `${e.name}.not-in-version`, `${e.name} is not sent on the stream of version ${ctx.version}, outside its versions`, eventRule(e), async () => {
    if (t instanceof Error) throw t;
    const shown = later.some((l) => !(l instanceof Error) && stream.events.items.some((x) => isAbout(l, idField(l.resource), arrivedOfEvent(x))));
    if (!shown) throw new Skip('no later event arrived on the stream to show this one was passed over');
    const sent = stream.events.items.find((x) => isAbout(t, idField(t.resource), arrivedOfEvent(x)));
    if (sent) throw new Failure(`${e.name} (id ${sent.id ?? '(none)'}) was sent on the stream of version ${ctx.version}`, stream.exchange());
  });
}
