/**
 * The building blocks the format schema's parts share: name patterns, durations, sizes, the
 * `none` statement, a shape's and a field's members, a rule bound to an error
 * (src/spec/format-schema.ts assembles the schema from src/spec/format-schema/<part>.ts).
 */


export const IDENT = '^[A-Za-z][A-Za-z0-9_-]*$';
/**
 * A field's name is also what travels in the body, so it may start as real APIs' members do:
 * HAL's `_links`, JSON-LD's `@id` and `@type`, `$type` (issue #17). A rule reads such a field
 * as `self["@type"]`, CEL identifiers being letters, digits and _.
 */
export const FIELD_IDENT = '^[A-Za-z_$@][A-Za-z0-9_-]*$';
export const DURATION = '^[0-9]+(ms|s|m|h|d)$';
export const SIZE = '^[0-9]+(B|KB|KiB|MB|MiB)$';

export const text = (description: string) => ({ type: 'string', description });
export const duration = (description: string) => ({ type: 'string', pattern: DURATION, description: `${description} A duration: a whole number and a unit, ms, s, m, h or d (\`30s\`).` });
export const count = (description: string) => ({ type: 'integer', minimum: 0, description });
export const positive = (description: string) => ({ type: 'integer', minimum: 1, description });

/** A part written as explicitly not applicable: `events: { none: "This service emits no events." }`. */
export const none = {
  type: 'object',
  description: 'The part does not apply to this service, with the reason. Unlike a missing part (a gap), this is a statement.',
  properties: { none: text('Why the part does not apply.') },
  required: ['none'],
  additionalProperties: false,
};

export const shapeProps = {
  type: { enum: ['string', 'integer', 'number', 'boolean', 'object', 'array', 'ref', 'any'], description: 'The value type. `ref` holds the id of a record of another resource (see `resource`); `any` holds any JSON value (JSON Schema\'s `{}`), stored and answered as sent, neither filtered, sorted nor compared.' },
  format: { type: 'string', description: 'A string format: date-time, date, time, email, uri, uuid, hostname, ipv4, ipv6, ... (the formats of ajv-formats).' },
  enum: { type: 'array', minItems: 1, description: 'The allowed values.' },
  minimum: { type: 'number', description: 'Smallest allowed number (inclusive).' },
  maximum: { type: 'number', description: 'Largest allowed number (inclusive).' },
  exclusiveMinimum: { type: 'number', description: 'Numbers must be greater than this.' },
  exclusiveMaximum: { type: 'number', description: 'Numbers must be less than this.' },
  multipleOf: { type: 'number', exclusiveMinimum: 0, description: 'Numbers must be a multiple of this.' },
  minLength: count('Shortest allowed string, in characters.'),
  maxLength: count('Longest allowed string, in characters.'),
  pattern: { type: 'string', description: 'A regular expression (ECMA-262, unanchored unless written with ^ and $) strings must match.' },
  minItems: count('Fewest array items.'),
  maxItems: count('Most array items.'),
  uniqueItems: { type: 'boolean', description: 'Array items must be distinct.' },
  resource: { type: 'string', description: 'For `ref`: the name of the referenced resource.' },
  items: { $ref: '#/definitions/shape', description: 'For `array`: the shape of each item.' },
  properties: { $ref: '#/definitions/fields', description: 'For `object`: its member fields.' },
  nullable: { type: 'boolean', description: 'null is also allowed.' },
};

