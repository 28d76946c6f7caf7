import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { stateNames } from './support.ts';

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
    // With no states at all, state-list-empty says so once; every transition would repeat it.
    if (machine.states.length === 0) return;
    const states = stateNames(machine);
    const report = (state: string, direction: string, pointer: string) => {
      if (states.has(state)) return;
      ctx.report(unknownState, { transition: t.name, resource: machine.resource, direction, state, states: machine.states.join(', '), hint: didYouMean(state, states) }, pointer);
    };
    // `from` is a single state or a list; point at the item when it is a list.
    const fromPointer = child(t.pointer, 'from');
    const fromIsList = ctx.spec.source.has(child(fromPointer, 0));
    t.from.forEach((state, i) => report(state, 'starts from', fromIsList ? child(fromPointer, i) : fromPointer));
    report(t.to, 'goes to', child(t.pointer, 'to'));
  },
});
