/**
 * Part 6, webhooks (docs/events.md "Webhooks"): the subscriptions API (`subscriptions: api`),
 * and each delivery held to the convention: a POST of `{type, timestamp, data}` as JSON (or
 * a CloudEvents 1.0 structured event, `application/cloudevents+json`, with `cloudEvents`),
 * signed per Standard Webhooks when `signing: standard-webhooks` (verified independently,
 * src/conformance/signature.ts), its data exactly the declared payload.
 */
import { WEBHOOK_BODY_MEMBERS } from '../../spec/conventions/events.ts';
import type { Events } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import { expectError, isObject, jsonEqual } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { deliveryExchange, type Delivery, type WebhookReceiver } from '../receiver.ts';
import { keyOf, signatureProblem, TIMESTAMP_TOLERANCE_S } from '../signature.ts';
import { EVENT_ID, EVENT_TIME, eventRule, isAbout, payloadProblem, summary, type Arrived } from './events-payload.ts';
import type { Triggered } from './events-trigger.ts';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export type Webhooks = NonNullable<Events['webhooks']>;

/** How far an event's time may be from the change the tester made (clock skew and the round trip; the signature's tolerance). */
const TIME_TOLERANCE_S = TIMESTAMP_TOLERANCE_S;

/** A subscription the tester holds: where its deliveries go and the secret they are signed with. */
export interface Subscription {
  readonly id: string;
  /** The secret deliveries are signed with: the latest, after a rotation. */
  secret: string;
  readonly itemPath?: string;
  readonly as?: Principal;
  /** The receiver URL's tag; undefined for the operator's subscription (any path). */
  readonly tag?: string;
  deleted: boolean;
}

export function webhooksRule(w: Webhooks): { pointer: string; text: string } {
  return { pointer: w.pointer, text: `webhooks: subscriptions ${w.subscriptions}${w.path ? ` at ${w.path}` : ''}, signing ${w.signing}${w.cloudEvents ? ', CloudEvents' : ''}` };
}

function signingRule(ctx: TestContext, w: Webhooks): { pointer: string; text: string } {
  const pointer = `${w.pointer}/signing`;
  return { pointer: ctx.spec.source.has(pointer) ? pointer : w.pointer, text: `signing: ${w.signing}` };
}

/** POST {path} {url, events}: the subscription, or undefined when refused (the refusal is the returned exchange). */
export async function postSubscription(ctx: TestContext, w: Webhooks, url: string, events: readonly string[], as: Principal | undefined): Promise<Exchange> {
  return ctx.call('POST', w.path as string, { body: { url, events }, as: as ?? null });
}

