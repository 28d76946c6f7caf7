/**
 * docs/format.md: the reference of the authoring format. The prose is written here; the
 * key tables come from walking FORMAT_SCHEMA, and the endpoint conventions from the
 * loader's own CONVENTIONS, so neither can drift from what the loader does.
 */
import { DOMAIN_RULES } from './format-domain.ts';
import { conventionalPath, CONVENTIONS } from '../../src/spec/conventions/endpoints.ts';
import { FORMAT_SCHEMA } from '../../src/spec/format-schema.ts';
import { BULK_OPERATIONS, STANDARD_OPERATIONS, type EndpointResponse, type RequestShape, type ResponseBody } from '../../src/spec/model.ts';
import { PARTS, type PartName } from '../../src/spec/parts.ts';
import { FORMAT_EXAMPLE } from './format-example.ts';
import { anchor, code, document, generatedNotice, table } from './markdown.ts';
import { SchemaWalker, type SchemaNode, type SchemaSection } from './schema-walk.ts';

const INTRO = `A svcspec document describes one service interface in nine parts, always in this order:

${PARTS.map((p) => `${p.number}. [${p.title}](#part-${p.name}) (${code(p.name)}): ${lowerFirst(p.asks)}`).join('\n')}

It is written in YAML (or JSON, or Markdown with fenced \`yaml\` or \`json\` blocks in each part's section, merged when there are several). This page
documents every key of the format; it is generated from the JSON Schema the loader validates
with, [\`schema/svcspec.schema.json\`](../schema/svcspec.schema.json).`;

const CONVENTIONS_OF_THE_FORMAT = `## How a spec is written

- **A part that is missing, or empty, is a gap.** Nothing is supplied in its place: \`svcspec check\`
  reports it ([\`part-gap\`](diagnostics.md#part-gap)) and fails unless \`--allow-gaps\` is given.
- **\`{ none: reason }\` states that a part does not apply**, for instance
  \`events: { none: "The service emits no events." }\`. Unlike a gap, this is a statement: the
  part counts as stated. A part cannot say \`none\` and have content.
- **Only the keys listed here are allowed.** An unknown key is an error
  ([\`unknown-key\`](diagnostics.md#unknown-key)), with the closest known key suggested.
- **Durations** are a whole number and a unit: \`ms\`, \`s\`, \`m\`, \`h\` or \`d\` (\`250ms\`, \`30s\`, \`1h\`).
- **Sizes** are a number of bytes (\`65536\`) or a whole number and a unit: \`B\`, \`KB\`, \`KiB\`,
  \`MB\` or \`MiB\` (\`64KiB\`). KB and MB are powers of 1000, KiB and MiB powers of 1024.
- **Fields have a short form**: \`title: string\` is \`title: {type: string}\`.
- **Versions are names.** \`since\`, \`until\` and \`default\` may be written as numbers (\`2\`), but
  quote version keys and dates (\`"2"\`, \`released: "2026-01-15"\`) so YAML keeps them as text.

### YAML traps

Flow style (\`{...}\` and \`[...]\`) is compact, but inside it a comma ends a value and braces
open a map. Quote values that contain a comma, a brace, a colon followed by a space, or that
start with \`@\`, \`*\`, \`&\`, \`!\`, \`%\`, \`|\` or \`>\`:

\`\`\`yaml
versioning:
  select: {path: "/v{version}"}      # unquoted, {version} would be read as a map
errors:
  catalog:
    not-found: {status: 404, title: Not found, when: 'No record has that id, or the path is unknown.'}
\`\`\`

Also quote values YAML would otherwise read as another type: \`"yes"\`, \`"no"\`, \`"on"\`,
\`"1.10"\` and dates (\`"2026-01-15"\`).

### Editor support

Editors with the YAML language server (VS Code's YAML extension, for instance) complete and
check keys when the first line of the spec names the schema:

\`\`\`yaml
# yaml-language-server: $schema=./node_modules/svcspec/schema/svcspec.schema.json
\`\`\`

The schema is also exported by the package as \`svcspec/schema.json\`.

### Reading this reference

Each object of the format has a table of its keys: the key, what its value is, whether it is
required there, and what it means. In the headings, \`<name>\` stands for a key you choose (a
resource name, a field name, an error code) and \`[]\` for each item of a list. "object" links to
the table of that object's keys.`;

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

const BODY_WORDS: Readonly<Record<ResponseBody, string>> = {
  resource: 'the record',
  page: 'a page of records',
  none: 'no body',
  error: 'an error body',
  shape: "the action's own response shape",
  items: 'the records, `{ "items": [...] }`',
};

function requestWords(request: RequestShape, operation: string): string {
  if (operation === 'bulk-delete') return '`{ "items": [...] }`, each item the id of a record';
  if (request.kind === 'none') return 'none';
  if (request.kind === 'shape') return 'the fields of its own `request: { fields }`';
  if (operation === 'bulk-create') return '`{ "items": [...] }`, each item the writable fields of a create';
  if (operation === 'bulk-update') return '`{ "items": [...] }`, each item a merge patch of one record with its id';
  if (request.kind === 'resource') return request.partial ? 'the writable fields, each optional (a partial update)' : 'the writable fields; the required ones must be sent';
  if (operation === 'transition') return 'the fields the transition `requires` (an empty body when it requires none)';
  return request.fields.length ? `the fields ${request.fields.map(code).join(', ')}` : 'none';
}

function responseWords(responses: readonly EndpointResponse[]): string {
  return responses.map((r) => `${r.status}, ${BODY_WORDS[r.body]}`).join('; ');
}

function endpointConventions(): string {
  const operations = [...STANDARD_OPERATIONS, 'transition', 'action', ...BULK_OPERATIONS] as const;
  const named: Partial<Record<(typeof operations)[number], string>> = { transition: '*a transition* (`approve`)', action: '`action` (`remind`)' };
  const rows = operations.map((op) => {
    const c = CONVENTIONS[op];
    const path = op === 'transition' ? conventionalPath('{plural}', op, '{transition}') : op === 'action' ? conventionalPath('{plural}', op, '{name}') : conventionalPath('{plural}', op);
    return [named[op] ?? code(op), code(c.method), code(path), requestWords(c.request, op), responseWords(c.responses)];
  });
  return `${anchor('endpoint-conventions')}
### Endpoint conventions

In the short form (\`book: [create, read, list]\`) every endpoint follows the convention of its
operation; any other name in the list is a transition of the resource's state machine. In the
explicit form (\`book: { read: {}, create: { summary: ... } }\`) an endpoint written as \`{}\` or
left empty follows the convention too, and each key it does give (\`method\`, \`path\`,
\`request\`, \`responses\`) replaces only that part of the convention. \`{plural}\` is the
resource's \`plural\` (its name when it has none), \`{id}\` the record id; paths are relative to
\`{base_url}\`.

${table(['Operation', 'Method', 'Path', 'Request body', 'Response (status, body)'], rows)}

Every endpoint may also answer with an error body at the statuses of
[docs/http-errors.md](http-errors.md) (and those of the spec's own error codes).`;
}

const ENDPOINT_IDS = `${anchor('endpoint-ids')}
### Endpoint ids

Other parts name endpoints by id:

- \`resource.operation\` for a standard operation: \`book.read\`, \`loan.create\`;
- \`resource.transition\` for a transition: \`loan.approve\`;
- \`resource.name\` for an entry whose key is a name of your own and whose \`operation:\`
  says what it does: \`loan.memberLoans\` (\`operation: list\`), \`book.import\`
  (\`operation: bulk-create\`), \`book.bulkDelete\` (\`operation: bulk-delete\`), \`loan.remind\`
  (\`operation: action\`);
- \`resource.*\` for every endpoint of a resource, in \`authentication.public\` and
  \`authentication.require\`: \`readingList.*: [lists]\`.

They are used by \`authentication.public\` and \`authentication.require\` (an exact id wins over
\`resource.*\`) and by \`limits.rate.overrides\`. Event triggers (\`events.catalog.<event>.on\`)
look alike but name what happened to a record: \`book.created\`, \`book.updated\`,
\`book.deleted\`, or a transition, \`loan.approve\`.`;

const PAGE_SHAPES = `${anchor('page-shapes')}
### Page shapes

svcspec's own page is \`{"items": [...], "next": <position> | null}\` (the offset style adds
\`"offset"\`), with \`Link: <…>; rel="next"\` (RFC 8288) when a page follows. A service svcspec did
not design states its own:

| The service | \`limits.pagination\` |
|---|---|
| numbered pages, \`?page=2&per_page=25\` | \`style: page, params: {position: page, size: per_page}\` |
| a bare array, the next page only in \`Link\` (GitHub) | \`body: array\` |
| records under \`data\`, the total under \`total\` | \`body: {items: data, next: next, total: total}\` |
| every record as a bare array unless a page is asked for (json-server) | \`unpaged: all\` |
| any page size a client asks for | \`maxSize: none\` |
| \`?_sort=-views\` | \`params: {sort: _sort}\` |
| the next page and the count inside another member, \`{"data": [...], "meta": {"next_page": 2, "total_count": 70}}\` | \`body: {items: data, next: /meta/next_page, total: /meta/total_count}\` (a JSON Pointer, RFC 6901) |
| each list naming its records after them, \`{"add_ons": [...]}\`, \`{"taxes": [...]}\` (Lago, Shopify, Zendesk) | the list endpoint's own \`page: {items: add_ons, next: /meta/next_page}\` |

The reference service answers in the declared shape, export describes it, and the tester
reads pages by it (src/spec/conventions/pagination.ts is the one definition). Decisions: a body
without a \`next\` member is walked by its \`Link\` header; \`total\` counts every record the
caller may see under the same filters; with \`unpaged: all\` the tester asks for pages by their
first position (0 or 1) so that it reads a page, not the whole list. A member written with a
leading \`/\` is a JSON Pointer into the page, any other a plain member name; the reference writes
only the members named (Lago's \`current_page\` and \`total_pages\` are not), and the tester and the
proxy read only those, so an implementation sending more is not faulted for it. A list's
\`page\` replaces the part's body whole (no member is inherited): the style, the parameters and
the sizes stay the part's, one pagination for the service. \`check\` refuses two pieces of a
page in one member, or one inside another (\`/meta\` holding the records and \`/meta/next\`).
The reference ends its pages with a null next position; the tester and the proxy also read an
empty one (\`"next": ""\`, Vultr's last page) as the end, since an empty position addresses no page.`;

const PROTOCOL_PROMISES = `${anchor('protocol-promises')}
### Protocol promises

Entity tags, conditional requests, idempotency keys, page links and quota fields are promises a
service makes to its clients, so they are statements of the spec, kept by \`svcspec serve\`,
described by \`export\` and \`doc\`, and demanded by \`svcspec test\` of any implementation:

\`\`\`yaml
limits:
  rate: {limit: 600, window: 1m, scope: credential, headers: ratelimit}
  pagination: {style: cursor, defaultSize: 20, maxSize: 100, overMax: clamp, links: [next]}
  conditional: {validators: [etag], writes: true, reads: true}
  idempotency: {header: Idempotency-Key, lifetime: 24h, scope: credential}
\`\`\`

| Statement | What the service promises | What \`svcspec test\` checks |
|---|---|---|
| \`conditional.validators: [etag]\` | every answer with a record carries a strong \`ETag\` | the tag is strong, the same on two reads of an unchanged record, and different after a change |
| \`conditional.writes\` | a write (update, replace, delete, transition) with a stale \`If-Match\` is 412 and changes nothing | a stale tag on an update (or replace) and on a delete is 412 (in the declared error shape) and the record reads as before; the current tag is accepted |
| \`conditional.reads\` | a read with the current tag in \`If-None-Match\` is 304 without a body | 304 for the current tag, 200 for a stale one |
| \`idempotency\` | a POST repeated with the same key within \`lifetime\` gets the first answer (status and record) and makes nothing new; the same key with another body is refused (\`idempotency-key-reused\`) | the replay's status and record equal the first (no second record); another body with the key is refused; with \`scope: credential\` another principal's same key makes its own record, with \`address\` it gets the first answer |
| \`pagination.links: [next]\` | \`Link: <…>; rel="next"\` on every page but the last | following the link reaches the next page: new records, none repeated, the walk's filters and sort kept |
| \`rate.headers: ratelimit\` | \`RateLimit-Policy\` and \`RateLimit\` (RFC 9651 structured fields) on every answer of a limited endpoint | both parse; the policy's \`q\` and \`w\` are the declared limit and window; \`r\` is at most \`q\` |

Where the spec says nothing, the reference service keeps its runtime default (a strong ETag with
both preconditions; \`Idempotency-Key\` for 24 hours per credential; \`next\` links; the
RateLimit fields), and \`check\` lists each as a default applied, never as the spec's own value;
\`svcspec test\` demands none of them of another implementation. \`conditional: { none: … }\` and
\`idempotency: { none: … }\` state that a service keeps no such promise: the reference service
then sends no validators and ignores the headers. Deprecation and Sunset fields are promised by
a version's \`status: deprecated\` and its dates (part 9): the tester checks that they parse
(RFC 9745, RFC 8594), agree with the dates, and appear on deprecated versions only. Every error
body, of every check, is also held to carry no stack trace, file path or exception name.

The reference service does not send \`Last-Modified\` yet (its store keeps no change time); a
spec that states \`last-modified\` is still checked by the tester against other implementations.`;

const FOREIGN = `${anchor('describing-an-existing-service')}
## Describing a service svcspec did not design

The format's defaults are svcspec's conventions; each can be stated otherwise, so that an
existing service is described as it is (examples/json-server.yaml describes json-server):

| What the service does | How the spec says it |
|---|---|
| answers an undeclared method 404, not 405 | \`errors.catalog.not-found: {status: 404, for: [not-found, method-not-allowed]}\` (no \`Allow\` then: it goes with 405 only) |
| error bodies of one member, \`{"error": "Not Found"}\` | \`errors.shape: {mediaType: application/json, members: {title: error}}\` (a shape names only the members it has; without \`code\` the tester judges errors by status and shape) |
| keeps members a record does not declare | \`resources.<r>.unknownFields: keep\` |
| ignores an id (or other member it sets) sent by a client | \`resources.<r>.readOnlyFields: ignore\` (\`either\`: refused or ignored, as the implementation chooses) |
| chooses opaque text ids (\`a7Kurl72mD0\`, \`cus_…\`) | \`id: {field: id, assigned: service}\` |
| has no rate limit, no time-out | \`limits.rate: {none: reason}\`, \`limits.timeouts: {none: reason}\` (statements: the part can be complete, and the reference applies none) |
| pages its own way | [page shapes](#page-shapes) |
| reads its tokens as \`Authorization: Token <token>\` (Django REST framework, RealWorld) | \`authentication.schemes.<s>: {type: bearer, tokens: opaque, prefix: Token}\` |
| sends and answers each record inside a member named for it, \`{"article": {…}}\` (RealWorld's API, Rails' JSON root) | \`resources.<r>.envelope: article\` ([record envelopes](#record-envelopes)) |

${anchor('record-envelopes')}
### Record envelopes

\`envelope: <member>\` on a resource says its records travel inside one member:
\`POST /articles\` takes \`{"article": {"title": …}}\` and answers \`{"article": {"slug": …}}\`.
Where it applies (src/spec/conventions/envelope.ts, read by serve, the tester, the proxy,
export and import alike):

| Enveloped | Bare |
|---|---|
| the body of a create, update (merge patch), replace, a transition's fields (one that takes none takes no body), an action taking the record | a page's items (the page has its own shape: \`limits.pagination.body\`, \`{items: articles, total: articlesCount}\`) |
| every answer that is the record: create, read, update, replace, transition, an action answering the record, a delete answering it | a bulk write's items; an action's body or answer of its own shape; error bodies; event payloads |

Decisions where the format had none: a record sent bare is refused (422, \`validation-failed\`
at \`/article\`: "is required: the record is sent inside 'article'"), never taken for the record;
another member beside the envelope is refused as an undeclared field; the pointers of a refusal
are into the body as sent (\`/article/title\`); an action handler (\`--handlers\`) sees and
answers the record bare, and serve wraps it. The tester sends every record body inside the
envelope and reads answers out of it, and checks \`<resource>.envelope\` (the create's and the
read's answers are the record inside it); the proxy reports a request or an answer not enveloped
as declared. \`import\` reads a body of one member holding a record schema as the resource's
envelope (\`import-record-envelope\`), and a list named after its records
(\`{articles: [...], articlesCount}\`) as a page of them.`;

const OPEN_SURFACE = `${anchor('named-endpoints')}
### Named endpoints: \`operation:\`

The key of an explicit entry is the endpoint's name, and its id is \`<resource>.<name>\`. When
the entry has no \`operation:\`, the key is the operation (a standard one or a transition), as
always; with \`operation:\`, the key is free: \`memberLoans: { operation: list, path: ... }\` beside
\`list\`, or one of the two operations below that only exist written out.

${anchor('actions')}
### Actions

An action is a named operation on a record or on the collection that is not a state change:
reschedule, send a reminder, preview a price. The spec says its method and path (by
convention \`POST /{plural}/{id}/{name}\`), its request (\`none\`, the default; \`resource\`; a list
of the resource's fields; or \`{ fields: {...} }\` of its own, written as resource fields are),
its response (\`resource\`, the default; \`none\`, answered 204; or \`{ fields: {...} }\`), its
errors, and what it does, in prose, in \`behaviour\`. It acts on one record when a parameter of
its path is the record's id (\`{id}\`, or declared \`id\`), else on the collection; under a parent
(\`/patients/{patientId}/appointments/{id}/remind\`) the parent must exist and be the record's, or
the answer is 404, as for every nested operation. Scopes are given as for any endpoint
(\`authentication.require\`, by its id).

\`\`\`yaml
endpoints:
  loan:
    remind:
      operation: action
      path: /loans/{id}/remind
      request:
        fields:
          channel: {type: string, enum: [email, sms]}
      response:
        fields:
          sentAt: {type: string, format: date-time, required: true}
      behaviour: Sends the borrower a reminder of the due date and answers when it was sent.
      errors: [not-found, validation-failed, not-implemented]
\`\`\`

Prose cannot be run. The reference service (\`svcspec serve\`) validates, authenticates,
rate-limits and versions an action like any endpoint: 401/403, 404 for a record that does not
exist or is another principal's, 422 for a body outside the declared request; then, having no
behaviour to run, it answers **501 not-implemented** in the declared error shape. \`check\`
notes each such action (\`action-behaviour-prose\`). A builder supplies the behaviour, as
PocketBase's hooks extend PocketBase: \`createApp({ handlers: { 'loan.remind': async (input) => ({ sentAt: ... }) } })\`,
or \`svcspec serve SPEC --handlers ./handlers.js\`, a module whose default export (or \`handlers\`
export) is that map. A handler runs inside the same pipeline, after all the checks above; it is
given the endpoint id, the path parameters, the query, the validated body, the record (for an
action on a record, as a read shows it), the caller, the version and the store. Its answer is
checked against the declared response: an answer outside it is a logged 500 in the declared
shape, never passed on. It answers a declared error by throwing
\`new ActionError('<code>', 'detail')\` (exported by \`svcspec/serve\`); a code the endpoint
does not declare is a logged 500 too. What a handler writes through the store is its own
doing: the store neither validates it nor emits events for it (an action is not one of the
changes events are triggered by). \`svcspec test\` accepts a 501 only from an action whose
behaviour is stated in prose.

${anchor('bulk')}
### Bulk writes

\`operation: bulk-create\` creates many records in one request (by convention \`POST
/{plural}/bulk\`). The body is \`{ "items": [ ... ] }\`, each item what the resource's create
takes; \`max\` (required: \`check\` errors without it) bounds the items of one request. Every item is
checked as its create would be, and every failing member of every item is listed with its
pointer (\`/items/3/title\`) in one 422; nothing is written unless everything is: the records are
written in one transaction, each with the events its create emits (one per record). A taken
id found during the write fails the whole request at that item's id. The answer is 201
\`{ "items": [ ...the records, in order ] }\`; Idempotency-Key is honoured as on a create.
Every rule of a create holds for each item: under a parent (\`/patients/{patientId}/appointments/bulk\`)
the parent must exist and each item is its child (an item naming another parent is refused at its
ref); \`visibility: { parent }\` refuses an item naming a parent the caller cannot see; and a
\`perOwner: one\` resource takes one item, only while the caller has none (else 409, as a
second create).

\`operation: bulk-update\` changes many records in one request (by convention \`PATCH
/{plural}\`, the collection itself, so no record's path is shadowed). Each item is a JSON merge patch (RFC 7396) of one record, as its single update
takes it, with the record's id member added (\`{ "items": [{ "id": "…", "title": "New" }] }\`);
the id is required and is not itself changed. Each patch is checked as the update would check it,
before and after merging, every failing member listed at its item pointer (\`/items/2/title\`).
The answer is 200 \`{ "items": [ ...the records as changed, in order ] }\`, and one \`updated\` event
per record. The body is plain JSON (\`application/json\`): it is a list of merge patches, not one.

\`operation: bulk-delete\` deletes many records in one request: \`POST /{plural}/bulk-delete\`
with \`{ "items": [id, ...] }\`, answered 204, one \`deleted\` event per record. It is a POST, not a
DELETE with a body: a body on DELETE "has no generally defined semantics" (RFC 9110 §9.3.5) and
proxies and client libraries may drop it; a POST to a path of its own is what Google's AIP-235
(batch delete) prescribes. As a POST it honours Idempotency-Key, so a retried batch is answered as
the first was instead of failing on ids that are now gone.

Both are all or nothing in one transaction, with \`max\` required as for a bulk create. An item
whose id names no record the caller may see, whether there is none or it is another principal's
record of an \`owned\` resource, fails the whole request with 422 \`validation-failed\` at the
item's id (\`/items/2/id\` for an update, \`/items/2\` for a delete), worded alike in both cases so
nothing is revealed of other principals' records; 422 rather than 404 because the path exists and
what is wrong is a member of the body. An id given twice in one request is refused at its second
place. A bulk update is compare-and-set on the versions it read: a record changed meanwhile is read
and merged again, as a single update without If-Match is (no lost update). If-Match does not apply
to a batch (one header cannot carry a version per record).

\`\`\`yaml
endpoints:
  book:
    import: {operation: bulk-create, max: 50}
    bulkUpdate: {operation: bulk-update, max: 50}
    bulkDelete: {operation: bulk-delete, max: 50}
\`\`\`

${anchor('expansion')}
### Expansion

A read or list endpoint may let callers expand ref fields: \`expand: [book, member]\` and
\`expandDepth\` (1 by default, at most 3). \`GET /loans/{id}?expand=book,member\` answers the loan
with \`book\` and \`member\` holding the records they name, as a read of each shows it, instead of
their ids (Stripe's style); a list of refs becomes a list of records; \`expand=loan.book\` goes
deeper where \`expandDepth\` allows. Only declared refs may be expanded (another name is 422 at
\`/query/expand\`). A referenced record the caller may not read (another principal's record of
an \`owned\` resource), or one that no longer exists, stays its id: expansion never shows more
than a read would. An expanded read is another representation of the record, so it carries
no ETag and is not answered 304.`;

const PATH_PARAMETERS = `${anchor('path-parameters')}
### Path parameters, nested collections and singletons

An entry's key is the endpoint's **name**; \`operation:\` says what it does, so one operation can
have several endpoints. Without \`operation:\` the key is the operation, as before. Every
parameter of a path stands for something the model knows (\`check\` reports one that does
not: \`endpoint-path-param-unbound\`):

| Parameter | Stands for |
|---|---|
| \`{id}\` | the id of the record an item operation acts on |
| \`{<field>Id}\` | by convention, when the resource has a ref field \`<field>\`: the id of the record it points to, the **parent** (\`{memberId}\` of a loan binds its \`member\`) |
| declared \`params: { p: { ref: <field> } }\` | the same, under any name |
| declared \`params: { p: id }\` | the record's own id, under another name than \`{id}\` |
| declared \`params: { day: { type: string, format: date } }\` | a value of its own shape |

\`\`\`yaml
endpoints:
  loan:
    list: {}                                             # GET /loans: every loan
    memberLoans: { operation: list, path: "/members/{memberId}/loans" }
    requestForMember: { operation: create, path: "/members/{memberId}/loans", request: [book, dueDate, notes] }
    memberLoan: { operation: read, path: "/members/{memberId}/loans/{id}" }
  preferences:                                           # owned: true, perOwner: one
    mine: { operation: read, path: /me/preferences, select: caller }
    replaceMine: { operation: replace, path: /me/preferences, select: caller }
\`\`\`

**A value of its own shape** (\`{day}\` declared \`{ type: string, format: date }\`): the segment is
read by its type, strictly (\`-?[0-9]+\` for integers, JSON numbers, \`true\`/\`false\`), and held to
the shape's constraints before anything else of the request is done; one that does not fit is
refused with \`validation-failed\` at \`/path/<name>\` (as a query parameter is at \`/query/<name>\`).
What the value means is the endpoint's business: a builder's handler reads it.

**Through a parent** (a nested collection): the parent must exist and be visible to the caller,
or every operation answers 404. A list holds the parent's children only (a filter on the ref
naming another parent matches nothing). A create sets the ref from the path; a body naming
another parent is refused with \`validation-failed\` at the ref's pointer — the strict reading:
path and body state one fact, and they disagree. (An agreeing body is fine.) Read, update,
replace, delete and transitions of a record whose ref names another parent are 404, and change
nothing; an update or replace may not move the record to another parent through the nested
path. The same records stay reachable at their plain paths (\`/loans/{id}\`) where those are
declared.

**Where a created record is**: a 201 that makes a record carries a \`Location\` (RFC 9110
§10.2.2) at the path of the record's read by id, the plain one first (\`/loans/{id}\`), else the
one through the fewest parents, filled from the record's refs (\`/members/7/loans/12\`); else its
singleton read (\`/me/preferences\`); else the path an update, replace or delete addresses it
at, else a GET action answering the record. Where no endpoint addresses the record, no
\`Location\` is sent: one made up from the plural would answer 404. The export declares the header where serve sends it, and the
tester reads the record there where the spec declares a read (\`<resource>.location\`).

**Singletons**: \`select: caller\` on a read, update or replace whose path has no id (\`/me\`)
addresses the calling principal's own record of an **owned** resource: no credentials is 401,
none yet is 404. \`perOwner: one\` on the resource allows each owner one record: a second create
is 409 \`already-exists\`, and a replace through the singleton creates the record when there is
none (201, RFC 9110 §9.3.4). Two creates racing for the same owner's first record are checked
one after the other, not in one transaction: both may succeed.

**Visibility through the parent**: \`visibility: { parent: <ref field> }\` on a resource makes a
record visible exactly where the record its ref names is: it is stored with its parent's owner
(the parent's resource must be owned), a caller may only name a parent it sees (422 at the ref
otherwise), and another principal neither reads, lists nor changes it (404).

**Routes that collide**: \`check\` reports two templates that are one path up to their
parameter names (\`endpoint-route-ambiguous\`, an error: OpenAPI forbids them) and a literal
segment where another endpoint of the same method has a parameter (\`/members/me\` beside
\`/members/{id}\`: \`endpoint-route-shadowed\`, a warning, since \`me\` can then never be an
id), unless the literal one is a declared singleton.`;

/** Hand-written sections that follow the generated tables of a part. */
const AFTER_PART: Partial<Record<PartName, string>> = {
  resources: DOMAIN_RULES,
  endpoints: `${endpointConventions()}\n\n${PATH_PARAMETERS}\n\n${ENDPOINT_IDS}\n\n${OPEN_SURFACE}`,
  limits: `${PAGE_SHAPES}\n\n${PROTOCOL_PROMISES}`,
  versioning: FOREIGN,
};

function renderSection(section: SchemaSection): string {
  const rows = section.rows.map((r) => [code(r.key), r.type, r.required ? 'yes' : 'no', r.description]);
  return document([
    `${anchor(section.anchor)}\n### ${section.heading}`,
    ...section.intro,
    rows.length ? table(['Key', 'Value', 'Required', 'Description'], rows) : undefined,
    ...section.outro,
  ]).trimEnd();
}

export interface FormatDoc {
  readonly text: string;
  /** What the schema leaves unsaid or unused: keys without a description, definitions nothing refers to. */
  readonly warnings: readonly string[];
}

export function renderFormatDoc(): FormatDoc {
  const schema = FORMAT_SCHEMA as unknown as SchemaNode;
  const properties = schema.properties as Readonly<Record<string, SchemaNode>>;
  const walker = new SchemaWalker();
  const partBlocks: string[] = [];
  for (const part of PARTS) {
    const node = properties[part.name];
    if (!node) throw new Error(`The format schema has no key for part '${part.name}'.`);
    const sections = walker.walk(part.name, node);
    partBlocks.push(document([
      `${anchor(`part-${part.name}`)}\n## ${part.number}. ${part.title}: ${code(part.name)}`,
      typeof node.description === 'string' ? node.description : undefined,
      `Written as ${walker.typeText(part.name, node)}.`,
      ...sections.map(renderSection),
      AFTER_PART[part.name],
    ]).trimEnd());
  }
  const partNames = new Set<string>(PARTS.map((p) => p.name));
  const topRows = Object.entries(properties).map(([key, node]) => [
    code(key),
    partNames.has(key) ? `part, see [${PARTS.find((p) => p.name === key)!.number}. ${key}](#part-${key})` : walker.typeText(key, node),
    (schema.required as readonly string[] | undefined)?.includes(key) ? 'yes' : 'no',
    typeof node.description === 'string' ? node.description : '',
  ]);
  for (const [key, node] of Object.entries(properties)) if (typeof node.description !== 'string') walker.undocumented.push(key);
  const text = document([
    '# The svcspec format',
    generatedNotice(['src/spec/format-schema.ts', 'src/load/normalize/endpoints.ts']),
    INTRO,
    `## A short example\n\n\`\`\`yaml\n${FORMAT_EXAMPLE.trimEnd()}\n\`\`\``,
    CONVENTIONS_OF_THE_FORMAT,
    `${anchor('document')}\n## The document\n\nThe top level of a spec is a map of these keys; \`svcspec\` comes first, then \`title\`, then the parts in order.\n\n${table(['Key', 'Value', 'Required', 'Description'], topRows)}`,
    ...partBlocks,
  ]);
  const declared = Object.keys(FORMAT_SCHEMA.definitions);
  const unreached = declared.filter((d) => !walker.defPaths.has(d));
  return {
    text,
    warnings: [
      ...walker.undocumented.map((path) => `format schema: '${path}' has no description.`),
      ...unreached.map((name) => `format schema: the definition '${name}' is not referred to, so it is not documented.`),
    ],
  };
}
