/**
 * The normalized Spec: the one model every stage reads (check, doc, serve, test, export).
 * Nothing downstream re-parses the source file. Every object keeps the JSON pointer of
 * the node it came from, so a finding about it can name file:line:column through
 * `spec.source.locate(pointer)`.
 *
 * "No values are supplied where none are given": optional members stay undefined when
 * the spec is silent. Conventions of the format itself (the path of a short-form
 * endpoint, say) are documented in docs/format.md and are not domain values.
 */
import type { PartName } from './parts.ts';

export interface Location {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly endLine?: number;
  readonly endColumn?: number;
}

export interface SpecSource {
  readonly file: string;
  readonly kind: 'yaml' | 'json' | 'markdown';
  /** Where the value at a JSON pointer stands; the nearest ancestor's place when it has none. */
  locate(pointer: string): Location;
  /** Where the key of the member at a pointer stands (for "unknown key" findings). */
  locateKey(pointer: string): Location;
  /**
   * Where the character at `offset` of the text value at a pointer stands: inside its
   * quotes, on its line of a block scalar (a finding inside a CEL expression). Absent, or
   * the value's own place, where the source cannot be followed.
   */
  locateWithin?(pointer: string, offset: number): Location;
  /** Whether the source document itself has a node at the pointer (as opposed to a value filled by a convention). */
  has(pointer: string): boolean;
}

/** How a part was stated: with content, explicitly as not applicable, or not at all (a gap). */
export type PartStatement = 'given' | 'none' | 'gap';

export interface PartState {
  readonly name: PartName;
  readonly statement: PartStatement;
  /** The reason given with `none`, or the prose that says "not shown". */
  readonly reason?: string;
  /** Prose of the Markdown section, kept for the document and the round trip. */
  readonly prose?: string;
  readonly pointer: string;
}

// ---- 1. purpose -------------------------------------------------------------

export interface User {
  readonly name: string;
  readonly description?: string;
  readonly tasks: readonly string[];
  readonly pointer: string;
}

export interface Purpose {
  readonly name?: string;
  readonly summary?: string;
  readonly users: readonly User[];
}

// ---- 2. resources -----------------------------------------------------------

export const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'ref'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** uuid: a random UUID; sequence: 1, 2, 3…; client: sent on create; service: an opaque text the service chooses. */
export const ID_ASSIGNMENTS = ['uuid', 'sequence', 'client', 'service'] as const;
export type IdAssignment = (typeof ID_ASSIGNMENTS)[number];

/** The value constraints a field (or an array's items) may declare. */
export interface Shape {
  readonly type: FieldType;
  readonly format?: string;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  /** For `ref`: the resource whose id this value holds. */
  readonly resource?: string;
  /** For `array`. */
  readonly items?: Shape;
  /** For `object`. */
  readonly properties?: readonly Field[];
  readonly nullable?: boolean;
  readonly pointer: string;
}

export interface Field extends Shape {
  readonly name: string;
  /** Set by the service itself, from this source (src/spec/domain.ts); absent: the client's, or nothing. */
  readonly managed?: ManagedSource;
  /** For a ref: what deleting the record it points to does to this record. Absent: the spec is silent (nothing is done). */
  readonly onDelete?: RefDeletion;
  readonly description?: string;
  readonly required: boolean;
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  readonly default?: unknown;
  readonly hasDefault: boolean;
  /** Version name from which the field exists (inclusive). */
  readonly since?: string;
  /** Last version name in which the field exists (inclusive). */
  readonly until?: string;
}

