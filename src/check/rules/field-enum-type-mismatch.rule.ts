import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, show, TYPE_WORDS, valueFits } from './support.ts';

const mismatch = defineDiagnostic({
  code: 'field-enum-type-mismatch',
  severity: 'error',
  part: 'resources',
  message: "The enum of field '{field}' of '{resource}' allows {value}, which is not {type}, the field's type.",
  description: 'Every value of an `enum` must be of the field\'s type (`null` only when the field is `nullable`); a value of another type can never be sent. In YAML, quote values that look like numbers or booleans (`"1"`, `"yes"`) on text fields.',
});

export default defineRule({
  name: 'field-enum-type-mismatch',
  diagnostics: [mismatch],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      shape.enum?.forEach((value, i) => {
        if (valueFits(shape.type, value) || (value === null && shape.nullable)) return;
        ctx.report(mismatch, { field: label, resource: resource.name, value: show(value), type: TYPE_WORDS[shape.type] }, child(shape.pointer, 'enum', i));
      });
    });
  },
});
