/**
 * JSON Schema (draft-07, for the widest editor support) of the svcspec authoring format.
 * It is the one definition of the format's structure: the loader validates with it,
 * `schema/svcspec.schema.json` is written from it (npm run gen), and docs/format.md
 * documents every key from its descriptions. Semantic rules (a transition naming a
 * state that does not exist, ...) live in src/check/rules, not here.
 */

import { SITUATIONS } from './http-errors.ts';

const IDENT = '^[A-Za-z][A-Za-z0-9_-]*$';
/**
 * A field's name is also what travels in the body, so it may start as real APIs' members do:
 * HAL's `_links`, JSON-LD's `@id` and `@type`, `$type` (issue #17). A rule reads such a field
 * as `self["@type"]`, CEL identifiers being letters, digits and _.
 */
export const FIELD_IDENT = '^[A-Za-z_$@][A-Za-z0-9_-]*$';
const DURATION = '^[0-9]+(ms|s|m|h|d)$';
const SIZE = '^[0-9]+(B|KB|KiB|MB|MiB)$';

const text = (description: string) => ({ type: 'string', description });
const duration = (description: string) => ({ type: 'string', pattern: DURATION, description: `${description} A duration: a whole number and a unit, ms, s, m, h or d (\`30s\`).` });
const count = (description: string) => ({ type: 'integer', minimum: 0, description });
const positive = (description: string) => ({ type: 'integer', minimum: 1, description });

/** A part written as explicitly not applicable: `events: { none: "This service emits no events." }`. */
const none = {
  type: 'object',
  description: 'The part does not apply to this service, with the reason. Unlike a missing part (a gap), this is a statement.',
  properties: { none: text('Why the part does not apply.') },
  required: ['none'],
  additionalProperties: false,
};

