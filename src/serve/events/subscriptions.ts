/**
 * Webhook subscriptions managed through the API (`webhooks.subscriptions: api`), at the
 * spec's `webhooks.path` (docs/events.md "Subscriptions"). A principal sees and changes only
 * its own subscriptions; another's answers 404, as owned records do. The operator's
 * equivalents are `svcspec webhooks …` (src/serve/events/operator.ts).
 *
 *   POST   P                                  201 with the secret (shown once) and Location
 *   GET    P                                  200 {items}
 *   GET    P/{id}                             200
 *   DELETE P/{id}                             204
 *   POST   P/{id}/rotate-secret               200 with the new secret
 *   GET    P/{id}/deliveries?status=          200 {items}, newest first
 *   POST   P/{id}/deliveries/{delivery}/replay 202
 */
import { randomBytes } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint } from '../../spec/model.ts';
import type { DeliveryRecord, DeliveryStatus, SubscriptionRecord } from '../../store/events.ts';
import type { ServeContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { JSON_TYPE } from '../representation.ts';
import { createAjv, validationFailed } from '../validation.ts';
import { violationsOf } from '../violations.ts';
import { eventId } from './envelope.ts';
import { newSecret, rotated } from './signing.ts';
import { refusedUrl } from './ssrf.ts';

/** At most this many subscriptions per principal, and deliveries per listing. */
export const MAX_SUBSCRIPTIONS = 100;
export const MAX_DELIVERIES_LISTED = 100;
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];

export interface SubscriptionRoutes {
  readonly ctx: ServeContext;
  readonly path: string;
  /** Put before the routes' URLs (a version's prefix, part 9); '' for none. */
  readonly prefix: string;
  /** Route options per route, from index.ts: the synthetic endpoint that authentication and the other hooks read. */
  readonly endpointOf: (method: string, path: string) => Endpoint;
  readonly allowPrivate: boolean;
  /** Names of the events subscribers may ask for. */
  readonly eventNames: readonly string[];
  /** Wakes delivery after a replay. */
  readonly wake: () => void;
}

/** The subscription as the API shows it: never its secrets, but once, on creation and rotation. */
export function presentSubscription(s: SubscriptionRecord, secret?: string): Record<string, unknown> {
  return {
    id: s.id, url: s.url, events: s.events,
    ...(s.description !== undefined ? { description: s.description } : {}),
    status: s.status,
    ...(s.disabledReason !== undefined ? { disabledReason: s.disabledReason } : {}),
    ...(s.apiVersion !== undefined ? { apiVersion: s.apiVersion } : {}),
    createdAt: new Date(s.createdAt).toISOString(),
    ...(secret !== undefined ? { secret } : {}),
  };
}

export function presentDelivery(d: DeliveryRecord): Record<string, unknown> {
  return {
    id: d.id, eventId: eventId(d.eventSeq), type: d.eventName, status: d.status, attempts: d.attempts,
    ...(d.lastStatus !== undefined ? { lastStatus: d.lastStatus } : {}),
    ...(d.lastError !== undefined ? { lastError: d.lastError } : {}),
    ...(d.status === 'pending' && d.nextAttemptAt !== undefined ? { nextAttemptAt: new Date(d.nextAttemptAt).toISOString() } : {}),
    createdAt: new Date(d.createdAt).toISOString(),
    ...(d.deliveredAt !== undefined ? { deliveredAt: new Date(d.deliveredAt).toISOString() } : {}),
  };
}

export function newSubscriptionId(): string {
  return `sub_${randomBytes(12).toString('base64url')}`;
}

