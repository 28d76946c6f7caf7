import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, isField } from './support.ts';

const contradiction = defineDiagnostic({
  code: 'field-readonly-writeonly',
  severity: 'error',
  part: 'resources',
  message: "Field '{field}' of '{resource}' is both readOnly and writeOnly: clients may not send it and are never shown it.",
  description: '`readOnly` fields are set by the service and refused from clients; `writeOnly` fields are accepted from clients and never returned. A field that is both can never be seen or set. Keep the one you mean.',
});

export default defineRule({
  name: 'field-readonly-writeonly',
  diagnostics: [contradiction],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (isField(shape) && shape.readOnly && shape.writeOnly) ctx.report(contradiction, { field: label, resource: resource.name }, child(shape.pointer, 'writeOnly'));
    });
  },
});
