/** The normalized Spec, part 7. errors (src/spec/model.ts gathers the parts). */

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