/** Subscribes the receiver through the API and checks the answer, the list and the item; undefined when that failed. */
export async function subscribeChecked(ctx: TestContext, w: Webhooks, receiver: WebhookReceiver, names: readonly string[], as: Principal | undefined): Promise<Subscription | undefined> {
  const rule = webhooksRule(w);
  const url = receiver.url('main');
  let sub: Subscription | undefined;
  await ctx.check('events', 'webhooks.subscribe', `POST ${w.path} subscribes the tester's receiver: 201 with a whsec_ secret, id, url, events, status enabled`, rule, async () => {
    const ex = await postSubscription(ctx, w, url, names, as);
    if (ex.response.status !== 201) {
      // A service that guards against server-side request forgery (OWASP: no requests to internal addresses)
      // refuses a receiver on a private address: right of it, and a setting of the run, not a defect to fail.
      const allow = `allow private webhook URLs for the test (svcspec's own service: serve --allow-private-webhooks), or give --callback-host with a name it accepts`;
      const aboutUrl = ex.response.status === 422 && /url/i.test(ex.response.text);
      if (aboutUrl && (await isPrivateUrl(url))) {
        throw new Skip(`the service refuses the receiver's private URL ${url} (422), as a service guarding against server-side request forgery may: ${allow}`, { needs: 'a receiver URL the service accepts (serve --allow-private-webhooks, or --callback-host)' });
      }
      throw new Failure(`subscribing was answered ${ex.response.status}, not 201${aboutUrl ? `; if the service refuses the receiver's URL ${url} as private, ${allow}` : ''}`, ex);
    }
    const body = ex.response.json;
    if (!isObject(body)) throw new Failure('the subscription answered is not a JSON object', ex);
    const id = body.id;
    if (typeof id !== 'string' && typeof id !== 'number') throw new Failure("the subscription has no 'id'", ex);
    const secret = body.secret;
    const bad = secretProblem(secret);
    if (bad) throw new Failure(bad, ex);
    sub = { id: String(id), secret: secret as string, itemPath: `${w.path}/${encodeURIComponent(String(id))}`, ...(as ? { as } : {}), tag: 'main', deleted: false };
    subscriptionProblems(ctx, body, url, names, ex);
    if (!ex.response.headers.location) throw new Failure('the 201 has no Location', ex);
  });
  if (!sub) return undefined;
  const made = sub;
  await ctx.check('events', 'webhooks.read', `GET ${w.path} lists the subscription and GET ${w.path}/{id} shows it, neither with its secret`, rule, async () => {
    const list = await ctx.call('GET', w.path as string, { as: as ?? null });
    if (list.response.status !== 200) throw new Failure(`GET ${w.path} answered ${list.response.status}, not 200`, list);
    const items = isObject(list.response.json) ? list.response.json.items : undefined;
    if (!Array.isArray(items)) throw new Failure("the list has no 'items' array", list);
    const mine = items.find((i) => isObject(i) && String(i.id) === made.id);
    if (!mine) throw new Failure(`subscription '${made.id}' is not listed`, list);
    if ('secret' in mine) throw new Failure('the list shows the secret; it is shown only when subscribing', list);
    const item = await ctx.call('GET', made.itemPath as string, { as: as ?? null });
    if (item.response.status !== 200 || !isObject(item.response.json)) throw new Failure(`GET ${made.itemPath} answered ${item.response.status}`, item);
    if ('secret' in item.response.json) throw new Failure('the subscription read shows the secret; it is shown only when subscribing', item);
    if (String(item.response.json.id) !== made.id) throw new Failure(`the subscription read has id ${JSON.stringify(item.response.json.id)}`, item);
    subscriptionProblems(ctx, item.response.json, url, names, item);
  });
  for (const [id, body, pointer, what] of [
    ['webhooks.unknown-event', { url, events: ['svcspec.no-such-event'] }, '/events', 'an unknown event name'],
    ['webhooks.bad-url', { url: 'ftp://svcspec.example/hook', events: names }, '/url', 'a URL that is not http(s)'],
  ] as const) {
    await ctx.check('events', id, `subscribing with ${what} is refused (validation-failed, naming ${pointer})`, rule, async () => {
      const ex = await ctx.call('POST', w.path as string, { body, as: as ?? null });
      if (ex.response.status === 201 && isObject(ex.response.json)) await unsubscribe(ctx, `${w.path}/${encodeURIComponent(String(ex.response.json.id))}`, as);
      expectError(ctx, ex, 'validation-failed');
      const list = ctx.errorShape.members.errors;
      const violations = list && isObject(ex.response.json) ? ex.response.json[list] : undefined;
      if (list && (!Array.isArray(violations) || !violations.some((v) => JSON.stringify(v).includes(`"${pointer}`)))) throw new Failure(`the error lists no violation at '${pointer}' in '${list}'`, ex);
    });
  }
  return made;
}

/** Why a subscription's `secret` is not a Standard Webhooks secret (whsec_ and base64 of 24 to 64 bytes), or undefined. */
export function secretProblem(secret: unknown): string | undefined {
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) return `the subscription's 'secret' is ${JSON.stringify(secret)}, not a whsec_ secret`;
  const key = keyOf(secret);
  if (!key || key.length < 24 || key.length > 64) return `the secret after whsec_ must be base64 of 24 to 64 bytes (Standard Webhooks); it is ${key ? `${key.length} bytes` : 'not base64'}`;
  return undefined;
}

function subscriptionProblems(ctx: TestContext, body: Record<string, unknown>, url: string, names: readonly string[], ex: Exchange): void {
  if (body.url !== url) throw new Failure(`the subscription's url is ${JSON.stringify(body.url)}, not the ${url} subscribed`, ex);
  if (!Array.isArray(body.events) || !jsonEqual([...body.events].sort(), [...names].sort())) throw new Failure(`the subscription's events are ${JSON.stringify(body.events)}, not ${JSON.stringify(names)}`, ex);
  if (body.status !== 'enabled') throw new Failure(`the subscription's status is ${JSON.stringify(body.status)}, not 'enabled'`, ex);
  if (typeof body.createdAt !== 'string' || Number.isNaN(Date.parse(body.createdAt))) throw new Failure(`the subscription's createdAt is ${JSON.stringify(body.createdAt)}, not a time`, ex);
  if (body.apiVersion !== undefined && ctx.version !== undefined && String(body.apiVersion) !== ctx.version) throw new Failure(`the subscription made in version ${ctx.version} has apiVersion ${JSON.stringify(body.apiVersion)}`, ex);
}

