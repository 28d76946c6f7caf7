import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const unknown = defineDiagnostic({
  code: 'state-field-unknown',
  severity: 'error',
  part: 'states',
  message: "The state of '{resource}' is held in field '{field}', which is not one of its fields ({fields}).{hint}",
  description: "`field` must name a top-level field of the resource; its values are the states. Correct the name, or add the field (usually `status: {type: string, enum: [...], readOnly: true}`).",
});

export default defineRule({
  name: 'state-field-unknown',
  diagnostics: [unknown],
  stateMachine(machine, ctx) {
    const fields = ctx.index.fields.get(machine.resource);
    if (!fields || machine.field === '' || fields.has(machine.field)) return;
    ctx.report(unknown, {
      resource: machine.resource, field: machine.field, fields: listOf(fields.keys()), hint: didYouMean(machine.field, fields.keys()),
    }, child(machine.pointer, 'field'));
  },
});
