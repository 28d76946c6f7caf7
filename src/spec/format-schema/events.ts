/** The format schema's definitions of part 6, events (src/spec/format-schema.ts assembles them). */
import { text, duration, positive } from './common.ts';

export const EVENTS_DEFINITIONS = {
  events: {
    type: 'object',
    additionalProperties: false,
    properties: {
      webhooks: {
        type: 'object',
        additionalProperties: false,
        required: ['subscriptions'],
        description: 'Delivery by signed HTTP callbacks.',
        properties: {
          subscriptions: { enum: ['api', 'config'], description: 'api: clients subscribe through endpoints; config: the operator configures them out of band.' },
          path: { type: 'string', pattern: '^/', description: 'With `api`: the subscriptions collection path.' },
          signing: { enum: ['standard-webhooks', 'none'], description: 'How deliveries are signed (Standard Webhooks: HMAC-SHA256 over id.timestamp.body).' },
          cloudEvents: { type: 'boolean', description: 'Deliver as CloudEvents 1.0, structured mode.' },
          timeout: duration('How long a receiver has to answer.'),
        },
      },
      stream: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        description: 'Delivery as a server-sent event stream.',
        properties: { path: { type: 'string', pattern: '^/', description: 'The stream path.' }, heartbeat: duration('How often a heartbeat comment is sent.') },
      },
      retry: {
        type: 'object',
        additionalProperties: false,
        required: ['attempts'],
        description: 'How failed webhook deliveries are retried.',
        properties: {
          attempts: positive('Attempts in all, the first included.'),
          backoff: { enum: ['exponential', 'fixed'], description: 'How the delay grows.' },
          initialDelay: duration('The delay before the first retry.'),
          maxDelay: duration('The longest delay between attempts.'),
        },
      },
      catalog: {
        type: 'object',
        description: 'The events, keyed by name (`loan.approved`).',
        propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_.-]*$' },
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['on'],
          properties: {
            on: { type: 'string', description: 'The trigger: `resource.created`, `resource.updated`, `resource.deleted` or `resource.<transition>`.' },
            payload: { anyOf: [{ enum: ['resource'] }, { type: 'array', items: { type: 'string' } }], description: '`resource` (the whole record) or a list of its fields.' },
            description: text('What the event tells.'),
            since: { type: ['string', 'number'], description: 'First version that emits it.' },
            until: { type: ['string', 'number'], description: 'Last version that emits it.' },
          },
        },
      },
    },
  },
} as const;
