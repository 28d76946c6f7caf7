/** The normalized Spec, part 3. states (src/spec/model.ts gathers the parts). */
import type { WriteRules } from './rules.ts';

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
