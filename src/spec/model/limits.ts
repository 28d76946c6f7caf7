/** The normalized Spec, part 8. limits (src/spec/model.ts gathers the parts). */

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
    /**
     * The page sizes, each undefined where the spec leaves it unsaid (a document that names its
     * page parameters and not their values: the part is partial, and the runtime's safety bound
     * stands in, src/spec/conventions/pagination.ts pageSettings).
     */
    readonly defaultSize?: number;
    /** Infinity where the spec states `maxSize: none`. */
    readonly maxSize?: number;
    readonly overMax?: 'clamp' | 'reject';
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
