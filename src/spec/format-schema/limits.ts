/** The format schema's definitions of part 8, limits (src/spec/format-schema.ts assembles them). */
import { SIZE, text, duration, positive, none } from './common.ts';

/** A page member: a plain name, or a JSON Pointer (RFC 6901) to a member inside another, each token not empty. */
export const PAGE_MEMBER = '^(?:[^/].*|(?:/(?:[^~/]|~[01])+)+)$';

const member = (description: string) => ({
  type: 'string',
  pattern: PAGE_MEMBER,
  description: `${description} A plain name (\`data\`), or a JSON Pointer (RFC 6901) to a member inside another (\`/meta/next_page\`).`,
});

/** A page body, written in `limits.pagination.body` and in a list's own `page`. */
export const PAGE_BODY = {
  description: 'The body of a page: `array` (a bare JSON array; the next page is linked only by `Link: <…>; rel="next"`), or the members of an object.',
  anyOf: [
    { enum: ['array'], description: 'A bare JSON array of the records.' },
    {
      type: 'object',
      additionalProperties: false,
      required: ['items'],
      description: 'An object holding the records in one member.',
      properties: {
        items: member('The member holding the records (`data`, `items`, `results`).'),
        next: member('The member holding the next position (cursor, offset or page number), null on the last page.'),
        total: member('The member holding the number of records of the whole list (all pages).'),
        offset: member('Offset style: the member holding the offset of the first record.'),
      },
    },
  ],
};

export const LIMITS_DEFINITIONS = {
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
        required: ['style'],
        description: 'How list endpoints page their records. The sizes may be left unsaid (a document naming its page parameters and not their values): the part is then partial, and the runtime\'s safety bound stands in, which `check` lists and the tester holds no implementation to.',
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
          body: { ...PAGE_BODY, description: 'The body of a page: `array` (a bare JSON array; the next page is linked only by `Link: <…>; rel="next"`), or the members of an object. Default: `{ items: items, next: next }` (offset style adds `offset: offset`). A list endpoint may state its own (`page`).' },
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
} as const;