/** DELETE {path}/{id}: the exchange (failures to reach it are the caller's). */
export async function unsubscribe(ctx: TestContext, itemPath: string, as: Principal | undefined): Promise<Exchange> {
  return ctx.call('DELETE', itemPath, { as: as ?? null });
}

export async function unsubscribeChecked(ctx: TestContext, w: Webhooks, sub: Subscription): Promise<void> {
  await ctx.check('events', 'webhooks.unsubscribe', `DELETE ${w.path}/{id} ends the subscription: 204, then 404`, webhooksRule(w), async () => {
    const ex = await unsubscribe(ctx, sub.itemPath as string, sub.as);
    if (ex.response.status !== 204) throw new Failure(`DELETE answered ${ex.response.status}, not 204`, ex);
    sub.deleted = true;
    expectError(ctx, await ctx.call('GET', sub.itemPath as string, { as: sub.as ?? null }), 'not-found');
  });
}

/** A delivery read as an event: the plain envelope, or a CloudEvents structured event. */
export function arrivedOf(d: Delivery, cloudEvents: boolean): Arrived | undefined {
  let json: unknown;
  try {
    json = JSON.parse(d.body);
  } catch {
    return undefined;
  }
  if (!isObject(json)) return undefined;
  return { type: json.type, data: json.data, ...(cloudEvents ? { subject: json.subject } : {}) };
}

/** Waits for the delivery about a triggered change (to the subscription's URL); the nearest miss when none came. */
export async function deliveryOf(receiver: WebhookReceiver, sub: Subscription, t: Triggered, idField: string, cloudEvents: boolean, deadline: number): Promise<{ found?: Delivery; near?: Delivery; seen: Delivery[] }> {
  const mine = (d: Delivery) => sub.tag === undefined || receiver.to(sub.tag)(d);
  const found = await receiver.deliveries.until((items) => items.find((d) => mine(d) && isAbout(t, idField, arrivedOf(d, cloudEvents))), deadline);
  const seen = receiver.deliveries.items.filter(mine);
  return { ...(found ? { found } : {}), ...(!found ? { near: seen.find((d) => isAbout(t, idField, arrivedOf(d, cloudEvents), true)) } : {}), seen };
}

/** The checks of one event's delivery: it arrived, in the envelope, with its payload; and (signed) its signature. */
export async function checkDelivery(ctx: TestContext, w: Webhooks, receiver: WebhookReceiver, sub: Subscription, t: Triggered, idField: string, deadline: number, timeoutMs: number): Promise<Delivery | undefined> {
  const name = t.event.name;
  let delivered: Delivery | undefined;
  await ctx.check('events', `${name}.webhook`, `${name} is delivered by webhook within ${timeoutMs / 1000} s, in the ${w.cloudEvents ? 'CloudEvents structured' : '{type, timestamp, data}'} envelope, with its declared payload`, eventRule(t.event), async () => {
    const { found, near, seen } = await deliveryOf(receiver, sub, t, idField, w.cloudEvents, deadline);
    const d = found ?? near;
    if (!d) throw new Failure(`no ${name} about ${t.resource.name} '${t.id}' was delivered within ${timeoutMs / 1000} s of the change (${summary(seen.map((x) => arrivedOf(x, w.cloudEvents)), idField)})`, t.exchange);
    delivered = d;
    const ex = deliveryExchange(receiver, d);
    if (d.method !== 'POST') throw new Failure(`the delivery is a ${d.method}, not a POST`, ex);
    envelopeProblems(ctx, w, t, d, ex);
    if (!found) throw new Failure(`a ${name} was delivered, but not about ${t.resource.name} '${t.id}'`, ex);
  });
  if (w.signing !== 'standard-webhooks') return delivered;
  await ctx.check('events', `${name}.webhook-signature`, `${name}'s delivery is signed (Standard Webhooks): webhook-id evt_<n>, a fresh webhook-timestamp, a v1 signature that verifies`, signingRule(ctx, w), async () => {
    if (!delivered) throw new Skip(`no ${name} was delivered to verify`);
    const ex = deliveryExchange(receiver, delivered);
    // Freshness is judged on the implementation's clock when a test moves it (ctx.now); else this machine's.
    const problem = signatureProblem(sub.secret, delivered.headers, delivered.raw, delivered.at + ctx.now() - Date.now());
    if (problem) throw new Failure(problem, ex);
    if (!EVENT_ID.test(delivered.headers['webhook-id'])) throw new Failure(`webhook-id '${delivered.headers['webhook-id']}' is not of the form evt_<n>`, ex);
  });
  return delivered;
}

