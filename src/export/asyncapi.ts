/**
 * The AsyncAPI 3.0.0 export of part 6: `toAsyncApi(spec)` describes the events the service
 * emits, one version of them (./version.ts), and how they are delivered.
 *
 * Perspective (AsyncAPI 3.0 §"Operation Object", `action`): a document describes one
 * application, and its operations say what that application does. This document describes
 * the service, which emits the events, so every operation is `send`: it sends each event to
 * the subscribers' webhook receivers and down the event stream. A subscriber's own
 * document would say `receive`.
 *
 *   servers     `service` at {base_url} (the stream), and `subscriber`: each receiver's URL,
 *               which the service does not know in advance (no default)
 *   channels    `webhooks`: address null (per subscriber: AsyncAPI's "dynamic"), each
 *               delivery a POST with the Standard Webhooks headers (webhook-id,
 *               webhook-timestamp, webhook-signature) when deliveries are signed, as
 *               CloudEvents 1.0 in structured mode when declared; `stream`: the server-sent
 *               events at the stream path, resumed with Last-Event-ID
 *   messages    one per catalog event and channel; a delivery's body is the Standard
 *               Webhooks structure ({type, timestamp, data}) or a CloudEvent, the stream's
 *               data the payload alone; the payload is the record (as a read
 *               shows it) or the named fields of it
 *
 * Not expressible, and reported: the retry policy (also as `x-svcspec-retry` on the webhook
 * channel), the delivery time-out and the heartbeat, subscription endpoints the format does
 * not describe, the users of part 1. A spec whose events part is a gap or `none` gets a
 * minimal valid document (info, no channels) and a finding: it is the truthful statement.
 */
import { WEBHOOK_BODY_MEMBERS } from '../spec/conventions/events.ts';
import type { Diagnostic } from '../spec/diagnostics.ts';
import type { EventDef, Resource, Spec } from '../spec/model.ts';
import { svcspecExtensions } from '../spec/conventions/extensions.ts';
import { PART_BY_NAME } from '../spec/parts.ts';
import { formatDuration } from '../spec/units.ts';
import { EXPORT_CODES, finding, type ExportResult } from './codes.ts';
import type { ExportOptions } from './openapi/index.ts';
import { recordSchema } from './records.ts';
import { pascal, schemaContext, type JsonSchema } from './schema.ts';
import { exportVersion } from './version.ts';

/** The {base_url} server variable's default, without the scheme AsyncAPI keeps in `protocol`: where `svcspec serve` listens. */
export const HOST_DEFAULT = '127.0.0.1:3000';

