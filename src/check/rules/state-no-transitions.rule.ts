import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const none = defineDiagnostic({
  code: 'state-no-transitions',
  severity: 'warning',
  part: 'states',
  message: "The states of '{resource}' have no transitions, so a record never leaves its initial state.",
  description: 'A state machine without `transitions` is a constant. Add the transitions (`approve: {from: requested, to: active}`), or drop the state machine.',
});

export default defineRule({
  name: 'state-no-transitions',
  diagnostics: [none],
  stateMachine(machine, ctx) {
    if (machine.transitions.length === 0) ctx.report(none, { resource: machine.resource }, machine.pointer, { key: true });
  },
});
