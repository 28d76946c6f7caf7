/** The normalized Spec, part 2. resources (src/spec/model.ts gathers the parts). */
import type { ManagedSource, RecordRule, RefDeletion, UniqueRule, WriteRules } from './rules.ts';

/** `any`: any JSON value, what JSON Schema writes as `{}` (a property with no type: a bag of metadata, traits). */
export const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'ref', 'any'] as const;
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
  readonly unknownFields: 'refuse' | 'keep' | 'ignore';
  /**
   * Members the service sets itself, sent by a client: refused (the default), dropped, or
   * either of the two, the implementation's choice (JSON Schema's readOnly: "expected to be
   * ignored or rejected"); the reference drops them under `either`.
   */
  readonly readOnlyFields: 'refuse' | 'ignore' | 'either';
  /**
   * The member a record is sent and answered inside (`{"article": {…}}`, RealWorld's and Rails'
   * JSON root); absent: the record is the body. Where it applies: src/spec/conventions/envelope.ts.
   */
  readonly envelope?: string;
  /** `bare`: the requests send the record bare, only the answers wrap it in `envelope` (Vultr's `{"instance": {…}}` answers). */
  readonly envelopeRequests?: 'bare';
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