export function toAsyncApi(spec: Spec, options: ExportOptions = {}): ExportResult {
  const ev = exportVersion(spec, options.version, 'AsyncAPI');
  const findings: Diagnostic[] = [...ev.findings];
  const info: JsonSchema = {
    title: spec.title ?? spec.purpose.name ?? spec.source.file.split(/[\\/]/).at(-1),
    version: ev.version?.name ?? 'unversioned',
    ...(description(spec) ? { description: description(spec) } : {}),
  };
  if (spec.purpose.users.length) findings.push(finding(spec, EXPORT_CODES.purposeUsers, { format: 'AsyncAPI' }, '/purpose/users'));
  const part = spec.parts.events;
  if (part.statement !== 'given') {
    findings.push(finding(spec, EXPORT_CODES.partGap, { number: PART_BY_NAME.events.number, title: PART_BY_NAME.events.title, statement: part.statement === 'gap' ? 'not shown' : `stated as none${part.reason ? ` ("${part.reason}")` : ''}`, format: 'AsyncAPI' }, part.pointer));
    return { document: { asyncapi: '3.0.0', info, servers: { service: serviceServer() }, ...svcspecExtensions(spec, ['events']) }, findings };
  }

  const { webhooks, stream, retry } = spec.events;
  const security = spec.parts.authentication.statement === 'given' ? securitySchemes(spec) : {};
  const c = schemaContext(spec, ev.resources);
  const resources = new Map(ev.resources.map((r) => [r.name, r]));
  const schemas: Record<string, JsonSchema> = {};
  const messages: Record<string, JsonSchema> = {};
  const channels: Record<string, JsonSchema> = {};
  const operations: Record<string, JsonSchema> = {};
  const servers: Record<string, JsonSchema> = { service: serviceServer() };

  const payloadOf = (e: EventDef): JsonSchema => {
    const resource = resources.get(e.trigger.resource);
    if (!resource) return { type: 'object' }; // check reports the unknown resource
    const name = pascal(resource.name);
    schemas[name] ??= recordSchema(resource, spec.states.find((m) => m.resource === resource.name), c);
    if (e.payload.kind === 'resource') return { $ref: `#/components/schemas/${name}` };
    return fieldsPayload(schemas[name], e.payload.fields, resource);
  };
  const events = ev.events;

  if (webhooks) {
    const standard = webhooks.signing === 'standard-webhooks';
    servers.subscriber = {
      host: '{subscriber}',
      protocol: 'https',
      // One protocol a server in AsyncAPI: https, the one to use; an http URL is taken too (src/serve/events/ssrf.ts).
      description: `${webhooks.subscriptions === 'api'
        ? `A subscriber's receiver: the URL it registered through the API${webhooks.path ? ` (${webhooks.path} under {base_url})` : ''}.`
        : "A subscriber's receiver: a URL the operator configured for it."} An http URL is accepted as well as https.`,
      variables: { subscriber: { description: 'The host (and port) of the receiver; each subscriber has its own.' } },
    };
    const lines = [
      `Each event is delivered to every subscriber as an HTTP POST to its receiver${webhooks.cloudEvents ? ', as a CloudEvents 1.0 event in structured mode (application/cloudevents+json)' : ''}.`,
      standard ? 'Deliveries are signed as Standard Webhooks: `webhook-signature` is an HMAC-SHA256 over `webhook-id.webhook-timestamp.body` with the subscriber\'s secret.' : 'Deliveries are not signed.',
      webhooks.subscriptions === 'api' ? `Subscriptions are managed through the API${webhooks.path ? ` at ${webhooks.path}` : ''}.` : 'Subscriptions are configured by the operator.',
    ];
    if (webhooks.timeoutMs !== undefined) {
      lines.push(`A receiver has ${formatDuration(webhooks.timeoutMs)} to answer with a 2xx status.`);
      findings.push(finding(spec, EXPORT_CODES.eventsTiming, { what: 'delivery time-out', duration: formatDuration(webhooks.timeoutMs), channel: 'webhooks' }, webhooks.pointer));
    }
    if (retry) {
      const policy = `${retry.attempts} attempts, ${retry.backoff} from ${formatDuration(retry.initialDelayMs)}${retry.maxDelayMs !== undefined ? ` to ${formatDuration(retry.maxDelayMs)}` : ''}`;
      lines.push(`A failed delivery is retried: ${policy}.`);
      findings.push(finding(spec, EXPORT_CODES.eventsRetry, { policy }, retry.pointer));
    }
    if (webhooks.subscriptions === 'api') findings.push(finding(spec, EXPORT_CODES.eventsSubscriptions, { path: webhooks.path ?? '(no path given)' }, webhooks.pointer));
    const channelMessages: Record<string, JsonSchema> = {};
    for (const e of events) {
      const key = `${e.name}.webhook`;
      const payload = payloadOf(e);
      messages[key] = {
        name: e.name,
        title: e.name,
        ...(e.description ? { summary: e.description } : {}),
        description: `${triggerText(e)} Delivered by webhook.`,
        contentType: webhooks.cloudEvents ? 'application/cloudevents+json' : 'application/json',
        ...(standard ? { headers: STANDARD_WEBHOOK_HEADERS } : {}),
        payload: webhooks.cloudEvents ? cloudEvent(e.name, payload) : standardPayload(e.name, payload),
        bindings: { http: { bindingVersion: '0.3.0' } },
      };
      channelMessages[e.name] = { $ref: `#/components/messages/${key}` };
    }
    channels.webhooks = {
      address: null,
      title: 'Webhook deliveries',
      description: lines.join(' '),
      servers: [{ $ref: '#/servers/subscriber' }],
      messages: channelMessages,
      ...(retry ? { 'x-svcspec-retry': { attempts: retry.attempts, backoff: retry.backoff, initialDelay: formatDuration(retry.initialDelayMs), ...(retry.maxDelayMs !== undefined ? { maxDelay: formatDuration(retry.maxDelayMs) } : {}) } } : {}),
    };
    operations.deliverWebhooks = {
      action: 'send',
      channel: { $ref: '#/channels/webhooks' },
      summary: 'The service POSTs each event to every subscriber.',
      messages: Object.keys(channelMessages).map((name) => ({ $ref: `#/channels/webhooks/messages/${name}` })),
      bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
    };
  } else if (retry) {
    findings.push(finding(spec, EXPORT_CODES.eventsRetry, { policy: `${retry.attempts} attempts` }, retry.pointer));
  }

  if (stream) {
    const lines = [
      `Server-sent events (text/event-stream) at ${stream.path} under {base_url}: each event's \`event:\` is its name, \`data:\` its payload as JSON, \`id:\` its id. A client that reconnects sends the last id in Last-Event-ID to resume after it.`,
    ];
    if (stream.heartbeatMs !== undefined) {
      lines.push(`A heartbeat comment is sent every ${formatDuration(stream.heartbeatMs)}.`);
      findings.push(finding(spec, EXPORT_CODES.eventsTiming, { what: 'stream heartbeat', duration: formatDuration(stream.heartbeatMs), channel: 'stream' }, stream.pointer));
    }
    const channelMessages: Record<string, JsonSchema> = {};
    for (const e of events) {
      const key = `${e.name}.stream`;
      messages[key] = {
        name: e.name,
        title: e.name,
        ...(e.description ? { summary: e.description } : {}),
        description: `${triggerText(e)} Sent down the event stream.`,
        contentType: 'application/json',
        payload: payloadOf(e),
      };
      channelMessages[e.name] = { $ref: `#/components/messages/${key}` };
    }
    channels.stream = {
      address: stream.path,
      title: 'Event stream',
      description: lines.join(' '),
      servers: [{ $ref: '#/servers/service' }],
      messages: channelMessages,
      bindings: { http: { bindingVersion: '0.3.0' } },
    };
    operations.streamEvents = {
      action: 'send',
      channel: { $ref: '#/channels/stream' },
      summary: 'The service sends each event to every client reading the stream (GET, Accept: text/event-stream; Last-Event-ID to resume).',
      messages: Object.keys(channelMessages).map((name) => ({ $ref: `#/channels/stream/messages/${name}` })),
      bindings: { http: { method: 'GET', bindingVersion: '0.3.0' } },
      // A reader of the stream authenticates as a client of the API does (any of its schemes).
      ...(Object.keys(security).length ? { security: Object.keys(security).map((name) => ({ $ref: `#/components/securitySchemes/${name}` })) } : {}),
    };
  }

  const components: Record<string, unknown> = {};
  if (Object.keys(schemas).length) components.schemas = schemas;
  if (stream && Object.keys(security).length) components.securitySchemes = security;
  if (Object.keys(messages).length) components.messages = messages;
  const document: Record<string, unknown> = {
    asyncapi: '3.0.0',
    info,
    servers,
    ...(Object.keys(channels).length ? { channels } : {}),
    ...(Object.keys(operations).length ? { operations } : {}),
    ...(Object.keys(components).length ? { components } : {}),
    // conventions/extensions.ts: part 6 in the format's words, for `svcspec import` to read back.
    ...svcspecExtensions(spec, ['events']),
  };
  return { document, findings };
}

