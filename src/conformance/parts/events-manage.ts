/**
 * Part 6, managing a subscription (docs/events.md "Signing" and "Subscriptions", with
 * `subscriptions: api`): a rotated secret signs at once, and the old one keeps signing beside
 * it (24 hours), so a receiver can switch at its own pace; deliveries are listed with their
 * outcome; a replayed delivery is sent again with the same webhook-id (an event is one event,
 * however often it is delivered). Each needs a fresh event or a delivery the receiver
 * already has, and runs before the 410 check disables the subscription.
 */
import { sleep } from '../arrivals.ts';
import { Failure, Skip } from '../context.ts';
import { isObject } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { deliveryExchange, type Delivery } from '../receiver.ts';
import { signatureProblem } from '../signature.ts';
import { deliveriesAbout, settle, type Redo } from './events-retry.ts';
import { arrivedOf, secretProblem, webhooksRule } from './events-webhooks.ts';

/**
 * How long a delivery the receiver answered may take to be listed as delivered: the service
 * records the outcome after the answer comes back, give or take the write.
 */
const SETTLED_GRACE_MS = 2_000;

export async function checkRotation(r: Redo): Promise<void> {
  const { ctx, w, receiver, sub, timeoutMs } = r;
  const path = `${sub.itemPath}/rotate-secret`;
  await ctx.check('events', 'webhooks.rotate-secret', `POST ${w.path}/{id}/rotate-secret answers a new secret; deliveries are then signed with it and, for 24 h, with the old one too`, { ...webhooksRule(w), text: `${webhooksRule(w).text}: rotate-secret` }, async () => {
    if (!sub.itemPath) throw new Skip('the subscription is not managed through the API');
    if (w.signing !== 'standard-webhooks') throw new Skip('deliveries are not signed');
    const old = sub.secret;
    const ex = await ctx.call('POST', path, { as: sub.as ?? null });
    if (ex.response.status !== 200) throw new Failure(`rotating the secret was answered ${ex.response.status}, not 200`, ex);
    const body = ex.response.json;
    if (!isObject(body) || String(body.id) !== sub.id) throw new Failure(`the answer is not subscription '${sub.id}'`, ex);
    const secret = body.secret;
    const bad = secretProblem(secret);
    if (bad) throw new Failure(`after the rotation, ${bad}`, ex);
    if (typeof secret !== 'string' || secret === old) throw new Failure('the new secret is the old one', ex);
    sub.secret = secret;
    await settle(r);
    const t = await r.again();
    const d = await receiver.deliveries.until(() => deliveriesAbout(r, t)[0], Date.now() + timeoutMs);
    if (!d) throw new Failure(`no ${t.event.name} about ${t.resource.name} '${t.id}' was delivered within ${timeoutMs / 1000} s of the rotation`, t.exchange);
    const at = d.at + ctx.now() - Date.now();
    const fresh = signatureProblem(secret, d.headers, d.raw, at);
    if (fresh) throw new Failure(`after the rotation, under the new secret: ${fresh}`, deliveryExchange(receiver, d));
    const kept = signatureProblem(old, d.headers, d.raw, at);
    if (kept) throw new Failure(`right after the rotation, under the old secret (it keeps signing for 24 h): ${kept}`, deliveryExchange(receiver, d));
  });
}