function envelopeProblems(ctx: TestContext, w: Webhooks, t: Triggered, d: Delivery, ex: Exchange): void {
  const media = (d.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const want = w.cloudEvents ? 'application/cloudevents+json' : 'application/json';
  if (media !== want) throw new Failure(`the delivery's content type is '${d.headers['content-type'] ?? '(none)'}', not ${want}`, ex);
  const body = JSON.parse(d.body) as Record<string, unknown>;
  const timeProblem = (name: string, v: unknown): string | undefined => {
    if (typeof v !== 'string' || !EVENT_TIME.test(v)) return `${name} ${JSON.stringify(v)} is not RFC 3339 UTC with milliseconds`;
    const off = Math.abs(Date.parse(v) - t.at) / 1000;
    return off > TIME_TOLERANCE_S ? `${name} ${v} is ${Math.round(off)} s from the change; it is when the change was committed` : undefined;
  };
  if (w.cloudEvents) {
    const want2: Record<string, unknown> = { specversion: '1.0', source: `/${t.resource.plural}`, type: t.event.name, subject: t.id, datacontenttype: 'application/json' };
    for (const [k, v] of Object.entries(want2)) if (body[k] === undefined || String(body[k]) !== v) throw new Failure(`the CloudEvent's '${k}' is ${JSON.stringify(body[k])}, not ${JSON.stringify(v)}`, ex);
    if (typeof body.id !== 'string' || !EVENT_ID.test(body.id)) throw new Failure(`the CloudEvent's id ${JSON.stringify(body.id)} is not of the form evt_<n>`, ex);
    if (d.headers['webhook-id'] !== undefined && d.headers['webhook-id'] !== body.id) throw new Failure(`the CloudEvent's id '${body.id}' differs from webhook-id '${d.headers['webhook-id']}'`, ex);
    const late = timeProblem("the CloudEvent's time", body.time);
    if (late) throw new Failure(late, ex);
  } else {
    const extra = Object.keys(body).filter((k) => !(WEBHOOK_BODY_MEMBERS as readonly string[]).includes(k));
    if (extra.length) throw new Failure(`the envelope has ${extra.map((k) => `'${k}'`).join(', ')} beside type, timestamp and data`, ex);
    if (body.type !== t.event.name) throw new Failure(`'type' is ${JSON.stringify(body.type)}, not '${t.event.name}'`, ex);
    const late = timeProblem("'timestamp'", body.timestamp);
    if (late) throw new Failure(late, ex);
  }
  const problem = payloadProblem(ctx, t, body.data);
  if (problem) throw new Failure(problem, ex);
}

/**
 * Whether a URL's host is, or resolves to, a loopback, private, shared (RFC 6598), link-local
 * or unspecified address: what SSRF guards refuse. A name (`--callback-host tester`, a
 * compose service) is looked up, as the service would.
 */
export async function isPrivateUrl(url: string): Promise<boolean> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  let addresses = [host];
  if (isIP(host) === 0) {
    // Bounded: a resolver that does not answer costs the run two seconds, not the system's time-out.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 2000)));
    const found = await Promise.race([lookup(host, { all: true }).catch(() => undefined), late]);
    clearTimeout(timer);
    if (!found) return false;
    addresses = found.map((a) => a.address);
  }
  return addresses.some(privateAddress);
}

function privateAddress(address: string): boolean {
  // An IPv4 address mapped into IPv6 (::ffff:127.0.0.1, written ::ffff:7f00:1 by URL) is that IPv4 address.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  const v4 = mapped ? [parseInt(mapped[1]!, 16) >> 8, parseInt(mapped[1]!, 16) & 255, parseInt(mapped[2]!, 16) >> 8, parseInt(mapped[2]!, 16) & 255].join('.') : address.replace(/^::ffff:/i, '');
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number) as [number, number];
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  return address === '::1' || address === '::' || /^f[cd][0-9a-f]{2}:/i.test(address) || /^fe[89ab][0-9a-f]:/i.test(address);
}
