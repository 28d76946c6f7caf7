import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const missing = defineDiagnostic({
  code: 'state-initial-missing',
  severity: 'error',
  part: 'states',
  message: "The states of '{resource}' do not say which state a new record starts in (states: {states}).",
  description: 'A state machine needs `initial`: the state a record has when it is created. Without it a builder cannot set the state on create. Add `initial: <state>`.',
});

export default defineRule({
  name: 'state-initial-missing',
  diagnostics: [missing],
  stateMachine(machine, ctx) {
    if (machine.initial === '') ctx.report(missing, { resource: machine.resource, states: listOf(machine.states) }, machine.pointer, { key: true });
  },
});
