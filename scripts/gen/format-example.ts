/**
 * The short, complete example at the top of docs/format.md. It states all nine parts;
 * test/gen.test.ts loads it and checks it, so the example in the docs is always valid.
 */
export const FORMAT_EXAMPLE = `# yaml-language-server: $schema=./node_modules/svcspec/schema/svcspec.schema.json
svcspec: 1
title: Notes API

purpose:
  name: Notes
  summary: Keeps short notes that their authors write and publish.
  users:
    - name: author
      tasks: [Write and edit notes, Publish a note when it is ready]

resources:
  note:
    plural: notes
    id: {field: id, assigned: uuid}
    owned: true
    fields:
      id: {type: string, format: uuid, readOnly: true}
      title: {type: string, minLength: 1, maxLength: 200, required: true}
      body: string
      tags: {type: array, maxItems: 10, items: {type: string, maxLength: 40}}
      status: {type: string, enum: [draft, published], readOnly: true}
      createdAt: {type: string, format: date-time, readOnly: true, managed: created-at}

states:
  note:
    field: status
    initial: draft
    transitions:
      publish: {from: draft, to: published, description: The note becomes visible.}

endpoints:
  note: [create, read, update, delete, list, publish]

authentication:
  obtain: Authors create API keys on their account page.
  schemes:
    key: {type: apiKey, in: header, name: X-API-Key}
  scopes:
    notes: Read and write your own notes.
  default: {scopes: [notes]}

events:
  webhooks: {subscriptions: config, signing: standard-webhooks, timeout: 10s}
  retry: {attempts: 5, backoff: exponential, initialDelay: 30s, maxDelay: 1h}
  catalog:
    note.published: {on: note.publish, payload: [id, title]}

errors:
  shape: problem
  catalog:
    unauthenticated: {status: 401, title: Authentication required}
    forbidden: {status: 403, title: Not allowed}
    not-found: {status: 404, title: Not found}
    invalid-transition: {status: 409, title: Transition not allowed}
    payload-too-large: {status: 413, title: Request body too large}
    validation-failed: {status: 422, title: Validation failed}
    rate-limited: {status: 429, title: Too many requests}
    timeout: {status: 503, title: Request timed out}

limits:
  rate: {limit: 100, window: 1m, scope: credential}
  body: {maxSize: 64KiB}
  timeouts: {request: 10s, status: 503}
  pagination: {style: cursor, defaultSize: 20, maxSize: 100, overMax: clamp}

versioning:
  select: {header: API-Version}
  default: "1"
  versions:
    "1": {status: current, released: "2026-01-15"}
`;
