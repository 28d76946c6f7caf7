/** The normalized Spec, part 4. endpoints (src/spec/model.ts gathers the parts). */
import type { Field, Shape } from './resources.ts';
import type { WriteRules } from './rules.ts';
import type { PageBody } from './limits.ts';

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
  /**
   * A query parameter the list does not declare: refused (the default); ignored, the page served
   * as without it; or either, as the service chooses (an OpenAPI document states neither, the
   * reading `import` writes). The reference ignores it under `either`.
   */
  readonly undeclared: 'refuse' | 'ignore' | 'either';
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
  /** The name export gives the operation (OpenAPI's operationId); `id` where none is stated. Import keeps the document's. */
  readonly operationId?: string;
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
  /** A list's own page body, in place of `limits.pagination.body` (check refuses it on other operations). */
  readonly page?: PageBody;
  readonly pointer: string;
}