function serviceServer(): JsonSchema {
  return {
    host: '{base_url}',
    protocol: 'http',
    description: 'The service. The spec gives no address: {base_url} defaults to where `svcspec serve` listens unless told otherwise.',
    variables: { base_url: { default: HOST_DEFAULT, description: 'The host and port of {base_url}.' } },
  };
}

function description(spec: Spec): string | undefined {
  const out: string[] = [];
  if (spec.purpose.summary) out.push(spec.purpose.summary.trim());
  if (spec.purpose.users.length) out.push(`## Users\n\n${spec.purpose.users.map((u) => `- **${u.name}**${u.description ? `: ${u.description}` : ''}${u.tasks.map((t) => `\n  - ${t}`).join('')}`).join('\n')}`);
  return out.length ? out.join('\n\n') : undefined;
}

function triggerText(e: EventDef): string {
  const t = e.trigger;
  const what = t.action === 'transition' ? `a ${t.resource} goes through its ${t.transition} transition` : `a ${t.resource} is ${t.action}`;
  return `Emitted when ${what} (\`${t.on}\`).`;
}

/** Only the named fields of the record, as a read shows them. */
function fieldsPayload(record: JsonSchema, fields: readonly string[], resource: Resource): JsonSchema {
  const all = (record.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((record.required ?? []) as string[]);
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) if (all[f]) properties[f] = all[f];
  const req = fields.filter((f) => required.has(f) && all[f]);
  return { type: 'object', description: `Fields of the ${resource.name}.`, properties, ...(req.length ? { required: req } : {}) };
}

