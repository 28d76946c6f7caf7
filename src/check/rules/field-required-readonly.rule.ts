import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, isField } from './support.ts';

const contradiction = defineDiagnostic({
  code: 'field-required-readonly',
  severity: 'error',
  part: 'resources',
  message: "Field '{field}' of '{resource}' is both required and readOnly: clients must send it, yet a client that sends it is refused.",
  description: '`required` means a client must send the field on create and replace; `readOnly` means the service sets it and refuses it from clients. Keep one: drop `required` from a field the service sets.',
});

export default defineRule({
  name: 'field-required-readonly',
  diagnostics: [contradiction],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (isField(shape) && shape.required && shape.readOnly) ctx.report(contradiction, { field: label, resource: resource.name }, child(shape.pointer, 'required'));
    });
  },
});
