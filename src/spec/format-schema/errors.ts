/** The format schema's definitions of part 7, errors (src/spec/format-schema.ts assembles them). */
import { SITUATIONS } from '../http-errors.ts';
import { text } from './common.ts';

export const ERRORS_DEFINITIONS = {
  errors: {
    type: 'object',
    additionalProperties: false,
    properties: {
      shape: {
        description: '`problem` (RFC 9457 application/problem+json with a `code` member) or a custom JSON body.',
        anyOf: [
          { enum: ['problem'] },
          {
            type: 'object',
            additionalProperties: false,
            required: ['mediaType', 'members'],
            properties: {
              mediaType: text('The Content-Type of error bodies.'),
              members: {
                type: 'object',
                additionalProperties: false,
                minProperties: 1,
                description: 'Which member of the body carries each piece; only those named are sent and expected (a body of one member, `{ title: error }`, is a shape too).',
                properties: {
                  code: text('The member holding the error code.'),
                  title: text('The member holding the short message.'),
                  status: text('The member holding the HTTP status.'),
                  detail: text('The member holding the explanation of this occurrence.'),
                  errors: text('The member holding the list of field violations.'),
                  type: text('The member holding a URI for the error type.'),
                  instance: text('The member holding a URI for this occurrence.'),
                },
              },
            },
          },
        ],
      },
      catalog: {
        type: 'object',
        description: 'The error codes, keyed by code (kebab-case).',
        propertyNames: { pattern: '^[a-z][a-z0-9-]*$' },
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'title'],
          properties: {
            status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status.' },
            title: text('A short, fixed summary.'),
            when: text('When the service answers with it.'),
            for: {
              description: 'The situation of the runtime this code answers, or a list of them (see docs/http-errors.md): `for: [not-found, method-not-allowed]` answers an undeclared method as not found. A code named after a situation answers it without saying so.',
              anyOf: [
                { enum: SITUATIONS, description: 'One situation.' },
                { type: 'array', items: { enum: SITUATIONS }, minItems: 1, uniqueItems: true, description: 'Several situations answered with this one code.' },
              ],
            },
            raisedBy: {
              enum: ['implementation'],
              description: '`implementation`: the code is raised by the implementation alone, for reasons the spec states in prose (an action\'s behaviour, a handler), not by a rule or a situation of the format. Every other code is bound to what raises it: a situation (by its name or `for:`), or an `error` of a `unique`, a rule, a guard or an `onDelete: { refuse }`; `check` warns on a code bound to nothing (`error-code-unbound`: the reference can never produce it and the tester can never provoke it).',
            },
          },
        },
      },
    },
  },
} as const;
