import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const missing = defineDiagnostic({
  code: 'state-field-missing',
  severity: 'error',
  part: 'states',
  message: "The states of '{resource}' do not say which field holds the state.",
  description: "A state machine needs `field`: the resource's field that holds the current state (usually `status`). Without it a builder cannot store the state nor a client read it. Add `field: <name>`.",
});

export default defineRule({
  name: 'state-field-missing',
  diagnostics: [missing],
  stateMachine(machine, ctx) {
    if (machine.field === '') ctx.report(missing, { resource: machine.resource }, machine.pointer, { key: true });
  },
});