const shapeProps = {
  type: { enum: ['string', 'integer', 'number', 'boolean', 'object', 'array', 'ref'], description: 'The value type. `ref` holds the id of a record of another resource (see `resource`).' },
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

const fieldProps = {
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
const boundRule = (subject: string, extra: Record<string, unknown> = {}) => ({
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
const writeRuleProps = {
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
    shape: {
      type: 'object',
      additionalProperties: false,
      required: ['type'],
      properties: shapeProps,
    },
    field: {
      description: 'A field: a type name (`title: string`) or an object.',
      anyOf: [
        { enum: ['string', 'integer', 'number', 'boolean', 'object', 'array'], description: 'Short form: only the type.' },
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
        unknownFields: { enum: ['refuse', 'keep'], description: 'A member a request sends that the fields do not declare: refused (the default), or kept, stored and returned as sent (an open record, as json-server keeps whatever it is given).' },
        readOnlyFields: { enum: ['refuse', 'ignore'], description: 'A member a request sends that the service sets itself (a readOnly field, a service-assigned id, the state): refused (the default), or dropped and the request served without it (OpenAPI\'s reading of readOnly).' },
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
    ownShape: {
      type: 'object',
      additionalProperties: false,
      required: ['fields'],
      description: "A body of an action's own, not the resource's.",
      properties: { fields: { $ref: '#/definitions/fields', description: 'Its fields, written as resource fields are.' } },
    },
    endpoint: {
      description: 'An endpoint written out. Empty (`{}` or null) means the conventional one for the operation.',
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        operation: {
          type: 'string',
          pattern: IDENT,
          description: 'What the endpoint does: a standard operation (`create`, `read`, `update`, `replace`, `delete`, `list`), a transition name, `action` (a named operation that is not a state change), or a bulk write of many records in one all-or-nothing request: `bulk-create`, `bulk-update` (`PATCH /{plural}`, each item a merge patch carrying the id) or `bulk-delete` (`POST /{plural}/bulk-delete`, the items are ids). When absent, the entry\'s key is the operation; when given, the key is only the endpoint\'s name (its id is `<resource>.<key>`), so one operation can have several endpoints (`memberLoans: { operation: list, path: /members/{memberId}/loans }`).',
        },
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], description: 'The HTTP method.' },
        path: { type: 'string', pattern: '^/', description: 'Path template relative to {base_url}. `{id}` is the record id; `{<field>Id}` the id of the record the ref field `<field>` points to (a parent); any other parameter is declared under `params`.' },
        params: {
          type: 'object',
          propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
          description: 'What each path parameter binds: `id` (the record\'s own id), `{ ref: <field> }` (the id of the parent the ref field points to: a nested path), or a shape (`{ type: string, format: date }`) for a value of its own.',
          additionalProperties: {
            anyOf: [
              { enum: ['id'] },
              { type: 'object', additionalProperties: false, required: ['ref'], properties: { ref: text('A ref field of the resource: the parameter is the id of the record it points to.') } },
              { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { enum: ['string', 'integer', 'number', 'boolean'], description: 'The value type.' }, format: shapeProps.format, enum: shapeProps.enum, minimum: shapeProps.minimum, maximum: shapeProps.maximum, minLength: shapeProps.minLength, maxLength: shapeProps.maxLength, pattern: shapeProps.pattern } },
            ],
          },
        },
        select: { enum: ['caller'], description: '`caller`: a singleton — the one record of the calling principal (an owned resource), addressed without an id (`/me`). No credentials: 401; no record yet: 404; with `perOwner: one`, a replace creates it.' },
        summary: text('What the endpoint does.'),
        request: {
          description: 'The request body: `none`, `resource` (the writable fields), a list of field names, or (for an action) `{ fields: { <name>: <field> } }`, a body of its own.',
          anyOf: [{ enum: ['none', 'resource'] }, { type: 'array', items: { type: 'string' } }, { $ref: '#/definitions/ownShape' }],
        },
        response: {
          description: 'For an action: what it answers with, `resource` (the record; the default), `none` (204) or `{ fields: { <name>: <field> } }`, a shape of its own.',
          anyOf: [{ enum: ['none', 'resource'] }, { $ref: '#/definitions/ownShape' }],
        },
        behaviour: text('For an action: what it does, in prose. The reference service cannot perform prose: it answers 501 (not-implemented) unless a builder supplies a handler (`svcspec serve --handlers`) or the action states `effects`.'),
        counts: { ...writeRuleProps.counts, description: `For a record action: ${writeRuleProps.counts.description}` },
        guards: { ...writeRuleProps.guards, description: 'For a record action: conditions checked before it, in its transaction; the first that is false refuses it with its error.' },
        effects: { ...writeRuleProps.effects, description: 'For a record action: what it changes. An action that states effects is performed by the reference service (its guards, then its effects, in one transaction), answering with the record.' },
        max: positive('For `bulk-create`, `bulk-update` and `bulk-delete`: the most items one request may carry (required).'),
        expand: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'For `read` and `list`: the ref fields a caller may expand with `?expand=a,b` (the referenced record replaces its id).' },
        expandDepth: { type: 'integer', minimum: 1, maximum: 3, description: 'For `expand`: how deep expansion goes (1, the default: the referenced records; 2: theirs too; at most 3).' },
        responses: {
          type: 'object',
          propertyNames: { pattern: '^[1-5][0-9][0-9]$' },
          description: 'Responses by status: the body is `resource`, `page`, `none` or `error`.',
          additionalProperties: {
            anyOf: [
              { enum: ['resource', 'page', 'none', 'error'] },
              { type: 'object', additionalProperties: false, required: ['body'], properties: { body: { enum: ['resource', 'page', 'none', 'error'], description: 'What the body holds: a record, a page of records, nothing, or an error.' }, description: text('When this response is given.') } },
            ],
          },
        },
        errors: { type: 'array', items: { type: 'string' }, description: 'Error codes (from the errors catalog) this endpoint may answer with.' },
        query: {
          type: 'object',
          additionalProperties: false,
          description: 'A list\'s query: the filters and sorts it accepts, and nothing else. Without it, every top-level scalar field filters by equality and sorts (the convention).',
          properties: {
            filters: {
              type: 'object',
              description: 'Per field, the operators it filters by: `eq`, `ne`, `lt`, `lte`, `gt`, `gte` (numbers, dates, date-times), `in`, `prefix`, `contains` (text), `exists`.',
              additionalProperties: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'prefix', 'contains', 'exists'] } },
            },
            sort: { type: 'array', uniqueItems: true, items: { type: 'string' }, description: 'The fields a client may sort by (ascending, or descending with a leading `-`). None when absent.' },
            search: {
              type: 'object',
              additionalProperties: false,
              required: ['fields'],
              description: 'A full-text parameter: records any of whose text fields holds the text (ASCII letters without case).',
              properties: {
                param: text('The query parameter (default `q`).'),
                fields: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' }, description: 'The text fields searched.' },
              },
            },
            style: { enum: ['brackets', 'colon', 'suffix'], description: 'How an operator is written: `year[gte]=2000` (brackets, the default), `year:gte=2000` (colon, json-server), `year_gte=2000` (suffix). Equality is always `year=2000`.' },
          },
        },
      },
    },
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
    rate: {
      type: 'object',
      additionalProperties: false,
      required: ['limit', 'window'],
      properties: {
        limit: positive('Requests allowed per window.'),
        window: duration('The window.'),
        scope: { enum: ['credential', 'address'], description: 'Counted per credential (principal) or per client address; defaults to the scope of the main limit.' },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        rate: {
          description: 'The rate limit of every endpoint unless overridden, or `{ none: reason }`: the service has no rate limit.',
          anyOf: [
            { ...none, description: 'The service has no rate limit, stated: `rate: { none: "Requests are not limited." }`.' },
            {
          type: 'object',
          additionalProperties: false,
          required: ['limit', 'window', 'scope'],
          description: 'The rate limit of every endpoint unless overridden.',
          properties: {
            limit: positive('Requests allowed per window.'),
            window: duration('The window.'),
            scope: { enum: ['credential', 'address'], description: 'Counted per credential (principal) or per client address.' },
            overrides: { type: 'object', description: 'Per-endpoint limits, keyed by endpoint id.', additionalProperties: { $ref: '#/definitions/rate' } },
            headers: {
              enum: ['ratelimit', 'none'],
              description: 'The response fields that tell a client its quota. `ratelimit`: `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers, RFC 9651 structured fields) on every answer of a limited endpoint, the policy named `default` for the main limit and after its endpoint id for an override; `none`: only the 429 and its `Retry-After` tell. When absent, the reference service sends `ratelimit` as a runtime default that `check` lists.',
            },
          },
        },
          ],
        },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['maxSize'],
          description: 'The request body size limit; larger bodies are refused with 413.',
          properties: { maxSize: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: SIZE }], description: 'Largest request body: bytes, or a size such as `64KiB`.' } },
        },
        fields: {
          type: 'object',
          additionalProperties: false,
          description: 'Limits for every field that does not set its own.',
          properties: {
            maxStringLength: positive('Longest string in any field without its own maxLength.'),
            maxArrayItems: positive('Most items in any array without its own maxItems.'),
          },
        },
        timeouts: {
          description: 'How long a request may run, or `{ none: reason }`: the service sets no time-out.',
          anyOf: [
            { ...none, description: 'The service sets no time-out, stated: `timeouts: { none: "Requests run to completion." }`.' },
            {
          type: 'object',
          additionalProperties: false,
          required: ['request', 'status'],
          description: 'How long a request may run, and the status it is answered with when it runs longer.',
          properties: {
            request: duration('How long a request may run before it is abandoned.'),
            status: { enum: [503, 504], description: 'The status a timed-out request is answered with.' },
          },
        },
          ],
        },
        pagination: {
          type: 'object',
          additionalProperties: false,
          required: ['style', 'defaultSize', 'maxSize', 'overMax'],
          description: 'How list endpoints page their records.',
          properties: {
            style: { enum: ['cursor', 'offset', 'page'], description: 'cursor: opaque position tokens; offset: a record count to skip; page: a page number from 1.' },
            defaultSize: positive('Page size when the client gives none.'),
            maxSize: {
              description: 'Largest page size, or `none`: the service serves any size asked for (a statement, as json-server makes).',
              anyOf: [positive('Largest page size.'), { enum: ['none'], description: 'No largest page size.' }],
            },
            overMax: { enum: ['clamp', 'reject'], description: 'A larger size asked for is clamped to the maximum, or refused.' },
            params: {
              type: 'object',
              additionalProperties: false,
              description: 'Query parameter names.',
              properties: {
                size: text('The page size parameter (default `limit`).'),
                position: text('The cursor, offset or page parameter (default `cursor`, `offset` or `page`).'),
                sort: text('The sort parameter (default `sort`).'),
              },
            },
            body: {
              description: 'The body of a page: `array` (a bare JSON array; the next page is linked only by `Link: <…>; rel="next"`), or the members of an object. Default: `{ items: items, next: next }` (offset style adds `offset: offset`).',
              anyOf: [
                { enum: ['array'], description: 'A bare JSON array of the records.' },
                {
                  type: 'object',
                  additionalProperties: false,
                  required: ['items'],
                  description: 'An object holding the records in one member.',
                  properties: {
                    items: text('The member holding the records (`data`, `items`, `results`).'),
                    next: text('The member holding the next position (cursor, offset or page number), null on the last page.'),
                    total: text('The member holding the number of records of the whole list (all pages).'),
                    offset: text('Offset style: the member holding the offset of the first record.'),
                  },
                },
              ],
            },
            unpaged: {
              enum: ['first-page', 'all'],
              description: 'What a list request without the position parameter gets: the first page (the default), or every record as a bare array (json-server without `_page`).',
            },
            links: {
              type: 'array',
              items: { enum: ['next'] },
              uniqueItems: true,
              description: 'The links each page carries in `Link` (RFC 8288): `[next]` links the following page (`Link: <…>; rel="next"`, the same query with the next position), on every page but the last. `[]`: pages carry no links. When absent, the reference service links `next` as a runtime default that `check` lists.',
            },
          },
        },
        conditional: {
          description: 'Conditional requests (RFC 9110 §13): the validators every record answer carries and the preconditions the service honours, or `{ none: reason }`: it sends no validators and honours none. When absent, the reference service sends a strong ETag and honours If-Match and If-None-Match as a runtime default that `check` lists.',
          anyOf: [
            { ...none, description: 'The service makes no conditional requests, stated: `conditional: { none: "Records carry no validators." }`.' },
            {
              type: 'object',
              additionalProperties: false,
              required: ['validators'],
              properties: {
                validators: {
                  type: 'array',
                  minItems: 1,
                  uniqueItems: true,
                  items: { enum: ['etag', 'last-modified'] },
                  description: 'What every answer with a record carries: `etag` a strong entity tag (RFC 9110 §8.8.3) that stays the same while the record is unchanged and changes when it changes; `last-modified` the time of its last change (§8.8.2), an HTTP-date.',
                },
                writes: { type: 'boolean', description: 'A write to a record (update, replace, delete, transition) with a precondition that fails (If-Match with a stale tag, If-Unmodified-Since before the last change) is refused with 412 and changes nothing (§13.1.1, §13.1.4). Default true.' },
                reads: { type: 'boolean', description: 'A read whose If-None-Match holds the current tag, or whose If-Modified-Since is not before the last change, is answered 304 without a body (§13.1.2, §13.1.3). Default true.' },
              },
            },
          ],
        },
        idempotency: {
          description: 'Idempotency keys on POST (draft-ietf-httpapi-idempotency-key-header), or `{ none: reason }`: the service does not honour them. When absent, the reference service honours `Idempotency-Key` for 24 hours per credential as a runtime default that `check` lists.',
          anyOf: [
            { ...none, description: 'The service honours no idempotency key, stated: `idempotency: { none: "Retried creates make new records." }`.' },
            {
              type: 'object',
              additionalProperties: false,
              required: ['header', 'lifetime', 'scope'],
              properties: {
                header: { type: 'string', pattern: '^[A-Za-z0-9!#$%&\'*+.^_`|~-]+$', description: 'The request header carrying the key (`Idempotency-Key`).' },
                lifetime: duration('How long a key is remembered: a POST repeated with the same key within it gets the first answer again (same status, same record) and makes nothing new; the same key with a different request is refused (`idempotency-key-reused`, 422).'),
                scope: { enum: ['credential', 'address'], description: 'Whose keys are one namespace: each credential (principal) has its own keys, or each client address.' },
              },
            },
          ],
        },
      },
    },
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
  },
} as const;

export type FormatSchema = typeof FORMAT_SCHEMA;