export interface Resource {
  readonly name: string;
  /** Path segment and collection name. */
  readonly plural: string;
  readonly description?: string;
  readonly id?: { readonly field: string; readonly assigned: IdAssignment; readonly pointer: string };
  /** Records belong to the principal that created them (object-level authorization). */
  readonly owned: boolean;
  /** Members the fields do not declare: refused (the default), or kept as sent (an open record). */
  readonly unknownFields: 'refuse' | 'keep';
  /** Members the service sets itself, sent by a client: refused (the default), or dropped. */
  readonly readOnlyFields: 'refuse' | 'ignore';
  /** `one`: an owned resource of which each owner has at most one record (a singleton, `/me`). */
  readonly perOwner?: 'one';
  /**
   * `parent`: a record is visible to whoever may see the record its ref field `field`
   * points to (the parent's owner, when the parent resource is owned).
   */
  readonly visibility?: { readonly follows: 'parent'; readonly field: string; readonly pointer: string };
  readonly fields: readonly Field[];
  /** Values no two records share (unique indexes in the store). */
  readonly unique: readonly UniqueRule[];
  /** Conditions every record must meet, in CEL, each bound to an error. */
  readonly rules: readonly RecordRule[];
  /** Guards and effects of every create of this resource (any endpoint that creates one). */
  readonly onCreate?: WriteRules;
  /** Guards and effects of every update of a record by a client (update, replace, bulk update). */
  readonly onUpdate?: WriteRules;
  /** Guards and effects of every delete of a record of this resource. */
  readonly onDelete?: WriteRules;
  readonly pointer: string;
}

// ---- domain rules (resources, transitions and actions use them) -------------

/** A CEL expression (https://cel.dev) as written, with its place. */
export interface Expr {
  readonly source: string;
  readonly pointer: string;
}

/**
 * Where a managed field's value comes from:
 *   created-at / updated-at   the time of the create / of every write (a date-time, or a date)
 *   created-by / updated-by   the id of the principal who created / last changed the record
 *   sequence                  a counter of the field's own, formatted: `LIB-{n:8}` is LIB-00000042
 *   expr                      a CEL expression over the record, on create or on every write
 */
export type ManagedSource =
  | { readonly kind: 'created-at' | 'updated-at' | 'created-by' | 'updated-by'; readonly pointer: string }
  | { readonly kind: 'sequence'; readonly template: string; readonly pointer: string }
  | { readonly kind: 'expr'; readonly expr: Expr; readonly on: 'create' | 'write'; readonly pointer: string };

/** What deleting a referenced record does to the records that refer to it through this field. */
export type RefDeletion =
  | { readonly kind: 'refuse'; readonly error: string; readonly pointer: string }
  | { readonly kind: 'cascade'; readonly pointer: string }
  | { readonly kind: 'nullify'; readonly pointer: string };

export interface UniqueRule {
  /** `email`, or the fields joined with `+` (`member+book`), unless named. */
  readonly name: string;
  readonly fields: readonly string[];
  /** Only among records whose fields hold one of these values. */
  readonly where: readonly { readonly field: string; readonly values: readonly (string | number | boolean)[] }[];
  readonly ignoreCase: boolean;
  /** The catalog code answered when a write would break it. */
  readonly error: string;
  readonly pointer: string;
}

/** A condition a record must meet (after every write), bound to an error. */
export interface RecordRule {
  readonly expr: Expr;
  readonly error: string;
  readonly message?: string;
  /** The field a violation points at (`/end`); the record itself when absent. */
  readonly field?: string;
  readonly pointer: string;
}

/** A condition a write must meet before it is made, bound to an error. */
export interface Guard {
  readonly expr: Expr;
  readonly error: string;
  readonly message?: string;
  /** An array field whose items are each checked (`item`, `itemRefs`). */
  readonly each?: string;
  readonly pointer: string;
}

/** A number of related records a guard may read (`count.openLoans`). */
export interface CountDef {
  readonly name: string;
  readonly resource: string;
  /** Each condition: the field equals an expression's value, or is one of literal values. */
  readonly where: readonly ({ readonly field: string; readonly expr: Expr } | { readonly field: string; readonly values: readonly (string | number | boolean | null)[] })[];
  readonly pointer: string;
}

/** What a write also changes: fields of the record itself, or of the record a ref field points to. */
export interface Effect {
  /** A ref field of the record: the effect changes the record it points to. Absent: the record itself. */
  readonly ref?: string;
  readonly set: readonly { readonly field: string; readonly expr: Expr }[];
  readonly increment: readonly { readonly field: string; readonly by: number; readonly pointer: string }[];
  readonly pointer: string;
}

/** The guards and effects of a write (a create, a delete, a transition, an action). */
export interface WriteRules {
  readonly counts: readonly CountDef[];
  readonly guards: readonly Guard[];
  readonly effects: readonly Effect[];
  readonly pointer: string;
}

// ---- 3. states --------------------------------------------------------------

