/**
 * Part 6 at run time (docs/events.md), one module per concern:
 *
 *   emit.ts           which writes make which events, rendered per API version (the outbox
 *                     rows the store writes in the change's transaction)
 *   delivery.ts       the webhook worker: fan-out, leases, retries, dead letters
 *   envelope.ts       what a delivery carries (Standard Webhooks or CloudEvents)
 *   signing.ts        Standard Webhooks signatures and secrets
 *   ssrf.ts           where a delivery may not go
 *   subscriptions.ts  the subscription endpoints (`subscriptions: api`)
 *   stream.ts         the server-sent event stream, resumable by Last-Event-ID
 *   visibility.ts     who may see an event
 *   operator.ts       `svcspec webhooks …`: the operator's subscriptions and replays
 *
 * The routes of the stream and of the subscriptions are not endpoints of the spec, but they
 * are guarded like them: each has an endpoint of its own (`serviceEndpoints`), which the
 * authentication hook reads (any valid credential; no scope beyond it), and so does the
 * versioning hook (an unknown version is refused). Rate limits cover the spec's endpoints only.
 */
import { SUBSCRIPTION_ROUTES } from '../../spec/conventions/events.ts';
import type { FastifyInstance } from 'fastify';
import { SAFETY } from '../../spec/defaults.ts';
import { templateParams } from '../../spec/conventions/paths.ts';
import type { Endpoint, EndpointAuth, HttpMethod, Spec } from '../../spec/model.ts';
import type { ServeContext } from '../context.ts';
import { DeliveryWorker } from './delivery.ts';
import { registerStream } from './stream.ts';
import { registerSubscriptionRoutes } from './subscriptions.ts';
import { visibility } from './visibility.ts';

export interface EventServeOptions {
  /** Lift the webhook SSRF guard (serve --allow-private-webhooks). */
  readonly allowPrivateWebhooks?: boolean;
  /** Delivery attempts in flight at once (default 8). */
  readonly deliveryConcurrency?: number;
  /** How often delivery looks at the store unprompted, in ms (default 1000). */
  readonly deliveryPollMs?: number;
  /** The jitter's random source; tests fix it. */
  readonly random?: () => number;
}

/** The routes of part 6 as endpoints the request hooks understand, keyed `METHOD path`. */
export function serviceEndpoints(spec: Spec): Map<string, Endpoint> {
  const out = new Map<string, Endpoint>();
  if (spec.parts.events.statement !== 'given') return out;
  const guarded = spec.parts.authentication.statement === 'given' && spec.authentication.schemes.length > 0;
  const auth: EndpointAuth | undefined = guarded ? { public: false, schemes: spec.authentication.schemes.map((s) => s.name), scopes: [] } : undefined;
  const add = (method: HttpMethod, path: string, id: string, pointer: string) => {
    out.set(`${method} ${path}`, {
      id, name: id, resource: '', operation: method === 'GET' ? 'read' : 'create', method, path,
      params: templateParams(path).map((name) => ({ name, binding: { kind: 'id' as const }, declared: false, pointer })),
      request: { kind: 'none' }, responses: [], errors: [], ...(auth ? { auth } : {}), explicit: false, pointer,
    });
  };
  const { stream, webhooks } = spec.events;
  if (stream?.path) add('GET', stream.path, 'events.stream', stream.pointer);
  if (webhooks?.subscriptions === 'api' && webhooks.path) {
    for (const r of SUBSCRIPTION_ROUTES) add(r.method, `${webhooks.path}${r.suffix}`, r.id, webhooks.pointer);
  }
  return out;
}

/**
 * The routes of part 6 and the delivery worker, which starts when the app is ready and stops
 * when it closes. Call after the request hooks are registered (their onRoute hooks guard
 * these routes too).
 */
export function registerEvents(app: FastifyInstance, ctx: ServeContext, endpoints: ReadonlyMap<string, Endpoint>, options: EventServeOptions = {}): void {
  const { spec } = ctx;
  const emitting = ctx.events;
  if (!emitting) return;
  const endpointOf = (method: string, path: string): Endpoint => {
    const e = endpoints.get(`${method} ${path}`);
    if (!e) throw new Error(`bug: no service endpoint for ${method} ${path}`);
    return e;
  };
  const { stream, webhooks } = spec.events;
  const taken = new Set(spec.endpoints.map((e) => `${e.method} ${e.path}`));
  const visible = visibility(spec);
  // With the version in the path (part 9), the routes are also under each live version's
  // prefix, in that version, beside the unprefixed ones in the default version.
  const prefixes = ['', ...versionPrefixes(spec)];
  if (stream?.path && !taken.has(`GET ${stream.path}`)) {
    registerStream(app, { ctx, paths: prefixes.map((p) => p + stream.path), endpoint: endpointOf('GET', stream.path), heartbeatMs: stream.heartbeatMs ?? SAFETY.streamHeartbeatMs, bus: emitting.bus, visible });
  }
  if (!webhooks) return;
  const worker = new DeliveryWorker({
    spec, store: ctx.store, bus: emitting.bus, now: ctx.now, log: app.log,
    ...(options.allowPrivateWebhooks ? { allowPrivate: true } : {}),
    ...(options.deliveryConcurrency ? { concurrency: options.deliveryConcurrency } : {}),
    ...(options.deliveryPollMs ? { pollMs: options.deliveryPollMs } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
  const path = webhooks.path;
  if (webhooks.subscriptions === 'api' && path && !taken.has(`POST ${path}`)) {
    for (const prefix of prefixes) {
      registerSubscriptionRoutes(app, {
        ctx, path, prefix, endpointOf, allowPrivate: options.allowPrivateWebhooks === true,
        eventNames: spec.events.catalog.map((e) => e.name), wake: () => worker.wake(),
      });
    }
  }
  app.addHook('onReady', async () => worker.start());
  app.addHook('preClose', async () => worker.stop());
}

/** `/v1`, `/v2`: the path prefixes of the live versions when the version is selected by path; none otherwise. */
function versionPrefixes(spec: Spec): string[] {
  const select = spec.versioning.select;
  if (spec.parts.versioning.statement !== 'given' || select?.by !== 'path') return [];
  return spec.versioning.versions.filter((v) => v.status !== 'retired').map((v) => select.prefix.replace('{version}', v.name));
}
