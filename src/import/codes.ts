/**
 * What `svcspec import` reports: input it cannot read (errors), and everything of the
 * OpenAPI document the nine-part format cannot hold or that the document does not say
 * (warnings and notes). Part of the one catalog (src/check/catalog.ts), so
 * docs/diagnostics.md lists them. Each finding points into the OpenAPI document, at the
 * node it concerns. The import is the export's mirror: nothing is dropped without a
 * word, and nothing is supplied where the document is silent.
 */
import { defineDiagnostic } from '../spec/diagnostics.ts';

export const IMPORT_CODES = {
  // ---- the input ------------------------------------------------------------------------
  notOpenApi: defineDiagnostic({
    code: 'import-not-openapi', severity: 'error',
    message: "'{file}' is not an OpenAPI 3.0, 3.1 or 3.2 document: {reason}.",
    description: 'svcspec imports OpenAPI 3.0.x, 3.1.x and 3.2.x documents (YAML or JSON) whose top level has `openapi: 3.x.y`. A Swagger 2.0 document must be converted to OpenAPI 3 first.',
  }),
  invalid: defineDiagnostic({
    code: 'import-openapi-invalid', severity: 'error',
    message: "'{file}' is not a valid OpenAPI {version} document: {reason}.",
    description: 'The document breaks the OpenAPI specification (checked by @apidevtools/swagger-parser against the official schema, with every $ref resolved). Correct it first: an invalid document cannot be read faithfully.',
  }),
  openapi32: defineDiagnostic({
    code: 'import-openapi-32', severity: 'warning',
    message: 'The document uses {construct}, new in OpenAPI 3.2, which svcspec has no counterpart for: {done} ({count} in all).',
    description: 'OpenAPI 3.2 adds to 3.1 the QUERY method and other methods (`additionalOperations`), the whole query string as one parameter, streamed items (`itemSchema`), the device authorization flow, and annotations (`$self`, tag hierarchies, server names). The rest of a 3.2 document is 3.1, and is imported as such; each of these is taken out first and reported here.',
  }),
  partGap: defineDiagnostic({
    code: 'import-part-gap', severity: 'warning',
    message: 'Part {number}, {title}, is not in the OpenAPI document and is written as a gap: {why}.',
    description: 'OpenAPI has no place for this part (states, events, limits, versioning), or the document leaves it out. Nothing is supplied in its place: the imported spec shows the part empty, and `svcspec check` reports it until you write it.',
  }),
  requestMembersDropped: defineDiagnostic({
    code: 'import-request-members-dropped', severity: 'warning', part: 'endpoints',
    message: "The request body of {method} {path} takes {members}, which the records of '{resource}' do not hold; the write takes its other members, the fields of {resource}, and {they} not carried.",
    description: "A write's body that holds most of a record's fields and a few members its records never answer (an input's `tax_codes` beside an answer's `taxes`) is read as a write of the fields it shares, so the endpoint stays a create, update or replace the reference serves and the tester checks. The members the records do not hold are left out and named: a client of the reference cannot send them, and the tester never does.",
  }),
  notCarried: defineDiagnostic({
    code: 'import-not-carried', severity: 'info',
    message: "The document uses '{keyword}' ({count} in all); svcspec has no place for it, so it is not carried.",
    description: 'Annotations such as examples, XML names, titles, external documentation and `x-` extensions have no counterpart in the format. They do not change what the service accepts or answers.',
  }),

  carried: defineDiagnostic({
    code: 'import-carried', severity: 'info',
    message: "'{file}' was exported by svcspec: {parts} are read from its x-svcspec extensions, in the format's own words; the {format} description beside them is not read again.",
    description: 'An OpenAPI or AsyncAPI document written by `svcspec export` carries the spec it describes as `x-svcspec-<part>` extensions (src/spec/conventions/extensions.ts). The import reads them back whole, every version and part included, so import is the mirror of export; the rest of the document is a view of the same spec.',
  }),
  carriedInvalid: defineDiagnostic({
    code: 'import-carried-invalid', severity: 'error',
    message: 'The x-svcspec extensions of the document do not load as a spec: {reason}.',
    description: "The document carries svcspec's extensions, but what they hold breaks the format (edited by hand, or written by another version of svcspec). Correct the extension, or remove the `x-svcspec` mark to import the document as any OpenAPI document.",
  }),
  carriedExtra: defineDiagnostic({
    code: 'import-carried-extra', severity: 'warning', part: 'endpoints',
    message: "{count} operation(s) of the document, such as {example}, are not endpoints of the spec its x-svcspec extensions carry (added after the export?); they are not imported.",
    description: 'The spec is read from the extensions; an operation added to `paths` by hand after the export is not in them. Add it to the spec, or remove the `x-svcspec` mark to import the document as any OpenAPI document.',
  }),
  eventsNotAsyncApi: defineDiagnostic({
    code: 'import-events-source', severity: 'error', part: 'events',
    message: "'{file}' gives no events to merge: {reason}.",
    description: "`svcspec import --events <file>` merges part 6 from an AsyncAPI document svcspec exported (its `x-svcspec-events` extension). AsyncAPI does not say which operation or transition emits a message, the `on` of every event, so a document without the extension gives no catalog; none is invented.",
  }),

  // ---- 1. purpose ------------------------------------------------------------------------
  purposeUsers: defineDiagnostic({
    code: 'import-purpose-users', severity: 'warning', part: 'purpose',
    message: 'OpenAPI does not name the users of the service nor their tasks; purpose.users is left for you to write.',
    description: 'The purpose part says who uses the service and what for. An OpenAPI document has a title and a description, no users.',
  }),

  // ---- 2. resources ----------------------------------------------------------------------
  schemaNotResource: defineDiagnostic({
    code: 'import-schema-not-resource', severity: 'info', part: 'resources',
    message: "The schema '{schema}' is {what}; it is not a resource{use}.",
    description: 'A resource is an object schema of components.schemas. Other component schemas (arrays, strings, numbers) are written into the fields that reference them; schemas used only for error bodies become the error shape of part 7.',
  }),
  resourceId: defineDiagnostic({
    code: 'import-resource-id', severity: 'warning', part: 'resources',
    message: 'OpenAPI does not say which field identifies a record, nor who assigns it: the id of {resources} is left for you to write.',
    description: 'A resource\'s `id: {field, assigned}` says which field is the id and whether the service (uuid, sequence) or the client assigns it. OpenAPI has no such statement, so none is guessed.',
  }),
  recordEnvelope: defineDiagnostic({
    code: 'import-record-envelope', severity: 'info', part: 'resources',
    message: 'The records of \'{resource}\' are {how} \'{member}\' ({example}); it is written as the resource\'s envelope.',
    description: 'A body of one member holding the record (`{"article": {...}}`: RealWorld\'s API, Rails\' JSON root) is the record in an envelope: `resources.<r>.envelope` states it, serve wraps and unwraps it, the tester and the proxy expect it (src/spec/conventions/envelope.ts). Where every answer is wrapped and every request sends the record bare (Vultr, DigitalOcean), it is written `{ member, requests: bare }`.',
  }),
  recordEnvelopeMixed: defineDiagnostic({
    code: 'import-record-envelope-mixed', severity: 'warning', part: 'resources',
    message: 'The records of \'{resource}\' are sent or answered inside \'{member}\' by some operations and {other} by {method} {path}; a resource has one envelope in the format, so \'{member}\' is written, and that operation differs from the spec.',
    description: 'The format states one envelope a resource (`resources.<r>.envelope`), for every body that is the record. A document whose operations wrap the same record differently, or not at all, is written with the envelope most of them use.',
  }),
  resourceIdRead: defineDiagnostic({
    code: 'import-resource-id-read', severity: 'info', part: 'resources',
    message: "The id of '{resource}' is read from its field '{field}'{why}: {how}.",
    description: "OpenAPI does not name a record's id. A property named `id` is read as it, else the property its item paths name (`/special-events/{eventId}` and a property `eventId`): a read-only or optional one is assigned by the service (`sequence` when it is an integer, the format's only integer assignment by the service; `uuid` with format uuid; `service` otherwise), a writable required one by the client (unless the create's body leaves it out). Change `id:` where the reading is wrong.",
  }),
  embeddedRecord: defineDiagnostic({
    code: 'import-embedded-record', severity: 'info', part: 'resources',
    message: "Field '{field}' of '{resource}' holds a whole {target} ({ref}), not its id; it is written as a nested object with its fields. If the service takes only the id, write it as {type: ref, resource: {target}}.",
    description: "An OpenAPI `$ref` to an object schema puts the whole object in the body. A svcspec `ref` field holds only the id of another record, a different body, so the import keeps the object's shape.",
  }),
  requiredOptionalOnCreate: defineDiagnostic({
    code: 'import-required-optional-on-create', severity: 'info', part: 'resources',
    message: "{method} {path}, the create of '{resource}', takes {fields} without requiring {them}, though the record's schema marks {them} required; written optional (a client may leave them out, as the create's schema says).",
    description: "In svcspec, `required` means a client must send the field on create and replace. A record's schema often requires what every answer holds, while the create's own schema requires less: the create's word is the client's, so such a field is written optional, and the tester does not refuse a create without it.",
  }),
  fieldTypeSent: defineDiagnostic({
    code: 'import-field-type-sent', severity: 'warning', part: 'resources',
    message: "{method} {path}, the create of '{resource}', sends '{field}' as {sent}, where its records answer it as {answered}; written as {answered} (a field has one type), so a client sending {sent} is refused.",
    description: "The format gives a field one type, for what clients send and what the service answers. A document whose create takes a member as text and answers it as a number (a decimal sent as `\"20.0\"`) cannot be said: the answer's type is written, and the reference and the tester hold requests to it. State the field as the service takes it, or accept that such a create is refused.",
  }),
  nestedServiceSet: defineDiagnostic({
    code: 'import-nested-service-set', severity: 'info', part: 'resources',
    message: "{method} {path}, the create of '{resource}', does not send {members}, which its records answer: written read-only and optional (the service sets them).",
    description: "A record's schema often describes what the answers hold inside a field (Lago's customer metadata items carry a `lago_id`), while the create's body sends less (`key` and `value`). A member the create does not send is the service's to set: it is written `readOnly` and not `required` (in svcspec, `required` is what a client must send), so the reference neither requires nor takes it and the tester sends none. A member the records require and the create's body does not is written optional.",
  }),
  requiredNotSent: defineDiagnostic({
    code: 'import-required-not-sent', severity: 'info', part: 'resources',
    message: "{method} {path}, the create of '{resource}', does not take {fields}, which its schema marks required; written optional (the service's to set, not the client's to send).",
    description: "In svcspec, `required` means a client must send the field on create and replace. OpenAPI documents often share one schema between requests and responses, where `required` says the answer always holds the member (a `type` that is always the same word). A field the create's body leaves out cannot be the client's to send, so it is written optional; otherwise every record the create makes would break its resource.",
  }),
  schemaInexpressible: defineDiagnostic({
    code: 'import-schema-inexpressible', severity: 'warning', part: 'resources',
    message: '{subject} uses {keyword}, which svcspec cannot express; {done}.',
    description: 'The format describes a field by one type and its constraints. Alternatives (oneOf, anyOf), negation (not), several types, maps with free keys (additionalProperties) and conditional schemas have no counterpart; the import keeps what it can and says what it dropped.',
  }),
  fieldName: defineDiagnostic({
    code: 'import-field-name', severity: 'warning', part: 'resources',
    message: "The property '{name}' of {schema} is not a valid field name (a letter, _, $ or @, then letters, digits, _ or -); it is left out.",
    description: 'Field names are keys of the format and follow its naming rule, which takes the members real APIs write (`_links`, `@type`, `$type`). A property whose name breaks it (`1st`, `a.b`, `x y`) cannot be renamed, since the name is what travels in the body.',
  }),
  formatUnknown: defineDiagnostic({
    code: 'import-format-unknown', severity: 'warning', part: 'resources',
    message: "{subject} has the format '{format}', which svcspec does not validate; the format is left out.",
    description: 'svcspec knows the formats of ajv-formats (date-time, email, uuid, int64, ...). An unknown format would make `check` fail, and OpenAPI lets tools ignore it; describe the rule with a `pattern` if it matters.',
  }),
  nullableIgnored: defineDiagnostic({
    code: 'import-nullable-ignored', severity: 'info', part: 'resources',
    message: "{subject} says 'nullable: true', a keyword of OpenAPI 3.0 that a 3.1 document does not have; it is not applied.",
    description: "OpenAPI 3.1 schemas are JSON Schema 2020-12, where null is allowed by `type: [string, 'null']`. A 3.1 validator ignores `nullable`, so the import does too (the strict reading).",
  }),

  // ---- 4. endpoints ----------------------------------------------------------------------
  endpointNamed: defineDiagnostic({
    code: 'import-endpoint-named', severity: 'warning', part: 'endpoints',
    message: "{method} {path} is not a standard operation of '{resource}'; it is written as the action '{id}', its behaviour the document's own prose, which the reference service answers with 501 until a handler performs it.",
    description: 'The format names an endpoint by a standard operation (create, read, update, replace, delete, list on `/{plural}` and `/{plural}/{id}`), a transition of its states, or an action: a named operation whose behaviour is prose. OpenAPI does not say that an operation changes a state, so every other operation becomes an action, keeping its method, path and shapes; its behaviour is the summary and description of the document (or says it has none). Declare it as a transition where it moves a state.',
  }),
  endpointResource: defineDiagnostic({
    code: 'import-endpoint-resource', severity: 'warning', part: 'endpoints',
    message: '{method} {path} carries no record of a resource schema; it is filed under {how}.',
    description: 'The format keys endpoints by resource. An operation whose bodies name no resource is filed with the other operations of its path, or under the resource its path names, or else under a new resource named after its path, without fields.',
  }),
  listPage: defineDiagnostic({
    code: 'import-list-page', severity: 'warning', part: 'endpoints',
    message: '{method} {path} answers a bare JSON array of {resource}; svcspec answers lists with pages ({items, next}), so its response is written as a page.',
    description: 'A svcspec list endpoint answers `{"items": [...], "next": cursor}`. An OpenAPI array response has no page around it; the spec says page, and a service that keeps the bare array differs from it there.',
  }),
  successConvention: defineDiagnostic({
    code: 'import-success-convention', severity: 'warning', part: 'endpoints',
    message: "{method} {path} lists no successful response (only {statuses}); as the standard operation '{operation}' it answers as the format's convention says: {success}.",
    description: 'A standard operation has a success by the convention of the format (a delete answers 204, a read 200 with the record). A document that lists only its failures leaves the success unsaid; the convention fills it, and the finding says so, since an endpoint that never succeeds cannot be served nor tested.',
  }),
  actionOwnBody: defineDiagnostic({
    code: 'import-action-own-body', severity: 'info', part: 'endpoints',
    message: 'The {what} of {method} {path} ({shape}) is not a record of \'{resource}\' nor some of its fields; it is written as the action\'s own fields ({fields}).',
    description: 'An action (`operation: action`) may take and answer a body of its own shape (`request: {fields: …}`, `response: {fields: …}`): serve validates it, the tester and the proxy hold it, export describes it. A body an action carries that is no record of its resource is written so, rather than left out (which would make the reference refuse every body).',
  }),
  bodyInexpressible: defineDiagnostic({
    code: 'import-body-inexpressible', severity: 'warning', part: 'endpoints',
    message: 'The {what} of {method} {path} ({shape}) is not {expected}; svcspec cannot describe it, {done}.',
    description: 'A request body is nothing, the resource, or some of its fields; a response body is a record, a page, nothing or an error. Other bodies (files, forms, other schemas, maps) have no counterpart.',
  }),
  parameters: defineDiagnostic({
    code: 'import-parameters', severity: 'warning', part: 'endpoints',
    message: '{method} {path} takes parameters svcspec has no place for: {params}; they are left out.',
    description: 'An endpoint path has only `{id}`, the record id; query parameters are the format\'s own (pagination, sort, filters on fields), headers and cookies are the schemes\'. Other parameters are not carried.',
  }),
  responseDefault: defineDiagnostic({
    code: 'import-response-default', severity: 'warning', part: 'endpoints',
    message: "{method} {path} has a 'default' response, which names no status; it is left out{more}.",
    description: 'Endpoint responses are keyed by status. A `default` response stands for every status not listed, which the format cannot say; its error body still informs the error shape.',
  }),
  routeDuplicate: defineDiagnostic({
    code: 'import-route-duplicate', severity: 'warning', part: 'endpoints',
    message: "{method} {path} is the same HTTP route as {other} ({route}); a request cannot say which of them it means, so it is left out.",
    description: 'OpenAPI path keys may differ only by a fragment (`/files/{file_id}#get_shared_link`) or by the names of their parameters, yet reach the same route. A service answers one operation per method and route.',
  }),
  nestedUnbound: defineDiagnostic({
    code: 'import-nested-unbound', severity: 'info', part: 'endpoints',
    message: "{method} {path} reads as the {child} records of one {parent}, but '{child}' has no member holding {aParent}'s id ('{param}', or '{parent}_id' or '{parent}Id'); the format reaches a parent through such a ref, so the operation stays an action of its own.",
    description: 'A nested path (`/customers/{customer_id}/orders`) is read as the list or create of the child under its parent where the child holds the parent\'s id in a member (docs/import.md). A child that embeds its parent whole, or does not name it, gives the format nothing to bind the path to: add such a member to the spec to make it a nested collection.',
  }),
  nestedPath: defineDiagnostic({
    code: 'import-nested-path', severity: 'info', part: 'endpoints',
    message: "{method} {path} reaches the {child} records of one {parent}: it is written as a nested collection, and '{field}' of '{child}' as a ref to '{parent}' (it holds a {parent}'s id).",
    description: "The format reaches a parent through a ref field of the child (`/members/{memberId}/loans` binds a loan's `member`). A path `/<parents>/{p}/<children>` whose list or create carries the children is read so where the child's schema has the member holding the parent's id: the parameter's own name, or the parent's name with `_id` or `Id`. Its values must then name a parent that exists; the same records stay reachable at their plain paths.",
  }),
  pathFragment: defineDiagnostic({
    code: 'import-path-fragment', severity: 'info', part: 'endpoints',
    message: '{method} {path}: a client sends no fragment nor query in a path (RFC 3986 §3.4, §3.5), so the endpoint is written at {route}.',
    description: 'OpenAPI path keys may carry a fragment or a query (`/files/{file_id}#add_shared_link`) to tell apart operations that reach one route. The request a client sends has neither, so the endpoint\'s path is the route; a second operation on the same method and route is left out (import-route-duplicate).',
  }),
  methodUnsupported: defineDiagnostic({
    code: 'import-method-unsupported', severity: 'warning', part: 'endpoints',
    message: '{method} {path}: svcspec endpoints use GET, POST, PUT, PATCH or DELETE; this operation is left out.',
    description: 'HEAD, OPTIONS and TRACE are answered by the service itself (OPTIONS lists the methods); the format has no endpoints for them.',
  }),

  // ---- 5. authentication -----------------------------------------------------------------
  authScheme: defineDiagnostic({
    code: 'import-auth-scheme', severity: 'warning', part: 'authentication',
    message: "The security scheme '{scheme}' ({kind}) has no counterpart in svcspec; it is left out.",
    description: 'The format has API keys in a header or the query, bearer tokens, HTTP basic, and OAuth 2.0 client credentials with a token endpoint under {base_url}. Cookies, other HTTP schemes, other OAuth 2.0 flows, OpenID Connect discovery and mutual TLS are not among them.',
  }),
  authPrefix: defineDiagnostic({
    code: 'import-auth-prefix', severity: 'info', part: 'authentication',
    message: "Scheme '{scheme}' is an API key in the Authorization header whose description names a prefix, '{prefix}': it is written as a token sent as `Authorization: {prefix} <token>`.",
    description: 'Documents describe `Authorization: Token <token>` (Django REST framework, RealWorld) as an API key in the Authorization header, the prefix in prose. The format states it as a bearer scheme with `prefix: Token`, which serve reads, `credentials create` issues and export describes (an HTTP scheme named Token). Check the word where the description is ambiguous.',
  }),
  authBearer: defineDiagnostic({
    code: 'import-auth-bearer', severity: 'warning', part: 'authentication',
    message: "The bearer scheme '{scheme}' does not say what its tokens are (no bearerFormat); it is written as opaque tokens, the format's reading of a token the client does not look into. Write tokens: jwt if they are JWTs.",
    description: 'A svcspec bearer scheme says `tokens: opaque` or `tokens: jwt`, and the format requires one. OpenAPI\'s bearerFormat is optional; `JWT` reads as jwt, its absence as opaque, which this finding points out.',
  }),
  authJwtKeys: defineDiagnostic({
    code: 'import-auth-jwt-keys', severity: 'warning', part: 'authentication',
    message: "The bearer scheme '{scheme}' takes JWTs, and OpenAPI has no place for the keys that verify them: the spec cannot be served until its `jwt` says where they are (`jwksUrl` or `jwksFile`).",
    description: 'A JWT bearer scheme is verified against the keys of the identity provider that signs its tokens. OpenAPI names the token format (bearerFormat: JWT) but not the keys, so the import cannot give them; `check` reports the scheme (auth-jwt-keys-missing) and `serve` refuses the spec until they are set.',
  }),
  authUndeclared: defineDiagnostic({
    code: 'import-auth-undeclared', severity: 'warning', part: 'authentication',
    message: "{count} operation(s), such as {example}, name the security scheme '{scheme}', which components.securitySchemes does not declare; an operation that names only such schemes is written as needing a credential of any scheme of part 5.",
    description: 'A security requirement names a scheme by its key in components.securitySchemes. A name that is not there is a slip of the document (a scheme renamed or removed): what it asks for cannot be known, so the import keeps only that a credential is needed. Declare the scheme in the document, or correct the requirement.',
  }),
  authSchemes: defineDiagnostic({
    code: 'import-auth-schemes', severity: 'warning', part: 'authentication',
    message: '{count} operation(s), such as {example}, accept only {schemes}; svcspec accepts any scheme of part 5 on every endpoint that needs a credential.',
    description: 'OpenAPI names the schemes each operation accepts; in svcspec every declared scheme is accepted wherever a credential is needed, and endpoints differ only in their scopes and in being public.',
  }),
  authScopes: defineDiagnostic({
    code: 'import-auth-scopes', severity: 'warning', part: 'authentication',
    message: '{operation} accepts alternatives that ask for different scopes ({alternatives}); svcspec gives an endpoint one set, so it asks only for the scopes every alternative asks for: {scopes}.',
    description: 'Each OpenAPI security alternative has its own scopes. The format has one list of scopes per endpoint for every scheme; the import keeps the scopes common to all alternatives, so no caller that OpenAPI admits is refused.',
  }),
  authCombined: defineDiagnostic({
    code: 'import-auth-combined', severity: 'warning', part: 'authentication',
    message: '{operation} requires {schemes} together in one request; svcspec accepts one credential per request, so any one of them is accepted.',
    description: 'An OpenAPI security requirement with several schemes means all of them at once. The format has no such combination.',
  }),

  // ---- 7. errors -------------------------------------------------------------------------
  errorShape: defineDiagnostic({
    code: 'import-error-shape', severity: 'warning', part: 'errors',
    message: 'The error bodies ({schema}) have no member svcspec recognises (a code, a title, a detail, a status); the error shape is left out.',
    description: 'The format\'s error shape names the members of an error body (RFC 9457 problem details with a `code` member, or a custom body), one at least. Members are recognised by their names: code, errorCode, error_code or error; title, message or msg; detail, details, description or error_description; status, statusCode or status_code. A body with none of them is not read as an error shape.',
  }),
  errorNoCode: defineDiagnostic({
    code: 'import-error-no-code', severity: 'warning', part: 'errors',
    message: 'The error bodies ({schema}) have no member for an error code; the shape is written with the members they have ({members}), and without codes the tester and the proxy judge errors by their status and shape.',
    description: 'RFC 9457 problem details need no `code` member (the problem `type` names the problem), and many services send none. The format\'s custom shape may leave the code out; the catalog then stays empty, and an error is held to its status and members.',
  }),
  errorNested: defineDiagnostic({
    code: 'import-error-nested', severity: 'warning', part: 'errors',
    message: "The error bodies ({schema}) hold the error one level down, in '{member}' ({found}); the format's error shape names members at the top of the body, so it is left out.",
    description: 'Some APIs wrap their error (`{"error": {"code": 404, "message": "…"}}`, Ory, Google JSON style). The format\'s error shape names the members of the body itself, so such a body is not written as the shape; part 7 stays a gap, and the tester holds implementations to no error shape there.',
  }),
  errorShapes: defineDiagnostic({
    code: 'import-error-shapes', severity: 'warning', part: 'errors',
    message: 'Error responses use {count} body schemas ({schemas}); svcspec has one error shape, read from {how}, {schema}.',
    description: 'Every error of a svcspec service has the same body shape. An OpenAPI document may give each error its own.',
  }),
  errorMembers: defineDiagnostic({
    code: 'import-error-members', severity: 'info', part: 'errors',
    message: 'Error bodies ({schema}) are read by their member names: {members}.',
    description: 'Which member carries the code, the title and the rest is recognised by name, not stated by OpenAPI; the finding shows the reading so it can be corrected.',
  }),
  errorCodes: defineDiagnostic({
    code: 'import-error-codes', severity: 'warning', part: 'errors',
    message: 'OpenAPI gives error statuses ({statuses}), not error codes; the errors catalog is left empty for you to fill.',
    description: 'A catalog entry is a code (what the body carries), a status and a title. OpenAPI documents responses by status only, so no code is guessed; the endpoints keep their error statuses.',
  }),

  // ---- 8. limits -------------------------------------------------------------------------
  pagingRead: defineDiagnostic({
    code: 'import-paging-read', severity: 'info', part: 'limits',
    message: "The lists page by {style} ('{position}', size '{size}', default {defaultSize}, at most {maxSize}, a larger size refused as the parameter's schema does): written as limits.pagination, the only limit the document states.",
    description: "OpenAPI has no pagination statement, but list operations name their paging parameters: a cursor (`cursor`, `starting_after`, `after`, `page_token`, `marker`), an offset (`offset`, `skip`) or a page number (`page`), and a size (`limit`, `per_page`, `page_size`, `max_results`). With the size parameter's schema giving a default and a maximum, the format's pagination is stated from them; a size above the maximum breaks that schema, so it is refused (`overMax: reject`).",
  }),
  pagingSizes: defineDiagnostic({
    code: 'import-paging-sizes', severity: 'warning', part: 'limits',
    message: "{where} pages by {style} ('{position}'), but {missing}; {done}.",
    description: "The sizes of `limits.pagination` (`defaultSize`, `maxSize`, `overMax`) are read from the size parameter's schema (`default`, `maximum`), never from its prose. Where the schema does not give them, the pagination is written with its style, parameters and page body and without them: `check` says the part is partial, the reference service pages by its documented safety bound, and the tester holds no implementation to it. A list taking no size parameter at all leaves the pagination unstated: the format names one, and none is invented.",
  }),
  pagingNextNeverNull: defineDiagnostic({
    code: 'import-paging-next-never-null', severity: 'info', part: 'limits',
    message: "{where} types its page's '{member}' without null, so its last page holds some other value there (Vultr's \"\"); the format's last page holds null, which the reference answers, and an empty next is read as the last page.",
    description: 'A page says where the next one starts; on the last page the format writes null. Some documents type the member as a text that is never null, the last page holding the empty text. The tester and the proxy read an empty next position as the last page (an empty position addresses no page), so such a service passes; the reference service still ends its pages with null, which the document\'s schema does not allow.',
  }),
  pagingBody: defineDiagnostic({
    code: 'import-paging-body', severity: 'warning', part: 'limits',
    message: "{where} answers its records in an envelope, {envelope}; the format states a page body only with the pagination, which is unstated, so svcspec's own page ({items, next}) is written.",
    description: '`limits.pagination.body` names the members of a page (`{items: data, next: next_page_token, total: total_count}`), but it is part of the pagination, which names a size parameter (import-paging-sizes). Where the lists take none, the pagination is left unstated, and the spec says svcspec\'s own page.',
  }),
  pagingUnsayable: defineDiagnostic({
    code: 'import-paging-unsayable', severity: 'warning', part: 'limits',
    message: '{where} {what}; {why}, so it is not carried.',
    description: "The format states one pagination for the whole service: one style (cursor, offset or page), one name for the position and for the size parameter, forward paging only. Lists that page otherwise (a second style, other parameter names, a backward cursor such as Stripe's `ending_before`) are reported, not approximated.",
  }),
} as const;