export interface Transition {
  readonly name: string;
  readonly from: readonly string[];
  readonly to: string;
  /** Fields the request of this transition must carry. */
  readonly requires: readonly string[];
  readonly description?: string;
  /** Its guards and effects. */
  readonly rules?: WriteRules;
  readonly pointer: string;
}

export interface StateMachine {
  readonly resource: string;
  /** The field that holds the state. */
  readonly field: string;
  readonly states: readonly string[];
  readonly initial: string;
  readonly transitions: readonly Transition[];
  readonly pointer: string;
}

// ---- 4. endpoints -----------------------------------------------------------

export const STANDARD_OPERATIONS = ['create', 'read', 'update', 'replace', 'delete', 'list'] as const;
export type StandardOperation = (typeof STANDARD_OPERATIONS)[number];
/**
 * What an endpoint does: a standard operation, a transition, an `action` (a named operation
 * that is not a state change, its behaviour stated in prose), or a bulk write
 * (`bulk-create`, `bulk-update`, `bulk-delete`: many records in one all-or-nothing request).
 */
export type Operation = StandardOperation | 'transition' | 'action' | BulkOperation;
export const BULK_OPERATIONS = ['bulk-create', 'bulk-update', 'bulk-delete'] as const;
export type BulkOperation = (typeof BULK_OPERATIONS)[number];
/** The values of an explicit entry's `operation:` member besides transition names. */
export const NAMED_OPERATIONS = [...STANDARD_OPERATIONS, 'action', ...BULK_OPERATIONS] as const;