export const fieldProps = {
  ...shapeProps,
  description: text('What the field means.'),
  required: { type: 'boolean', description: 'A client must send the field on create and replace.' },
  readOnly: { type: 'boolean', description: 'Set by the service; a client that sends it is refused.' },
  writeOnly: { type: 'boolean', description: 'Accepted from clients, never returned (a password, say).' },
  default: { description: 'Applied by the service on create when the client omits the field.' },
  since: { type: ['string', 'number'], description: 'The first version in which the field exists.' },
  until: { type: ['string', 'number'], description: 'The last version in which the field exists.' },
  managed: {
    description: 'The service sets this field itself, from this source: `created-at` (the time of the create), `updated-at` (the time of every write), `created-by` / `updated-by` (the id of the principal who created / last changed the record), `{ sequence: "LIB-{n:8}" }` (a counter of the field\'s own, from 1; `{n:8}` pads it to 8 digits, `{n}` does not), or `{ expr: <CEL>, on: create | write }` (a value computed from the record: `self.first + " " + self.last`). Time stamps are RFC 3339 date-times, or dates for a `format: date` field. A client never sends it (it is read-only).',
    anyOf: [
      { enum: ['created-at', 'updated-at', 'created-by', 'updated-by'] },
      { type: 'object', additionalProperties: false, required: ['sequence'], properties: { sequence: { type: 'string', pattern: '\\{n(:[0-9]+)?\\}', description: 'The template: text around one `{n}` or `{n:<width>}`.' } } },
      { type: 'object', additionalProperties: false, required: ['expr'], properties: { expr: text('A CEL expression over `self` (the record) and `now`.'), on: { enum: ['create', 'write'], description: 'Computed once, on create, or again on every write (the default).' } } },
    ],
  },
  onDelete: {
    description: 'For a `ref`: what deleting the record it points to does to this record: `{ refuse: <error code> }` (the delete is refused while such records exist), `cascade` (they are deleted with it), `nullify` (the field is set to null; it must be nullable). When absent the spec is silent: the delete leaves the ref dangling, and `check` says so.',
    anyOf: [
      { enum: ['cascade', 'nullify'] },
      { type: 'object', additionalProperties: false, required: ['refuse'], properties: { refuse: text('The catalog code the refused delete answers.') } },
    ],
  },
};

/** A CEL condition bound to a declared error: a record rule or a guard. */
export const boundRule = (subject: string, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  additionalProperties: false,
  required: ['rule', 'error'],
  properties: {
    rule: text(`A CEL expression (https://cel.dev) that is true when ${subject}.`),
    error: text('The catalog code answered when it is false.'),
    message: text('What the answer says (its detail).'),
    ...extra,
  },
});

/** Guards and effects of a write (a create, a delete, a transition, an action). */
export const writeRuleProps = {
  counts: {
    type: 'object',
    propertyNames: { pattern: IDENT },
    description: 'Numbers of related records the guards read as `count.<name>`: `{ resource: loan, where: { member: self.member, status: [active, overdue] } }`. In `where`, a string is a CEL expression whose value the field must equal; a list, the literal values it may hold; a number, boolean or null, that literal.',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['resource'],
      properties: {
        resource: text('The resource whose records are counted.'),
        where: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null', 'array'], items: { type: ['string', 'number', 'boolean', 'null'] } }, description: 'Conditions on its fields, all of which hold.' },
      },
    },
  },
  guards: { type: 'array', items: boundRule('the write may go ahead', { each: text('An array field of the record whose items are each checked: the rule reads the item as `item` and the records its ref members point to as `itemRefs` (`itemRefs.product.onSale`); the first item for which it is false refuses the write, pointing at that item.') }), description: 'Conditions checked, in order, before the write, in its transaction; the first that is false refuses it with its error.' },
  effects: {
    type: 'array',
    description: 'Changes made with the write, in its transaction: fields of the record itself, or (with `ref`) of the record a ref field points to.',
    items: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ref: text('A ref field of the record: the effect changes the record it points to (its rules must still hold).'),
        set: { type: 'object', additionalProperties: { type: 'string' }, description: 'Fields and the CEL expressions that give their new values (`now`, `principal.id`, `request.dueDate`, `self.renewals + 1`, `"lost"`).' },
        increment: { type: 'object', additionalProperties: { type: 'number' }, description: 'Fields and the amount added to each (negative: taken away); an absent field counts from 0.' },
      },
    },
  },
};
