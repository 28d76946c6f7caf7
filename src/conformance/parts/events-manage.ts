/**
 * Part 6, managing a subscription (docs/events.md "Signing" and "Subscriptions", with
 * `subscriptions: api`): a rotated secret signs at once, and the old one keeps signing beside
 * it (24 hours), so a receiver can switch at its own pace; deliveries are listed with their
 * outcome; a replayed delivery is sent again with the same webhook-id (an event is one event,
 * however often it is delivered). Each needs a fresh event or a delivery the receiver
 * already has, and runs before the 410 check disables the subscription.
 */
import { Failure, Skip } from '../context.ts';
import { isObject } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { deliveryExchange } from '../receiver.ts';
import { keyOf, signatureProblem } from '../signature.ts';
import { EVENT_ID } from './events-payload.ts';
import { deliveriesAbout, settle, type Redo } from './events-retry.ts';
import { webhooksRule } from './events-webhooks.ts';

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
    const key = typeof secret === 'string' ? keyOf(secret) : undefined;
    if (typeof secret !== 'string' || !key || key.length < 24 || key.length > 64) throw new Failure(`the new 'secret' is ${JSON.stringify(secret)}, not a whsec_ secret of 24 to 64 bytes`, ex);
    if (secret === old) throw new Failure('the new secret is the old one', ex);
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
  await ctx.check('events', 'webhooks.replay', `GET ${w.path}/{id}/deliveries lists a delivery as delivered; POST …/deliveries/{id}/replay (202) sends it again with the same webhook-id`, rule, async () => {
    if (!sub.itemPath) throw new Skip('the subscription is not managed through the API');
    const mine = receiver.deliveries.items.filter((d) => receiver.to(sub.tag)(d) && d.status >= 200 && d.status < 300 && d.headers['webhook-id']);
    const done = mine.at(-1);
    if (!done) throw new Skip('the receiver has accepted no delivery with a webhook-id to look up');
    const eventId = done.headers['webhook-id'];
    const listed = await ctx.call('GET', `${sub.itemPath}/deliveries?status=delivered`, { as: sub.as ?? null });
    if (listed.response.status !== 200) throw new Failure(`GET ${sub.itemPath}/deliveries answered ${listed.response.status}, not 200`, listed);
    const items = isObject(listed.response.json) ? listed.response.json.items : undefined;
    if (!Array.isArray(items)) throw new Failure("the deliveries have no 'items' array", listed);
    const item = items.find((i) => isObject(i) && i.eventId === eventId);
    if (!isObject(item)) throw new Failure(`no delivered delivery of ${eventId} is listed (the receiver answered it ${done.status})`, listed);
    deliveryProblems(item, eventId, listed);
    const id = String(item.id);
    const before = receiver.deliveries.items.filter((d) => d.headers['webhook-id'] === eventId).length;
    const ex = await ctx.call('POST', `${sub.itemPath}/deliveries/${encodeURIComponent(id)}/replay`, { as: sub.as ?? null });
    if (ex.response.status !== 202) throw new Failure(`replaying the delivery was answered ${ex.response.status}, not 202`, ex);
    if (!isObject(ex.response.json) || String(ex.response.json.id) !== id) throw new Failure(`the answer is not delivery '${id}'`, ex);
    const again = await receiver.deliveries.until((all) => all.filter((d) => d.headers['webhook-id'] === eventId)[before], Date.now() + timeoutMs);
    if (!again) throw new Failure(`the replayed ${eventId} did not arrive again within ${timeoutMs / 1000} s`, ex);
    if (again.body !== done.body) throw new Failure(`the replay of ${eventId} carries another body than its first delivery`, deliveryExchange(receiver, again));
    if (w.signing === 'standard-webhooks') {
      const problem = signatureProblem(sub.secret, again.headers, again.raw, again.at + ctx.now() - Date.now());
      if (problem) throw new Failure(`the replay: ${problem}`, deliveryExchange(receiver, again));
    }
  });
}

/** A listed delivery: `{id, eventId, type, status, attempts, createdAt, …}` (docs/events.md). */
function deliveryProblems(item: Record<string, unknown>, eventId: string, ex: Exchange): void {
  if (typeof item.id !== 'string' && typeof item.id !== 'number') throw new Failure(`the delivery of ${eventId} has no 'id'`, ex);
  if (!EVENT_ID.test(String(item.eventId))) throw new Failure(`the delivery's eventId ${JSON.stringify(item.eventId)} is not of the form evt_<n>`, ex);
  if (item.status !== 'delivered') throw new Failure(`the delivery of ${eventId} listed as delivered has status ${JSON.stringify(item.status)}`, ex);
  if (typeof item.attempts !== 'number' || item.attempts < 1) throw new Failure(`the delivery of ${eventId} has attempts ${JSON.stringify(item.attempts)}, not a count from 1`, ex);
  if (typeof item.type !== 'string') throw new Failure(`the delivery of ${eventId} has no event 'type'`, ex);
  for (const name of ['createdAt', 'deliveredAt'] as const) {
    const v = item[name];
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw new Failure(`the delivery's ${name} is ${JSON.stringify(v)}, not a time`, ex);
  }
}
