import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, isField, show } from './support.ts';

const unused = defineDiagnostic({
  code: 'field-required-with-default',
  severity: 'warning',
  part: 'resources',
  message: "Field '{field}' of '{resource}' is required and has the default {value}, which never applies: a client must always send the field.",
  description: 'A default is applied when a client omits the field on create; a required field cannot be omitted. Drop `required` if the default is meant, or drop the default.',
});

export default defineRule({
  name: 'field-required-with-default',
  diagnostics: [unused],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (isField(shape) && shape.required && shape.hasDefault) ctx.report(unused, { field: label, resource: resource.name, value: show(shape.default) }, child(shape.pointer, 'default'));
    });
  },
});
