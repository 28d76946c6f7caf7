import type { Spec } from '../../spec/model.ts';

/** Part 3: per stateful resource, its states, initial state and transitions. */
export function missingStates(spec: Spec): string[] {
  const missing: string[] = [];
  if (spec.states.length === 0) missing.push('any state machine');
  for (const m of spec.states) {
    if (m.states.length === 0) missing.push(`the states of '${m.resource}'`);
    if (!m.initial) missing.push(`the initial state of '${m.resource}'`);
    if (m.transitions.length === 0) missing.push(`the transitions of '${m.resource}'`);
  }
  return missing;
}
