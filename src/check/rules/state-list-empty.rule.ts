import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const empty = defineDiagnostic({
  code: 'state-list-empty',
  severity: 'error',
  part: 'states',
  message: "'{resource}' has no states: its state field '{field}' has no enum and no `states` list is given.",
  description: 'The states of a resource are the `enum` of its state field, or an explicit `states` list. Add `enum: [...]` to the field (preferred: requests and documents then know the values too).',
});

export default defineRule({
  name: 'state-list-empty',
  diagnostics: [empty],
  stateMachine(machine, ctx) {
    if (machine.states.length > 0) return;
    const field = ctx.index.fields.get(machine.resource)?.get(machine.field);
    if (field) ctx.report(empty, { resource: machine.resource, field: field.name }, field.pointer, { key: true });
  },
});
