import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, show } from './support.ts';

const duplicate = defineDiagnostic({
  code: 'field-enum-duplicate',
  severity: 'warning',
  part: 'resources',
  message: "The enum of field '{field}' of '{resource}' lists {value} more than once.",
  description: 'An `enum` is a set of allowed values; a repeated value adds nothing and often hides a typo in a value that was meant. Remove the repetition.',
});

export default defineRule({
  name: 'field-enum-duplicate',
  diagnostics: [duplicate],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      const seen = new Set<string>();
      shape.enum?.forEach((value, i) => {
        const key = JSON.stringify(value);
        if (!seen.has(key)) seen.add(key);
        else ctx.report(duplicate, { field: label, resource: resource.name, value: show(value) }, child(shape.pointer, 'enum', i));
      });
    });
  },
});
