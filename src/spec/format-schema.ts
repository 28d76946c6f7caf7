/**
 * JSON Schema (draft-07, for the widest editor support) of the svcspec authoring format.
 * It is the one definition of the format's structure: the loader validates with it,
 * `schema/svcspec.schema.json` is written from it (npm run gen), and docs/format.md
 * documents every key from its descriptions. Semantic rules (a transition naming a
 * state that does not exist, ...) live in src/check/rules, not here.
 *
 * The definitions of each part stand in src/spec/format-schema/<part>.ts, the building
 * blocks they share in common.ts; this file puts the document's top level together.
 */
import { IDENT, text, none } from './format-schema/common.ts';
import { RESOURCES_DEFINITIONS } from './format-schema/resources.ts';
import { STATES_DEFINITIONS } from './format-schema/states.ts';
import { ENDPOINTS_DEFINITIONS } from './format-schema/endpoints.ts';
import { AUTHENTICATION_DEFINITIONS } from './format-schema/authentication.ts';
import { EVENTS_DEFINITIONS } from './format-schema/events.ts';
import { ERRORS_DEFINITIONS } from './format-schema/errors.ts';
import { LIMITS_DEFINITIONS } from './format-schema/limits.ts';
import { VERSIONING_DEFINITIONS } from './format-schema/versioning.ts';

export { FIELD_IDENT } from './format-schema/common.ts';

export const FORMAT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://svcspec.dev/schema/svcspec.schema.json',
  title: 'svcspec service interface specification',
  description: 'A service interface specification in nine parts, in this order: purpose, resources, states, endpoints, authentication, events, errors, limits, versioning. A missing part is a gap.',
  type: 'object',
  additionalProperties: false,
  properties: {
    svcspec: { type: ['string', 'number'], description: 'The format version this document is written in. The current one is `1`.' },
    title: text('A title for the document; defaults to nothing (the purpose name is shown).'),
    purpose: {
      description: 'Part 1. What the service does, its users and the tasks they perform.',
      anyOf: [
        none,
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: text('The service name.'),
            summary: text('What the service does, in a sentence or a paragraph.'),
            users: {
              type: 'array',
              description: 'The users of the service.',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['name'],
                properties: {
                  name: text('Who the user is (a role).'),
                  description: text('More about this user.'),
                  tasks: { type: 'array', items: { type: 'string' }, description: 'The tasks this user performs with the service.' },
                },
              },
            },
          },
        },
      ],
    },
    resources: {
      description: 'Part 2. The resources, keyed by name (singular).',
      anyOf: [none, { type: 'object', propertyNames: { pattern: IDENT }, additionalProperties: { $ref: '#/definitions/resource' } }],
    },
    states: {
      description: 'Part 3. State machines, keyed by the resource whose records have states.',
      anyOf: [none, { type: 'object', propertyNames: { pattern: IDENT }, additionalProperties: { $ref: '#/definitions/stateMachine' } }],
    },
    endpoints: {
      description: 'Part 4. Endpoints, keyed by resource. Short form: a list of operations (`[create, read, list, approve]`); explicit form: a map from the endpoint\'s name (the operation, unless `operation:` says otherwise) to its endpoint. Paths are relative to {base_url}.',
      anyOf: [
        none,
        {
          type: 'object',
          propertyNames: { pattern: IDENT },
          additionalProperties: {
            anyOf: [
              { type: 'array', items: { type: 'string' }, description: 'Short form: standard operations and transition names.' },
              { type: 'object', propertyNames: { pattern: IDENT }, additionalProperties: { $ref: '#/definitions/endpoint' } },
            ],
          },
        },
      ],
    },
    authentication: {
      description: 'Part 5. How clients authenticate and what each endpoint needs.',
      anyOf: [none, { $ref: '#/definitions/authentication' }],
    },
    events: {
      description: 'Part 6. Events the service emits and how they are delivered.',
      anyOf: [none, { $ref: '#/definitions/events' }],
    },
    errors: {
      description: 'Part 7. The error body shape and the catalog of error codes.',
      anyOf: [none, { $ref: '#/definitions/errors' }],
    },
    limits: {
      description: 'Part 8. Rate limits, size limits, time-outs, pagination, and the protocol promises every endpoint keeps: conditional requests and idempotency keys.',
      anyOf: [none, { $ref: '#/definitions/limits' }],
    },
    versioning: {
      description: 'Part 9. How versions are identified, selected and retired.',
      anyOf: [none, { $ref: '#/definitions/versioning' }],
    },
  },
  definitions: {
    ...RESOURCES_DEFINITIONS,
    ...STATES_DEFINITIONS,
    ...ENDPOINTS_DEFINITIONS,
    ...AUTHENTICATION_DEFINITIONS,
    ...EVENTS_DEFINITIONS,
    ...ERRORS_DEFINITIONS,
    ...LIMITS_DEFINITIONS,
    ...VERSIONING_DEFINITIONS,
  },
} as const;

export type FormatSchema = typeof FORMAT_SCHEMA;