/** Standard Webhooks (standardwebhooks.com): the three headers of every signed delivery. */
const STANDARD_WEBHOOK_HEADERS: JsonSchema = {
  type: 'object',
  properties: {
    'webhook-id': { type: 'string', description: 'The event id (`evt_<n>`), the same on every retry and on the stream: receivers use it to ignore duplicates.' },
    'webhook-timestamp': { type: 'string', pattern: '^[0-9]+$', description: 'Seconds since the epoch when it was sent; receivers refuse old ones.' },
    'webhook-signature': { type: 'string', description: 'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `webhook-id.webhook-timestamp.body`.' },
  },
  required: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
};

/** The body of a delivery (src/spec/conventions/events.ts): the event's type and time, the payload in `data`. */
function standardPayload(type: string, data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      type: { const: type },
      timestamp: { type: 'string', format: 'date-time', description: 'When the change was committed (RFC 3339, UTC, milliseconds).' },
      data,
    },
    required: [...WEBHOOK_BODY_MEMBERS],
  };
}

/** The spec's schemes as AsyncAPI 3.0 security schemes: what a client of the stream authenticates with. */
function securitySchemes(spec: Spec): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const s of spec.authentication.schemes) {
    const description = s.description ? { description: s.description } : {};
    if (s.type === 'apiKey') out[s.name] = { type: 'httpApiKey', name: s.param, in: s.in, ...description };
    else if (s.type === 'bearer') out[s.name] = { type: 'http', scheme: 'bearer', ...(s.tokens === 'jwt' ? { bearerFormat: 'JWT' } : {}), ...description };
    else if (s.type === 'basic') out[s.name] = { type: 'http', scheme: 'basic', ...description };
    // AsyncAPI wants an absolute token URL: the path under the server's default {base_url} (serviceServer), as the description says.
    else out[s.name] = { type: 'oauth2', description: `${s.description ? `${s.description} ` : ''}Tokens from ${s.tokenPath} under {base_url}.`, flows: { clientCredentials: { tokenUrl: `http://${HOST_DEFAULT}${s.tokenPath}`, availableScopes: Object.fromEntries(spec.authentication.scopes.map((sc) => [sc.name, sc.description ?? sc.name])) } } };
  }
  return out;
}

/** CloudEvents 1.0 structured mode (JSON event format): the event's attributes around its data. */
function cloudEvent(type: string, data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      specversion: { const: '1.0' },
      id: { type: 'string' },
      source: { type: 'string', format: 'uri-reference' },
      type: { const: type },
      time: { type: 'string', format: 'date-time' },
      datacontenttype: { const: 'application/json' },
      data,
    },
    required: ['specversion', 'id', 'source', 'type', 'data'],
  };
}
