/**
 * Part 6, delivery at least once (docs/events.md "Delivery is at least once"): a delivery the
 * receiver refuses (503) is attempted again within the retry policy's first delay, with the
 * same webhook-id; a 410 Gone disables the subscription at once. Both need a fresh event,
 * and the retry check waits for the first retry: it runs only when that is due within the
 * tester's event time-out (the examples' policies start at 30 s or a minute: skipped there).
 */
import { SAFETY } from '../../spec/defaults.ts';
import { Failure, NotApplicable, Skip, type TestContext } from '../context.ts';
import { isObject } from '../expect.ts';
import { deliveryExchange, type Delivery, type WebhookReceiver } from '../receiver.ts';
import { signatureProblem } from '../signature.ts';
import { isAbout } from './events-payload.ts';
import type { Triggered } from './events-trigger.ts';
import { arrivedOf, webhooksRule, type Subscription, type Webhooks } from './events-webhooks.ts';

/** How long a 410 may take to show as `disabled`: "at once", give or take the write. */
const GONE_GRACE_MS = 2_000;

export interface Redo {
  readonly ctx: TestContext;
  readonly w: Webhooks;
  readonly receiver: WebhookReceiver;
  readonly sub: Subscription;
  /** Makes a fresh event happen (one the subscription receives). */
  readonly again: () => Promise<Triggered>;
  readonly idField: (t: Triggered) => string;
  readonly timeoutMs: number;
  /** Every event made so far that the subscription is to receive. */
  readonly made: readonly Triggered[];
}

/**
 * The receiver refuses "the next delivery", so none of the events made before may still be on
 * its way: each is waited for (at most the time-out; one that never comes has failed already).
 */
export async function settle(r: Redo): Promise<void> {
  await r.receiver.deliveries.until(() => (r.made.every((t) => deliveriesAbout(r, t).length > 0) ? true : undefined), Date.now() + r.timeoutMs);
}

export function deliveriesAbout(r: Redo, t: Triggered): Delivery[] {
  return r.receiver.deliveries.items.filter((d) => r.receiver.to(r.sub.tag)(d) && isAbout(t, r.idField(t), arrivedOf(d, r.w.cloudEvents)));
}

export async function checkRetry(r: Redo): Promise<void> {
  const { ctx, w, receiver, sub, timeoutMs } = r;
  const policy = ctx.spec.events.retry;
  const attempts = policy?.attempts ?? SAFETY.retry.attempts;
  const delay = policy?.initialDelayMs ?? SAFETY.retry.initialDelayMs;
  const rule = policy ? { pointer: policy.pointer, text: `retry: ${attempts} attempts, ${policy.backoff}, first after ${delay / 1000} s` } : { ...webhooksRule(w), text: `no retry policy: the convention's ${SAFETY.retry.attempts} attempts, first after ${SAFETY.retry.initialDelayMs / 1000} s` };
  await ctx.check('events', 'webhooks.retry', 'a delivery the receiver answers 503 is attempted again, with the same webhook-id', rule, async () => {
    if (attempts < 2) throw new NotApplicable('the retry policy makes one attempt only');
    if (delay > timeoutMs) throw new Skip(`the first retry is due up to ${delay / 1000} s after a failure; this check runs when that is within the event time-out (--event-timeout, ${timeoutMs / 1000} s)`, { needs: `--event-timeout ${Math.ceil(delay / 1000) + 5} (the first retry is due ${delay / 1000} s after a failure)` });
    await settle(r);
    receiver.answerNext(1, 503, sub.tag);
    const t = await r.again();
    const both = await receiver.deliveries.until(() => {
      const mine = deliveriesAbout(r, t);
      return mine.length >= 2 ? mine : undefined;
    }, Date.now() + delay + timeoutMs);
    const first = deliveriesAbout(r, t)[0];
    if (!first) throw new Failure(`no ${t.event.name} about ${t.resource.name} '${t.id}' was delivered within ${(delay + timeoutMs) / 1000} s`, t.exchange);
    if (!both) throw new Failure(`the delivery answered ${first.status} was not attempted again within ${(delay + timeoutMs) / 1000} s (the first retry is due within ${delay / 1000} s)`, deliveryExchange(receiver, first));
    const second = both[1];
    const ex = deliveryExchange(receiver, second);
    if (first.status !== 503) throw new Skip(`the receiver's 503 went to another delivery (an earlier event's, late); the first delivery of ${t.event.name} was answered ${first.status}`);
    if (first.headers['webhook-id'] !== second.headers['webhook-id']) throw new Failure(`the retry's webhook-id is ${second.headers['webhook-id'] ?? '(none)'}, the first attempt's ${first.headers['webhook-id'] ?? '(none)'}: a retry keeps the id`, ex);
    if (w.signing === 'standard-webhooks') {
      const problem = signatureProblem(sub.secret, second.headers, second.raw, second.at + ctx.now() - Date.now());
      if (problem) throw new Failure(`the retry: ${problem}`, ex);
    }
  });
}

export async function checkGone(r: Redo): Promise<void> {
  const { ctx, w, receiver, sub, timeoutMs } = r;
  await ctx.check('events', 'webhooks.gone', 'a 410 Gone from the receiver disables the subscription at once (status disabled)', webhooksRule(w), async () => {
    if (!sub.itemPath) throw new Skip('the subscription is not managed through the API');
    await settle(r);
    receiver.answerNext(1, 410, sub.tag);
    const t = await r.again();
    const gone = await receiver.deliveries.until(() => deliveriesAbout(r, t)[0], Date.now() + timeoutMs);
    if (!gone) throw new Failure(`no ${t.event.name} about ${t.resource.name} '${t.id}' was delivered within ${timeoutMs / 1000} s`, t.exchange);
    if (gone.status !== 410) throw new Skip(`the receiver's 410 went to another delivery (an earlier event's, late); the delivery of ${t.event.name} was answered ${gone.status}`);
    const until = Date.now() + GONE_GRACE_MS;
    for (;;) {
      const ex = await ctx.call('GET', sub.itemPath, { as: sub.as ?? null });
      const status = isObject(ex.response.json) ? ex.response.json.status : undefined;
      if (status === 'disabled') return;
      if (Date.now() > until) throw new Failure(`${GONE_GRACE_MS / 1000} s after its delivery was answered 410, the subscription's status is ${JSON.stringify(status)}, not 'disabled'`, ex);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
}
