/**
 * A finding of the proxy: one exchange (or a run of them) that breaks a rule of the spec,
 * with the rule's place (file:line:column through the loaded spec's source) and the
 * exchange that showed it. Findings are values; the proxy prints, records and reports them.
 */
import type { Exchange } from '../conformance/http.ts';
import type { Location, Spec } from '../spec/model.ts';
import type { PartName } from '../spec/parts.ts';

export interface Finding {
  /** The exchange's number in the proxy's traffic, 1-based. */
  readonly seq: number;
  readonly part: PartName;
  /** What kind of breach: `status-undeclared`, `state-illegal-transition`, `owner-leak`, … (docs list them). */
  readonly id: string;
  /** The endpoint it was met on (`loan.approve`), when the request is one. */
  readonly endpoint?: string;
  readonly message: string;
  /** The rule of the spec broken: its pointer, where it stands, what it says. */
  readonly rule: { readonly pointer: string; readonly location?: Location; readonly text: string };
  readonly exchange: Exchange;
}

/** A request the spec does not allow: what the service must answer (a situation of src/spec/http-errors.ts), and why. */
export interface RequestProblem {
  readonly part: PartName;
  readonly id: string;
  readonly situation: import('../spec/http-errors.ts').Situation;
  readonly message: string;
  readonly pointer: string;
  readonly text: string;
  /** The JSON pointer in the request the violation is at (validation errors list it). */
  readonly at?: string;
}

/** Where a pointer of the spec stands; undefined where the source cannot say. */
export function locate(spec: Spec, pointer: string): Location | undefined {
  try {
    return spec.source.locate(pointer);
  } catch {
    return undefined;
  }
}
