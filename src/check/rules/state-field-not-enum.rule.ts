import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const open = defineDiagnostic({
  code: 'state-field-not-enum',
  severity: 'warning',
  part: 'states',
  message: "The state field '{field}' of '{resource}' has no enum, so the field itself does not limit its values to the states ({states}).",
  description: "With only a `states` list, the field's own shape accepts any value: documents and schemas generated from the resource do not show the states. Give the field `enum: [...]` with the states and drop the `states` list.",
});

export default defineRule({
  name: 'state-field-not-enum',
  diagnostics: [open],
  stateMachine(machine, ctx) {
    const field = ctx.index.fields.get(machine.resource)?.get(machine.field);
    if (field && !field.enum && machine.states.length > 0) ctx.report(open, { resource: machine.resource, field: field.name, states: listOf(machine.states) }, field.pointer, { key: true });
  },
});
