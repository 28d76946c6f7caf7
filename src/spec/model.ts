/**
 * The normalized Spec: the one model every stage reads (check, doc, serve, test, export).
 * Nothing downstream re-parses the source file. Every object keeps the JSON pointer of
 * the node it came from, so a finding about it can name file:line:column through
 * `spec.source.locate(pointer)`.
 *
 * "No values are supplied where none are given": optional members stay undefined when
 * the spec is silent. Conventions of the format itself (the path of a short-form
 * endpoint, say) are documented in docs/format.md and are not domain values.
 *
 * Each part's types live in a file of its own, src/spec/model/<part>.ts (the domain rules,
 * which resources, transitions and actions share, in rules.ts); this file gathers them.
 */
import type { PartName } from './parts.ts';
import type { Authentication } from './model/authentication.ts';
import type { Endpoint } from './model/endpoints.ts';
import type { Errors } from './model/errors.ts';
import type { Events } from './model/events.ts';
import type { Limits } from './model/limits.ts';
import type { Purpose } from './model/purpose.ts';
import type { Resource } from './model/resources.ts';
import type { StateMachine } from './model/states.ts';
import type { Versioning } from './model/versioning.ts';

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

export * from './model/purpose.ts';
export * from './model/resources.ts';
export * from './model/rules.ts';
export * from './model/states.ts';
export * from './model/endpoints.ts';
export * from './model/authentication.ts';
export * from './model/events.ts';
export * from './model/errors.ts';
export * from './model/limits.ts';
export * from './model/versioning.ts';

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
