/**
 * The subscription API of part 6 (`webhooks.subscriptions: api`) in the OpenAPI document: the
 * routes serve answers under the webhooks path (src/spec/conventions/events.ts
 * SUBSCRIPTION_ROUTES), with their bodies (docs/events.md "Subscriptions"), security and
 * errors as any endpoint's. The deliveries themselves are the AsyncAPI document's.
 */
import { SUBSCRIPTION_ROUTES, type SubscriptionRoute } from '../../spec/conventions/events.ts';
import { endpointFacts, errorCases } from '../../spec/conventions/situations.ts';
import { templateParams } from '../../spec/conventions/paths.ts';
import type { Endpoint, EndpointAuth } from '../../spec/model.ts';
import type { JsonSchema } from '../schema.ts';
import type { OpenApiContext } from './context.ts';
import { securityOf } from './operations.ts';
import { errorResponse, JSON_TYPE } from './responses.ts';

/** The tag of these operations (index.ts lists it with the resources'). */
export const SUBSCRIPTIONS_TAG = { name: 'webhooks', description: 'Subscriptions to the events (part 6): a receiver URL, the events it gets, its deliveries.' };
const TAG = SUBSCRIPTIONS_TAG.name;

/** The paths of the subscription API, keyed by path; empty where clients do not subscribe through the API. */
export function subscriptionPaths(ctx: OpenApiContext): Record<string, Record<string, JsonSchema>> {
  const { spec } = ctx;
  const webhooks = spec.events.webhooks;
  if (spec.parts.events.statement !== 'given' || webhooks?.subscriptions !== 'api' || !webhooks.path) return {};
  Object.assign(ctx.components.schemas, schemas(spec.events.catalog.map((e) => e.name)));
  const guarded = spec.parts.authentication.statement === 'given' && spec.authentication.schemes.length > 0;
  // As serve guards them (src/serve/events/index.ts): any credential of a declared scheme, no scope.
  const auth: EndpointAuth | undefined = guarded ? { public: false, schemes: spec.authentication.schemes.map((s) => s.name), scopes: [] } : undefined;
  const out: Record<string, Record<string, JsonSchema>> = {};
  for (const r of SUBSCRIPTION_ROUTES) {
    const path = `${webhooks.path}${r.suffix}`;
    const e: Endpoint = {
      id: r.id, name: r.id, resource: '', operation: r.method === 'GET' ? 'read' : r.method === 'DELETE' ? 'delete' : 'create', method: r.method, path,
      params: templateParams(path).map((name) => ({ name, binding: { kind: 'id' as const }, declared: false, pointer: webhooks.pointer })),
      request: r.request ? { kind: 'resource', partial: false } : { kind: 'none' }, responses: [], errors: [], ...(auth ? { auth } : {}), explicit: false, pointer: webhooks.pointer,
    };
    (out[path] ??= {})[r.method.toLowerCase()] = operation(ctx, r, e);
  }
  return out;
}

function operation(ctx: OpenApiContext, r: SubscriptionRoute, e: Endpoint): JsonSchema {
  const responses: Record<string, JsonSchema> = { [String(r.answer.status)]: answer(r) };
  const cases = errorCases(ctx.spec, e, { ...endpointFacts(ctx.spec, e, ctx.policies), versionParam: ctx.versionParam !== undefined });
  for (const [status, list] of cases) responses[String(status)] = errorResponse(ctx, e, status, list, undefined);
  const security = securityOf(ctx, e);
  const parameters: JsonSchema[] = e.params.map((p) => ({ name: p.name, in: 'path', required: true, schema: { type: 'string' } }));
  if (r.id === 'webhooks.deliveries') parameters.push({ name: 'status', in: 'query', required: false, schema: { enum: ['pending', 'delivered', 'dead'] } });
  return {
    tags: [TAG],
    operationId: r.id,
    summary: r.summary,
    ...(parameters.length ? { parameters } : {}),
    ...(r.request ? { requestBody: { required: true, content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/WebhookSubscriptionCreate' } } } } } : {}),
    responses,
    ...(security !== undefined ? { security } : {}),
  };
}

function answer(r: SubscriptionRoute): JsonSchema {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const body = r.answer.body;
  const schema = body === 'subscription' ? ref('WebhookSubscription')
    : body === 'subscription-with-secret' ? { allOf: [ref('WebhookSubscription'), { type: 'object', required: ['secret'], properties: { secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret (Standard Webhooks), shown only in this answer.' } } }] }
      : body === 'subscriptions' ? { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('WebhookSubscription') } } }
        : body === 'deliveries' ? { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('WebhookDelivery') } } }
          : body === 'delivery' ? ref('WebhookDelivery') : undefined;
  return { description: r.summary, ...(schema ? { content: { [JSON_TYPE]: { schema } } } : {}) };
}

/** The bodies of src/serve/events/subscriptions.ts (presentSubscription, presentDelivery), as docs/events.md states them. */
function schemas(events: readonly string[]): Record<string, JsonSchema> {
  const names = events.length ? { type: 'array', items: { enum: [...events] }, description: 'The events to receive; omitted or empty: every event.' } : { type: 'array', items: { type: 'string' } };
  return {
    WebhookSubscriptionCreate: {
      type: 'object', required: ['url'], additionalProperties: false,
      properties: { url: { type: 'string', format: 'uri', description: 'The receiver: http or https, not a private or loopback address.' }, events: names, description: { type: 'string' } },
    },
    WebhookSubscription: {
      type: 'object', required: ['id', 'url', 'events', 'status', 'createdAt'],
      properties: {
        id: { type: 'string' }, url: { type: 'string', format: 'uri' }, events: names, description: { type: 'string' },
        status: { enum: ['enabled', 'disabled'] }, disabledReason: { type: 'string' },
        apiVersion: { type: 'string', description: 'The API version it was created in; deliveries carry that version\'s payloads.' },
        createdAt: { type: 'string', format: 'date-time' },
      },
    },
    WebhookDelivery: {
      type: 'object', required: ['id', 'eventId', 'type', 'status', 'attempts', 'createdAt'],
      properties: {
        id: { type: 'string' }, eventId: { type: 'string' }, type: { type: 'string' }, status: { enum: ['pending', 'delivered', 'dead'] },
        attempts: { type: 'integer', minimum: 0 }, lastStatus: { type: 'integer' }, lastError: { type: 'string' },
        nextAttemptAt: { type: 'string', format: 'date-time' }, createdAt: { type: 'string', format: 'date-time' }, deliveredAt: { type: 'string', format: 'date-time' },
      },
    },
  };
}