export async function checkReplay(r: Redo): Promise<void> {
  const { ctx, w, receiver, sub, timeoutMs } = r;
  const rule = { ...webhooksRule(w), text: `${webhooksRule(w).text}: deliveries, replay` };
  await ctx.check('events', 'webhooks.replay', `GET ${w.path}/{id}/deliveries lists a delivery as delivered, with its event id and type; POST …/deliveries/{id}/replay (202) sends it again with the same webhook-id and body`, rule, async () => {
    if (!sub.itemPath) throw new Skip('the subscription is not managed through the API');
    const mine = (d: Delivery) => receiver.to(sub.tag)(d);
    const done = receiver.deliveries.items.filter((d) => mine(d) && d.status >= 200 && d.status < 300 && d.headers['webhook-id']).at(-1);
    if (!done) throw new Skip('the receiver has accepted no delivery with a webhook-id to look up');
    const eventId = done.headers['webhook-id'];
    const { item, listed } = await listedAsDelivered(r, eventId);
    if (!item) throw new Failure(`no delivery of ${eventId} is listed as delivered ${SETTLED_GRACE_MS / 1000} s after the receiver answered it ${done.status}`, listed);
    const carried = arrivedOf(done, w.cloudEvents)?.type;
    deliveryProblems(item, eventId, typeof carried === 'string' ? carried : undefined, listed);
    const id = String(item.id);
    const before = receiver.deliveries.items.filter(mine).length;
    const ex = await ctx.call('POST', `${sub.itemPath}/deliveries/${encodeURIComponent(id)}/replay`, { as: sub.as ?? null });
    if (ex.response.status !== 202) throw new Failure(`replaying the delivery was answered ${ex.response.status}, not 202`, ex);
    if (!isObject(ex.response.json) || String(ex.response.json.id) !== id) throw new Failure(`the answer is not delivery '${id}'`, ex);
    // The same event again: its body (a replay resends it as it was); then its id is judged.
    const again = await receiver.deliveries.until((all) => all.filter(mine).slice(before).find((d) => d.body === done.body || d.headers['webhook-id'] === eventId), Date.now() + timeoutMs);
    if (!again) throw new Failure(`the replayed ${eventId} did not arrive again within ${timeoutMs / 1000} s`, ex);
    const shown = deliveryExchange(receiver, again);
    if (again.headers['webhook-id'] !== eventId) throw new Failure(`the replay came under webhook-id ${again.headers['webhook-id'] ?? '(none)'}, not ${eventId}: one event keeps one id, however often it is delivered`, shown);
    if (again.body !== done.body) throw new Failure(`the replay of ${eventId} carries another body than its first delivery`, shown);
    if (w.signing === 'standard-webhooks') {
      const problem = signatureProblem(sub.secret, again.headers, again.raw, again.at + ctx.now() - Date.now());
      if (problem) throw new Failure(`the replay: ${problem}`, shown);
    }
  });
}

/** The listed delivery of an event once it shows as delivered (polled for a short grace), and the last listing. */
async function listedAsDelivered(r: Redo, eventId: string): Promise<{ item?: Record<string, unknown>; listed: Exchange }> {
  const { ctx, sub } = r;
  const until = Date.now() + SETTLED_GRACE_MS;
  for (;;) {
    const listed = await ctx.call('GET', `${sub.itemPath}/deliveries?status=delivered`, { as: sub.as ?? null });
    if (listed.response.status !== 200) throw new Failure(`GET ${sub.itemPath}/deliveries answered ${listed.response.status}, not 200`, listed);
    const items = isObject(listed.response.json) ? listed.response.json.items : undefined;
    if (!Array.isArray(items)) throw new Failure("the deliveries have no 'items' array", listed);
    const item = items.find((i) => isObject(i) && i.eventId === eventId) as Record<string, unknown> | undefined;
    if (item || Date.now() > until) return { ...(item ? { item } : {}), listed };
    await sleep(100);
  }
}

/** A listed delivery: `{id, eventId, type, status, attempts, createdAt, deliveredAt, …}` (docs/events.md). */
function deliveryProblems(item: Record<string, unknown>, eventId: string, type: string | undefined, ex: Exchange): void {
  if (typeof item.id !== 'string' && typeof item.id !== 'number') throw new Failure(`the delivery of ${eventId} has no 'id'`, ex);
  if (item.status !== 'delivered') throw new Failure(`the delivery of ${eventId} listed as delivered has status ${JSON.stringify(item.status)}`, ex);
  if (typeof item.attempts !== 'number' || item.attempts < 1) throw new Failure(`the delivery of ${eventId} has attempts ${JSON.stringify(item.attempts)}, not a count from 1`, ex);
  if (type !== undefined && item.type !== type) throw new Failure(`the delivery of ${eventId} has type ${JSON.stringify(item.type)}; the event it carried is ${type}`, ex);
  for (const name of ['createdAt', 'deliveredAt'] as const) {
    const v = item[name];
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw new Failure(`the delivery's ${name} is ${JSON.stringify(v)}, not a time`, ex);
  }
}
