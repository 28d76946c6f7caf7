/** The format schema's definitions of part 3, states (src/spec/format-schema.ts assembles them). */
import { IDENT, text, writeRuleProps } from './common.ts';

export const STATES_DEFINITIONS = {
  stateMachine: {
    type: 'object',
    additionalProperties: false,
    properties: {
      field: text('The field holding the state; its `enum` lists the states.'),
      states: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'The states (if omitted, the enum of `field`).' },
      initial: text('The state of a newly created record.'),
      transitions: {
        type: 'object',
        propertyNames: { pattern: IDENT },
        description: 'Named transitions.',
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['from', 'to'],
          properties: {
            from: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }], description: 'The state, or states, the transition starts from.' },
            to: text('The state it ends in.'),
            requires: { type: 'array', items: { type: 'string' }, description: 'Fields the transition request must carry.' },
            description: text('What the transition means.'),
            ...writeRuleProps,
          },
        },
      },
    },
  },
} as const;
