import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const writable = defineDiagnostic({
  code: 'state-field-writable',
  severity: 'warning',
  part: 'states',
  message: "The state field '{field}' of '{resource}' is not readOnly, as if clients could set it; states change only through transitions.",
  description: 'The service moves a record between states only through its transitions and refuses a state sent on create or update. Mark the state field `readOnly: true` so documents and request schemas say so.',
});

export default defineRule({
  name: 'state-field-writable',
  diagnostics: [writable],
  stateMachine(machine, ctx) {
    const field = ctx.index.fields.get(machine.resource)?.get(machine.field);
    if (field && !field.readOnly) ctx.report(writable, { resource: machine.resource, field: field.name }, field.pointer, { key: true });
  },
});
