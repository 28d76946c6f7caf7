import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { listOf, stateNames } from './support.ts';

const unknown = defineDiagnostic({
  code: 'state-initial-unknown',
  severity: 'error',
  part: 'states',
  message: "The initial state of '{resource}' is '{initial}', which is not one of its states ({states}).{hint}",
  description: '`initial` must name one of the states (the enum of the state field, or the `states` list). Correct the name, or add the state.',
});

export default defineRule({
  name: 'state-initial-unknown',
  diagnostics: [unknown],
  stateMachine(machine, ctx) {
    // With no states at all, state-list-empty says what is wrong.
    if (machine.initial === '' || machine.states.length === 0 || stateNames(machine).has(machine.initial)) return;
    ctx.report(unknown, {
      resource: machine.resource, initial: machine.initial, states: listOf(machine.states), hint: didYouMean(machine.initial, machine.states),
    }, child(machine.pointer, 'initial'));
  },
});
