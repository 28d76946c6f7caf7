/** The format schema's definitions of part 2, resources (src/spec/format-schema.ts assembles them). */
import { IDENT, FIELD_IDENT, text, shapeProps, fieldProps, boundRule, writeRuleProps } from './common.ts';

export const RESOURCES_DEFINITIONS = {
  shape: {
    type: 'object',
    additionalProperties: false,
    required: ['type'],
    properties: shapeProps,
  },
  field: {
    description: 'A field: a type name (`title: string`) or an object.',
    anyOf: [
      { enum: ['string', 'integer', 'number', 'boolean', 'object', 'array', 'any'], description: 'Short form: only the type.' },
      { type: 'object', additionalProperties: false, required: ['type'], properties: fieldProps },
    ],
  },
  fields: { type: 'object', propertyNames: { pattern: FIELD_IDENT }, additionalProperties: { $ref: '#/definitions/field' } },
  resource: {
    type: 'object',
    additionalProperties: false,
    properties: {
      plural: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$', description: 'The collection name and path segment (`books`).' },
      description: text('What a record of this resource is.'),
      id: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'assigned'],
        description: 'Which field is the id and how it is assigned.',
        properties: {
          field: text('The id field (one of `fields`).'),
          assigned: { enum: ['uuid', 'sequence', 'client', 'service'], description: 'uuid: a random UUID from the service; sequence: increasing integers from the service; client: sent by the client on create; service: an opaque text the service chooses (json-server\'s random ids, `cus_…`).' },
        },
      },
      owned: { type: 'boolean', description: 'Records belong to the principal that created them: other principals neither see nor change them.' },
      unknownFields: { enum: ['refuse', 'keep', 'ignore'], description: 'A member a request sends that the fields do not declare: refused (the default); kept, stored and returned as sent (an open record, as json-server keeps whatever it is given); or ignored, dropped and the request served without it (OpenAPI\'s reading of a schema without `additionalProperties: false`). Top-level members; an object field\'s own members are its properties.' },
      readOnlyFields: { enum: ['refuse', 'ignore', 'either'], description: 'A member a request sends that the service sets itself (a readOnly field, a service-assigned id, the state): refused (the default); ignored, dropped and the request served without it; or either, as the service chooses (JSON Schema\'s readOnly, "expected to be ignored or rejected", the reading `import` writes): the reference service drops it, the tester takes a refusal or a request served without it.' },
      envelope: {
        description: 'The member each record is sent and answered inside, where the service wraps it (`envelope: article` for `{"article": {…}}`, RealWorld\'s and Rails\' JSON root): the bodies of creates, updates, replaces and transitions, and every answer that is the record. A page\'s items and a bulk write\'s items stay bare, as do an action\'s bodies of its own shape. `{ member: instance, requests: bare }`: only the answers are wrapped, the requests sent bare (Vultr, DigitalOcean). Absent: the record is the body.',
        anyOf: [
          { type: 'string', minLength: 1, maxLength: 100, description: 'The member, for requests and answers alike.' },
          {
            type: 'object',
            additionalProperties: false,
            required: ['member'],
            description: 'The member, and which bodies it wraps.',
            properties: {
              member: { type: 'string', minLength: 1, maxLength: 100, description: 'The member the record is inside.' },
              requests: { enum: ['enveloped', 'bare'], description: 'Whether requests carry the record inside it too (`enveloped`, the default) or bare (`bare`: only answers are wrapped).' },
            },
          },
        ],
      },
      perOwner: { enum: ['one'], description: '`one`: each owner has at most one record of this (owned) resource, a singleton read and replaced through an endpoint with `select: caller` (`/me`). A second create is refused with 409.' },
      visibility: {
        type: 'object',
        additionalProperties: false,
        required: ['parent'],
        description: 'Whose records a caller sees: `{ parent: <ref field> }` — a record is visible exactly when the record its ref field points to is (the parent\'s owner, when the parent resource is owned).',
        properties: { parent: text('The ref field naming the parent record.') },
      },
      fields: { $ref: '#/definitions/fields', description: 'The fields, keyed by name.' },
      unique: {
        type: 'array',
        description: 'Values no two records may share, each enforced by the store itself (a unique index) and answered with its error: `- { fields: [email], error: email-taken }`. A record with any of the fields null or absent conflicts with none.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['fields', 'error'],
          properties: {
            fields: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Top-level fields whose values together are unique.' },
            where: { type: 'object', additionalProperties: { anyOf: [{ type: ['string', 'number', 'boolean'] }, { type: 'array', minItems: 1, items: { type: ['string', 'number', 'boolean'] } }] }, description: 'Only among records whose fields hold these literal values (one open loan per member and book: `{ status: [requested, active, overdue] }`).' },
            ignoreCase: { type: 'boolean', description: 'Strings compared without case.' },
            error: text('The catalog code answered when a write would break it.'),
            name: { type: 'string', pattern: IDENT, description: 'A name for the constraint (the fields joined with `+` otherwise).' },
          },
        },
      },
      rules: { type: 'array', items: boundRule('the record is valid', { field: text('The field a violation points at.') }), description: 'Conditions over the whole record, in CEL, checked after every write (create, update, replace, transition, effect): `self.end > self.start`, `self.status != "cancelled" || has(self.reason)`. A rule that reads an absent field holds (write `has(self.x)` to require it). date-time fields are timestamps, integers ints, numbers doubles.' },
      onCreate: { type: 'object', additionalProperties: false, properties: writeRuleProps, description: 'Guards and effects of every create of a record (by any endpoint that creates one).' },
      onUpdate: { type: 'object', additionalProperties: false, properties: writeRuleProps, description: 'Guards and effects of every update of a record by a client (update, replace, bulk update; not a transition, an action or an effect, which state their own): `old` is the record before, `self` after (`old.status == "draft"`). A guard with `each` checks every item of the record after the change, whether or not the request sent them (write `!has(request.lines) || …` to check only what is sent).' },
      onDelete: { type: 'object', additionalProperties: false, properties: writeRuleProps, description: 'Guards and effects of every delete of a record.' },
    },
  },
} as const;
