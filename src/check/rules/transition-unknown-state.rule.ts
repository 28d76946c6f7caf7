import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unknownState = defineDiagnostic({
  code: 'transition-unknown-state',
  severity: 'error',
  part: 'states',
  message: "Transition '{transition}' of '{resource}' {direction} '{state}', which is not a state of '{resource}' ({states}).{hint}",
  description: "A transition's `from` and `to` must name states of its resource: the values of the state field's enum, or the explicit `states` list.",
});

export default defineRule({
  name: 'transition-unknown-state',
  diagnostics: [unknownState],
  transition(t, machine, ctx) {
    const states = new Set(machine.states);
    const report = (state: string, direction: string, pointer: string) => {
      if (states.has(state)) return;
      ctx.report(unknownState, { transition: t.name, resource: machine.resource, direction, state, states: machine.states.join(', ') || 'none declared', hint: didYouMean(state, states) }, pointer);
    };
    t.from.forEach((state) => report(state, 'starts from', child(t.pointer, 'from')));
    report(t.to, 'goes to', child(t.pointer, 'to'));
  },
});
