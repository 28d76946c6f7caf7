/** The format schema's definitions of part 9, versioning (src/spec/format-schema.ts assembles them). */
import { text } from './common.ts';

export const VERSIONING_DEFINITIONS = {
  versioning: {
    type: 'object',
    additionalProperties: false,
    properties: {
      select: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        maxProperties: 1,
        description: 'How a client selects a version: `header: API-Version`, `query: version`, or `path: /v{version}`.',
        properties: {
          header: text('The request header naming the version.'),
          query: text('The query parameter naming the version.'),
          path: { type: 'string', pattern: '^/.*\\{version\\}', description: 'A path prefix with `{version}`.' },
        },
      },
      default: { type: ['string', 'number'], description: 'The version used when a request names none.' },
      versions: {
        type: 'object',
        description: 'The versions, keyed by name, oldest first.',
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['status'],
          properties: {
            status: { enum: ['current', 'deprecated', 'retired'], description: 'current: served; deprecated: served with Deprecation and Sunset headers; retired: answered with 410.' },
            released: { type: 'string', format: 'date', description: 'When it was released.' },
            deprecated: { type: 'string', format: 'date', description: 'When it was deprecated (RFC 9745).' },
            sunset: { type: 'string', format: 'date', description: 'When it stops being served (RFC 8594).' },
            docs: { type: 'string', format: 'uri', description: 'Where its documentation or migration guide is.' },
          },
        },
      },
    },
  },
} as const;
