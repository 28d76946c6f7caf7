/** The format schema's definitions of part 4, endpoints (src/spec/format-schema.ts assembles them). */
import { IDENT, text, positive, shapeProps, writeRuleProps } from './common.ts';
import { PAGE_BODY } from './limits.ts';

export const ENDPOINTS_DEFINITIONS = {
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
      operationId: { type: 'string', minLength: 1, description: 'The name of the operation in an exported OpenAPI document (its `operationId`, unique in the spec), for the code generators that name methods after it; `<resource>.<endpoint>` where none is given. `import` keeps the document\'s.' },
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
      page: { ...PAGE_BODY, description: 'For `list`: the body of its pages, in place of `limits.pagination.body` (the style, parameters and sizes stay the part\'s): a service naming each list\'s records after them (`{ items: add_ons, next: /meta/next_page }`), or one list answering a bare array (`array`).' },
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
        description: 'A list\'s query: the filters and sorts it accepts; another parameter is refused, unless `undeclared` says otherwise. Without it, every top-level scalar field filters by equality and sorts (the convention).',
        properties: {
          filters: {
            type: 'object',
            description: 'Per field, the operators it filters by: `eq`, `ne`, `lt`, `lte`, `gt`, `gte` (numbers, dates, date-times: a date-time with an offset compares as its instant in UTC), `in`, `prefix`, `contains` (text), `exists`.',
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
          undeclared: { enum: ['refuse', 'ignore', 'either'], description: 'A query parameter the list does not declare (not a filter, sort, search or page parameter): refused (the default); ignored, the page served as without it; or either, as the service chooses (an OpenAPI document states neither: the reading `import` writes). The reference service ignores it under `either`; the tester takes a refusal or the page.' },
        },
      },
    },
  },
} as const;
