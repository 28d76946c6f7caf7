/** The format schema's definitions of part 5, authentication (src/spec/format-schema.ts assembles them). */
import { IDENT, text, duration } from './common.ts';

export const AUTHENTICATION_DEFINITIONS = {
  authentication: {
    type: 'object',
    additionalProperties: false,
    properties: {
      obtain: text('How a client obtains credentials.'),
      schemes: {
        type: 'object',
        propertyNames: { pattern: IDENT },
        description: 'The accepted schemes, keyed by a name of your choice; a client may use any one.',
        additionalProperties: { $ref: '#/definitions/scheme' },
      },
      scopes: { type: 'object', additionalProperties: { type: 'string' }, description: 'Scope names with what each allows.' },
      default: {
        type: 'object',
        additionalProperties: false,
        description: 'What an endpoint needs when no `require` entry and no `public` entry names it.',
        properties: { scopes: { type: 'array', items: { type: 'string' }, description: 'Scopes every such endpoint needs (empty: any valid credential).' } },
      },
      public: { type: 'array', items: { type: 'string' }, description: 'Endpoints anyone may call: endpoint ids (`book.read`) or `resource.*`.' },
      require: {
        type: 'object',
        description: 'Scopes an endpoint needs, keyed by endpoint id or `resource.*`.',
        additionalProperties: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  scheme: {
    type: 'object',
    required: ['type'],
    properties: { type: { enum: ['apiKey', 'bearer', 'basic', 'oauth2'], description: 'apiKey, bearer (opaque or JWT), basic, or oauth2 (client credentials).' } },
    allOf: [
      {
        if: { properties: { type: { const: 'apiKey' } } },
        then: {
          additionalProperties: false,
          required: ['in', 'name'],
          properties: { type: {}, description: text('About this scheme.'), in: { enum: ['header', 'query'], description: 'Where the key is sent.' }, name: text('The header or query parameter name.') },
        },
      },
      {
        if: { properties: { type: { const: 'bearer' } } },
        then: {
          additionalProperties: false,
          required: ['tokens'],
          properties: {
            type: {},
            description: text('About this scheme.'),
            tokens: { enum: ['opaque', 'jwt'], description: 'opaque: tokens issued by the service; jwt: JSON Web Tokens verified by their signature.' },
            prefix: { type: 'string', pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$", description: 'The word before the token in the Authorization header (RFC 9110 §11.4), where the service reads another than `Bearer`: `Token` for `Authorization: Token <token>` (Django REST framework, RealWorld). Compared without regard to case.' },
            jwt: {
              type: 'object',
              additionalProperties: false,
              required: ['algorithms'],
              description: 'With `tokens: jwt`: how tokens are verified (RFC 7519).',
              properties: {
                issuer: text('The required `iss`.'),
                audience: text('The required `aud`.'),
                algorithms: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Accepted signing algorithms (RS256, ES256, EdDSA, ...).' },
                jwksUrl: { type: 'string', format: 'uri', description: 'Where the verification keys are published.' },
                jwksFile: text('A JWKS file with the verification keys, relative to the spec.'),
                scopesClaim: text('The claim holding granted scopes (default `scope`, space-separated).'),
              },
            },
          },
        },
      },
      {
        if: { properties: { type: { const: 'basic' } } },
        then: { additionalProperties: false, properties: { type: {}, description: text('About this scheme.') } },
      },
      {
        if: { properties: { type: { const: 'oauth2' } } },
        then: {
          additionalProperties: false,
          required: ['flow', 'tokenPath'],
          properties: {
            type: {},
            description: text('About this scheme.'),
            flow: { enum: ['clientCredentials'], description: 'The OAuth 2.0 grant (RFC 6749 section 4.4).' },
            tokenPath: { type: 'string', pattern: '^/', description: 'The token endpoint, relative to {base_url}.' },
            tokenTtl: duration('How long an issued access token is valid.'),
          },
        },
      },
    ],
  },
} as const;
