/** The normalized Spec, part domain rules (resources, transitions and actions use them) (src/spec/model.ts gathers the parts). */

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