export function registerSubscriptionRoutes(app: FastifyInstance, r: SubscriptionRoutes): void {
  const { ctx, path } = r;
  const events = ctx.store.events;
  // Compiled with the first subscription, not at start-up (issue #20: an Ajv compile is tens of ms).
  let compiled: ValidateFunction | undefined;
  const validator = (): ValidateFunction => (compiled ??= createAjv().compile({
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 2048 },
      events: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...r.eventNames] } },
      description: { type: 'string', maxLength: 1000 },
    },
  }));
  const route = (method: 'GET' | 'POST' | 'DELETE', url: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => {
    app.route({ method, url: r.prefix.replaceAll(':', '::') + url.replace(/\{(\w+)\}/g, ':$1'), config: { endpoint: r.endpointOf(method, url) }, handler });
  };
  // Anonymous callers (a spec without authentication) share the empty owner key, as with owned records.
  const ownerOf = (request: FastifyRequest): string => request.principal?.id ?? '';
  const mine = async (request: FastifyRequest): Promise<SubscriptionRecord> => {
    const id = (request.params as { id: string }).id;
    const s = await events.getSubscription(id);
    if (!s || s.principal !== ownerOf(request)) throw new HttpError('not-found', { detail: `There is no webhook subscription with id '${id}'.` });
    return s;
  };
  const json = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type(JSON_TYPE).send(JSON.stringify(body));

  route('POST', path, async (request, reply) => {
    const body = request.body ?? {};
    const validate = validator();
    if (!validate(body)) throw validationFailed(violationsOf(validate.errors ?? []));
    const given = body as { url: string; events?: string[]; description?: string };
    const why = refusedUrl(given.url, r.allowPrivate);
    if (why) throw validationFailed([{ pointer: '/url', message: why }]);
    const owner = ownerOf(request);
    if ((await events.listSubscriptions(owner)).length >= MAX_SUBSCRIPTIONS) {
      throw validationFailed([{ pointer: '', message: `at most ${MAX_SUBSCRIPTIONS} subscriptions per principal; remove one first` }]);
    }
    const secret = newSecret();
    const s = await events.addSubscription({
      id: newSubscriptionId(), url: given.url, events: given.events ?? [],
      ...(given.description !== undefined ? { description: given.description } : {}),
      status: 'enabled',
      ...(request.apiVersion !== undefined ? { apiVersion: request.apiVersion } : {}),
      principal: owner, scopes: [...(request.principal?.scopes ?? [])],
      ...(request.principal ? { credential: request.principal.credential } : {}),
      secrets: [{ secret }], createdAt: ctx.now(),
    });
    // The worker skips appends while nobody is subscribed (./delivery.ts start): it looks again now.
    r.wake();
    reply.header('location', `${r.prefix}${path}/${s.id}`);
    return json(reply, 201, presentSubscription(s, secret));
  });
  route('GET', path, async (request, reply) => json(reply, 200, { items: (await events.listSubscriptions(ownerOf(request))).map((s) => presentSubscription(s)) }));
  route('GET', `${path}/{id}`, async (request, reply) => json(reply, 200, presentSubscription(await mine(request))));
  route('DELETE', `${path}/{id}`, async (request, reply) => {
    await events.removeSubscription((await mine(request)).id);
    return reply.code(204).send();
  });
  route('POST', `${path}/{id}/rotate-secret`, async (request, reply) => {
    const s = await mine(request);
    const secrets = rotated(s.secrets, ctx.now());
    await events.changeSubscription(s.id, { secrets });
    return json(reply, 200, presentSubscription({ ...s, secrets }, secrets[0].secret));
  });
  route('GET', `${path}/{id}/deliveries`, async (request, reply) => {
    const s = await mine(request);
    const status = (request.query as Record<string, unknown>).status;
    if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
      throw validationFailed([{ pointer: '/query/status', message: `must be one of ${DELIVERY_STATUSES.join(', ')}` }]);
    }
    const list = await events.listDeliveries(s.id, { ...(status !== undefined ? { status: status as DeliveryStatus } : {}), limit: MAX_DELIVERIES_LISTED });
    return json(reply, 200, { items: list.map(presentDelivery) });
  });
  route('POST', `${path}/{id}/deliveries/{delivery}/replay`, async (request, reply) => {
    const s = await mine(request);
    const id = (request.params as { delivery: string }).delivery;
    const d = await events.getDelivery(id);
    if (!d || d.subscriptionId !== s.id) throw new HttpError('not-found', { detail: `There is no delivery '${id}' of this subscription.` });
    const replayed = await events.replay(id, ctx.now());
    r.wake();
    return json(reply, 202, presentDelivery(replayed ?? d));
  });
}
