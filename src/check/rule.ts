/**
 * The shape of every check rule: one file per rule (`src/check/rules/*.rule.ts`), each
 * declaring the diagnostics it may report and visitor functions. The checker walks the
 * model once and calls every rule's visitors on each node (TypeSpec's linter, Spectral's
 * lesson about rules that each walk the whole document).
 */
import type { DiagnosticDef } from '../spec/diagnostics.ts';
import type {
  AuthRule, AuthScheme, Endpoint, ErrorCode, EventDef, Field, Resource, Spec, StateMachine, Transition, Version,
} from '../spec/model.ts';
import type { PartName } from '../spec/parts.ts';
import type { SpecIndex } from './spec-index.ts';

export interface RuleContext {
  readonly spec: Spec;
  readonly index: SpecIndex;
  /**
   * Reports a finding at the value (or, with `key: true`, the key) of a pointer; with
   * `offset`, at that character of a text value (inside a CEL expression). `part`: the part
   * the finding concerns where a code is reported in several (a guard of a resource, of a
   * transition, of an action).
   */
  report(def: DiagnosticDef, params: Readonly<Record<string, unknown>>, pointer: string, options?: { key?: boolean; offset?: number; part?: PartName }): void;
}

export interface Rule {
  /** A short name for the rule; it may report several codes. */
  readonly name: string;
  /** Every diagnostic the rule may report: they enter the catalog. */
  readonly diagnostics: readonly DiagnosticDef[];
  spec?(ctx: RuleContext): void;
  resource?(resource: Resource, ctx: RuleContext): void;
  /** Every field, nested ones included; `parents` are the enclosing object fields, outermost first. */
  field?(field: Field, resource: Resource, ctx: RuleContext, parents: readonly Field[]): void;
  stateMachine?(machine: StateMachine, ctx: RuleContext): void;
  transition?(transition: Transition, machine: StateMachine, ctx: RuleContext): void;
  endpoint?(endpoint: Endpoint, ctx: RuleContext): void;
  scheme?(scheme: AuthScheme, ctx: RuleContext): void;
  authRule?(rule: AuthRule, ctx: RuleContext): void;
  event?(event: EventDef, ctx: RuleContext): void;
  errorCode?(error: ErrorCode, ctx: RuleContext): void;
  version?(version: Version, ctx: RuleContext): void;
}

export function defineRule(rule: Rule): Rule {
  return rule;
}
