/**
 * The operator's side of webhooks (`svcspec webhooks …`): subscriptions configured out of
 * band (`webhooks.subscriptions: config`), and for either mode the listing and replay of
 * deliveries. They work on the store the service uses, running or not: a subscription added
 * here, and a replay, are picked up by a running service's next poll (a second; it receives
 * every event after it all the same).
 *
 * Operator subscriptions see every event (they belong to no principal); their payloads are
 * in the API version given, else the spec's default version.
 */
import type { Spec } from '../../spec/model.ts';
import type { DeliveryRecord, DeliveryStatus, SubscriptionRecord } from '../../store/events.ts';
import type { Store } from '../../store/store.ts';
import { newSecret, rotated } from './signing.ts';
import { refusedUrl } from './ssrf.ts';
import { newSubscriptionId } from './subscriptions.ts';

export type OperatorResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

export interface AddOptions {
  readonly url: string;
  readonly events?: readonly string[];
  readonly description?: string;
  readonly apiVersion?: string;
  /** Allow loopback and private addresses (as serve --allow-private-webhooks). */
  readonly allowPrivate?: boolean;
  readonly now?: number;
}

function fail<T>(message: string): OperatorResult<T> {
  return { ok: false, message };
}

export async function addSubscription(spec: Spec, store: Store, o: AddOptions): Promise<OperatorResult<{ subscription: SubscriptionRecord; secret: string }>> {
  if (spec.parts.events.statement !== 'given' || !spec.events.webhooks) return fail('the spec delivers no events by webhooks (events.webhooks), so there is nothing to subscribe to.');
  const why = refusedUrl(o.url, o.allowPrivate === true);
  if (why) return fail(`the URL ${why}.`);
  const names = spec.events.catalog.map((e) => e.name);
  const unknown = (o.events ?? []).filter((e) => !names.includes(e));
  if (unknown.length) return fail(`${unknown.map((e) => `'${e}'`).join(', ')} ${unknown.length === 1 ? 'is not an event' : 'are not events'} of the spec (events: ${names.join(', ')}).`);
  const versions = spec.parts.versioning.statement === 'given' ? spec.versioning.versions.filter((v) => v.status !== 'retired').map((v) => v.name) : [];
  let apiVersion = o.apiVersion;
  if (versions.length === 0 && apiVersion !== undefined) return fail('the spec has no versions; leave out --api-version.');
  if (versions.length > 0) {
    apiVersion ??= spec.versioning.default ?? versions.at(-1);
    if (!versions.includes(apiVersion as string)) return fail(`'${apiVersion}' is not a live version (versions: ${versions.join(', ')}).`);
  }
  const secret = newSecret();
  const subscription = await store.events.addSubscription({
    id: newSubscriptionId(), url: o.url, events: [...new Set(o.events ?? [])],
    ...(o.description !== undefined ? { description: o.description } : {}),
    status: 'enabled', ...(apiVersion !== undefined ? { apiVersion } : {}),
    secrets: [{ secret }], createdAt: o.now ?? Date.now(),
  });
  return { ok: true, value: { subscription, secret } };
}

export async function removeSubscription(store: Store, id: string): Promise<OperatorResult<string>> {
  return (await store.events.removeSubscription(id)) ? { ok: true, value: `removed ${id} and its deliveries` } : fail(`there is no subscription '${id}'.`);
}

export async function rotateSecret(store: Store, id: string, now = Date.now()): Promise<OperatorResult<string>> {
  const s = await store.events.getSubscription(id);
  if (!s) return fail(`there is no subscription '${id}'.`);
  const secrets = rotated(s.secrets, now);
  await store.events.changeSubscription(id, { secrets });
  return { ok: true, value: secrets[0].secret };
}

/** Enables a disabled subscription again (after a 410, say); its pending deliveries resume. */
export async function enableSubscription(store: Store, id: string): Promise<OperatorResult<string>> {
  return (await store.events.changeSubscription(id, { status: 'enabled' })) ? { ok: true, value: `enabled ${id}` } : fail(`there is no subscription '${id}'.`);
}

export async function listDeliveries(store: Store, id: string, status?: DeliveryStatus, limit = 100): Promise<OperatorResult<readonly DeliveryRecord[]>> {
  if (!(await store.events.getSubscription(id))) return fail(`there is no subscription '${id}'.`);
  return { ok: true, value: await store.events.listDeliveries(id, { ...(status ? { status } : {}), limit }) };
}

export async function replayDelivery(store: Store, id: string, now = Date.now()): Promise<OperatorResult<DeliveryRecord>> {
  const d = await store.events.replay(id, now);
  return d ? { ok: true, value: d } : fail(`there is no delivery '${id}'.`);
}