export function isBulk(operation: string): operation is BulkOperation {
  return (BULK_OPERATIONS as readonly string[]).includes(operation);
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** What a request body carries. */
export type RequestShape =
  | { readonly kind: 'none' }
  /** The writable fields; `partial` when none is required (update). */
  | { readonly kind: 'resource'; readonly partial: boolean }
  /** Only the named fields (a transition's requirements, or an explicit list). */
  | { readonly kind: 'fields'; readonly fields: readonly string[] }
  /** An action's body of its own: `{ fields: { name: <field def> } }`. */
  | { readonly kind: 'shape'; readonly fields: readonly Field[] };

/** `shape`: an action's response of its own; `items`: a bulk write's `{ items: [records] }`. */
export type ResponseBody = 'resource' | 'page' | 'none' | 'error' | 'shape' | 'items';

/** An action (operation: action): not a state change; what it does is prose. */
export interface ActionDef {
  /** On one record (its path binds the record's id) or on the collection. */
  readonly target: 'record' | 'collection';
  /** What it answers with: the record, nothing, or a shape of its own. */
  readonly response: { readonly kind: 'resource' } | { readonly kind: 'none' } | { readonly kind: 'shape'; readonly fields: readonly Field[] };
  /** What it does, in prose: the reference cannot perform it (501) unless a builder supplies a handler or it states effects. */
  readonly behaviour?: string;
  /** Guards and effects: a record action that states effects is performed by the reference. */
  readonly rules?: WriteRules;
}

/** A bulk write (operation: bulk-create, bulk-update, bulk-delete). */
export interface BulkDef {
  /** The most items one request may carry; check errors while it is absent. */
  readonly max?: number;
}

/** Expansion of ref fields on a read or list endpoint (`?expand=book,member`). */
export interface ExpandDef {
  /** The ref fields a caller may expand. */
  readonly fields: readonly string[];
  /** How deep expansion goes: 1 embeds the referenced records, 2 also theirs. */
  readonly depth: number;
  readonly pointer: string;
}

export interface EndpointResponse {
  readonly status: number;
  readonly body: ResponseBody;
  readonly description?: string;
}

export interface EndpointAuth {
  readonly public: boolean;
  /** Names of the schemes that are accepted (any one of them). */
  readonly schemes: readonly string[];
  readonly scopes: readonly string[];
}

export type QueryStyle = 'brackets' | 'colon' | 'suffix';

export const FILTER_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'prefix', 'contains', 'exists'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** What a list accepts in its query when it says (src/spec/conventions/query.ts spells it). */
export interface ListQueryDecl {
  readonly filters: readonly { readonly field: string; readonly ops: readonly FilterOperator[]; readonly pointer: string }[];
  /** Fields a client may sort by. */
  readonly sort: readonly string[];
  readonly style: QueryStyle;
  /** A full-text parameter over text fields. */
  readonly search?: { readonly param: string; readonly fields: readonly string[]; readonly pointer: string };
  readonly pointer: string;
}

/**
 * What a path parameter stands for (src/spec/conventions/paths.ts):
 *   id       the record's own id (`{id}`)
 *   parent   the id of the record the resource's ref field `field` points to (`{memberId}`)
 *   value    a value of its own shape (`{day}` with `type: string, format: date`)
 *   unbound  nothing the model knows (check reports it: endpoint-path-param-unbound)
 */
export type ParamBinding =
  | { readonly kind: 'id' }
  | { readonly kind: 'parent'; readonly field: string; readonly resource: string }
  | { readonly kind: 'value'; readonly shape: Shape }
  | { readonly kind: 'unbound'; readonly ref?: string };

export interface PathParam {
  readonly name: string;
  readonly binding: ParamBinding;
  /** Declared under `params:` (true) or bound by the convention (false). */
  readonly declared: boolean;
  readonly pointer: string;
}

export interface Endpoint {
  /** `resource.name`: the key of the entry (the operation, or a transition, in the short form). */
  readonly id: string;
  /** The key of the entry; the operation itself unless `operation:` says otherwise. */
  readonly name: string;
  readonly resource: string;
  readonly operation: Operation;
  readonly transition?: string;
  readonly method: HttpMethod;
  /** Path template relative to {base_url}, e.g. `/loans/{id}/approve`. */
  readonly path: string;
  /** The template's parameters in path order, each with what it binds. */
  readonly params: readonly PathParam[];
  /** Names declared under `params:` that the path does not have (check reports them). */
  readonly strayParams?: readonly string[];
  /** `caller`: the one record of the calling principal, addressed without an id (a singleton, `/me`). */
  readonly select?: 'caller';
  readonly summary?: string;
  readonly request: RequestShape;
  readonly responses: readonly EndpointResponse[];
  /** Error codes this endpoint declares it may answer with. */
  readonly errors: readonly string[];
  /** A list's declared query; undefined for the convention (every scalar field, equality and sort). */
  readonly query?: ListQueryDecl;
  /** Undefined while authentication is a gap. */
  readonly auth?: EndpointAuth;
  /** Written out in the spec (true) or expanded from the short form (false). */
  readonly explicit: boolean;
  /** For an action. */
  readonly action?: ActionDef;
  /** For a bulk write. */
  readonly bulk?: BulkDef;
  /** For a read or list endpoint that declares expandable refs. */
  readonly expand?: ExpandDef;
  readonly pointer: string;
}

// ---- 5. authentication ------------------------------------------------------

interface SchemeBase {
  readonly name: string;
  readonly description?: string;
  readonly pointer: string;
}

export type AuthScheme =
  | (SchemeBase & { readonly type: 'apiKey'; readonly in: 'header' | 'query'; readonly param: string })
  | (SchemeBase & {
      readonly type: 'bearer';
      readonly tokens: 'opaque' | 'jwt';
      readonly jwt?: {
        readonly issuer?: string;
        readonly audience?: string;
        readonly algorithms: readonly string[];
        readonly jwksUrl?: string;
        readonly jwksFile?: string;
        readonly scopesClaim?: string;
      };
    })
  | (SchemeBase & { readonly type: 'basic' })
  | (SchemeBase & { readonly type: 'oauth2'; readonly flow: 'clientCredentials'; readonly tokenPath: string; readonly tokenTtlMs?: number });

export interface Scope {
  readonly name: string;
  readonly description?: string;
  readonly pointer: string;
}

export interface AuthRule {
  /** An endpoint id or a pattern `resource.*`. */
  readonly match: string;
  readonly public: boolean;
  readonly scopes: readonly string[];
  readonly pointer: string;
}

export interface Authentication {
  readonly schemes: readonly AuthScheme[];
  /** How a client obtains credentials. */
  readonly obtain?: string;
  readonly scopes: readonly Scope[];
  /** Scopes every non-public endpoint needs unless a rule says otherwise. */
  readonly defaultScopes: readonly string[];
  readonly rules: readonly AuthRule[];
}

// ---- 6. events --------------------------------------------------------------

export type TriggerAction = 'created' | 'updated' | 'deleted' | 'transition';

export interface EventDef {
  readonly name: string;
  readonly description?: string;
  /** `on: loan.approve` read as resource `loan`, action `transition`, transition `approve`. */
  readonly trigger: { readonly on: string; readonly resource: string; readonly action: TriggerAction; readonly transition?: string; readonly pointer: string };
  /** The whole resource, or only the named fields of it. */
  readonly payload: { readonly kind: 'resource' } | { readonly kind: 'fields'; readonly fields: readonly string[] };
  readonly since?: string;
  readonly until?: string;
  readonly pointer: string;
}

export interface RetryPolicy {
  readonly attempts: number;
  readonly backoff: 'exponential' | 'fixed';
  readonly initialDelayMs: number;
  readonly maxDelayMs?: number;
  readonly pointer: string;
}

export interface Events {
  readonly webhooks?: {
    /** Subscriptions managed through the API, or configured out of band by the operator. */
    readonly subscriptions: 'api' | 'config';
    readonly path?: string;
    readonly signing: 'standard-webhooks' | 'none';
    readonly cloudEvents: boolean;
    readonly timeoutMs?: number;
    readonly pointer: string;
  };
  readonly stream?: { readonly path: string; readonly heartbeatMs?: number; readonly pointer: string };
  readonly retry?: RetryPolicy;
  readonly catalog: readonly EventDef[];
}

// ---- 7. errors --------------------------------------------------------------

/** Names of the error body's members, keyed by their role. */
export interface ErrorMembers {
  /** Absent in a custom shape that carries no code (a body of one message, say). */
  readonly code?: string;
  /** Absent in a custom shape that carries no short message. */
  readonly title?: string;
  readonly status?: string;
  readonly detail?: string;
  /** The list of field violations on a validation error. */
  readonly errors?: string;
  readonly type?: string;
  readonly instance?: string;
}

export interface ErrorShape {
  /** RFC 9457 problem details with a `code` member, or a custom JSON body. */
  readonly kind: 'problem' | 'custom';
  readonly mediaType: string;
  readonly members: ErrorMembers;
  readonly pointer: string;
}

export interface ErrorCode {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly when?: string;
  /**
   * The runtime situations (src/spec/http-errors.ts) this code answers, stated with `for:`
   * (one or a list) or by its name: `not-found: { status: 404, for: [not-found, method-not-allowed] }`
   * answers an undeclared method as not found, as services that send no 405 do.
   */
  readonly situations: readonly string[];
  /** `implementation`: raised by the implementation alone (prose, a handler), bound to no rule or situation. */
  readonly raisedBy?: 'implementation';
  readonly pointer: string;
}

export interface Errors {
  /** Undefined while the part is a gap. */
  readonly shape?: ErrorShape;
  readonly catalog: readonly ErrorCode[];
}

// ---- 8. limits --------------------------------------------------------------

export interface RateLimit {
  readonly limit: number;
  readonly windowMs: number;
  /** Counted per credential (principal) or per client address; overrides inherit it. */
  readonly scope: 'credential' | 'address';
  readonly pointer: string;
}

/** The validators a record's representation carries (RFC 9110 §8.8): a strong ETag, Last-Modified. */
export const VALIDATORS = ['etag', 'last-modified'] as const;
export type Validator = (typeof VALIDATORS)[number];

/**
 * Conditional requests as the spec promises them (`limits.conditional`, RFC 9110 §13): which
 * validators every record answer carries, whether a write to a record honours a precondition
 * (If-Match, If-Unmodified-Since: 412 when it fails) and a read a conditional GET
 * (If-None-Match, If-Modified-Since: 304 when the client's copy is current).
 */
export interface ConditionalRequests {
  readonly validators: readonly Validator[];
  readonly writes: boolean;
  readonly reads: boolean;
  readonly pointer: string;
}

/**
 * Idempotency keys as the spec promises them (`limits.idempotency`,
 * draft-ietf-httpapi-idempotency-key-header): the request header, how long a key is
 * remembered, and whose keys are one namespace. A POST repeated with the same key gets the
 * first answer again; the same key with another request is refused (idempotency-key-reused).
 */
export interface IdempotencyKeys {
  readonly header: string;
  readonly lifetimeMs: number;
  /** Keys are one namespace per credential (principal) or per client address. */
  readonly scope: 'credential' | 'address';
  readonly pointer: string;
}

/** The link relations a page carries in `Link` (RFC 8288 §3). */
export const PAGE_LINKS = ['next'] as const;
export type PageLink = (typeof PAGE_LINKS)[number];

/** The response fields that tell a client its quota: the IETF RateLimit and RateLimit-Policy, or none. */
export type RateHeaders = 'ratelimit' | 'none';

/** The body of a list page: a bare array, or an object with the records in one member. */
export type PageBody =
  | { readonly kind: 'array' }
  | { readonly kind: 'object'; readonly items: string; readonly next?: string; readonly total?: string; readonly offset?: string };

/** A limit stated as absent, with the reason given. */
export interface NoneStatement {
  readonly reason: string;
  readonly pointer: string;
}

export interface Limits {
  readonly rate?: RateLimit & {
    readonly overrides: readonly (RateLimit & { readonly endpoint: string })[];
    /** The fields announcing the quota; undefined where the spec is silent (src/spec/conventions/promises.ts). */
    readonly headers?: RateHeaders;
  };
  readonly body?: { readonly maxBytes: number; readonly pointer: string };
  readonly fields?: { readonly maxStringLength?: number; readonly maxArrayItems?: number; readonly pointer: string };
  readonly timeouts?: { readonly requestMs: number; readonly status: 503 | 504; readonly pointer: string };
  /**
   * Limits the spec states the service does not have (`rate: { none: "…" }`): a statement,
   * not a gap, so such a part can be complete; the runtime then applies no such limit.
   */
  readonly none?: { readonly rate?: NoneStatement; readonly timeouts?: NoneStatement; readonly conditional?: NoneStatement; readonly idempotency?: NoneStatement };
  /** Undefined where the spec is silent (the runtime default applies, listed by check). */
  readonly conditional?: ConditionalRequests;
  /** Undefined where the spec is silent (the runtime default applies, listed by check). */
  readonly idempotency?: IdempotencyKeys;
  readonly pagination?: {
    readonly style: 'cursor' | 'offset' | 'page';
    readonly defaultSize: number;
    /** Infinity where the spec states `maxSize: none`. */
    readonly maxSize: number;
    readonly overMax: 'clamp' | 'reject';
    readonly sizeParam: string;
    /** `cursor`, `offset` or `page` after the style, unless renamed. */
    readonly positionParam: string;
    /** `sort` unless renamed. */
    readonly sortParam: string;
    /** The body of a page (src/spec/conventions/pagination.ts has the default of each style). */
    readonly body: PageBody;
    /** A request without the position parameter: the first page, or every record as a bare array. */
    readonly unpaged: 'first-page' | 'all';
    /** The relations each page links in `Link`; undefined where the spec is silent. */
    readonly links?: readonly PageLink[];
    readonly pointer: string;
  };
}

// ---- 9. versioning ----------------------------------------------------------

export interface Version {
  readonly name: string;
  readonly status: 'current' | 'deprecated' | 'retired';
  readonly released?: string;
  readonly deprecated?: string;
  readonly sunset?: string;
  /** Documentation of the version, linked from a deprecated version's responses. */
  readonly docs?: string;
  readonly pointer: string;
}

export interface Versioning {
  /** How a client selects a version. Undefined while the part is a gap. */
  readonly select?:
    | { readonly by: 'header'; readonly name: string }
    | { readonly by: 'query'; readonly name: string }
    | { readonly by: 'path'; readonly prefix: string };
  readonly default?: string;
  readonly versions: readonly Version[];
  readonly pointer: string;
}

// ---- the whole ----------------------------------------------------------------

export interface Spec {
  /** The `svcspec` format version the document declares. */
  readonly formatVersion?: string;
  readonly title?: string;
  readonly source: SpecSource;
  readonly parts: Readonly<Record<PartName, PartState>>;
  readonly purpose: Purpose;
  readonly resources: readonly Resource[];
  readonly states: readonly StateMachine[];
  readonly endpoints: readonly Endpoint[];
  readonly authentication: Authentication;
  readonly events: Events;
  readonly errors: Errors;
  readonly limits: Limits;
  readonly versioning: Versioning;
}
