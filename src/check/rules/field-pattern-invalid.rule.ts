import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel } from './support.ts';
import { patternProblem as problem } from '../../spec/pattern.ts';

const invalid = defineDiagnostic({
  code: 'field-pattern-invalid',
  severity: 'error',
  part: 'resources',
  message: "The pattern of field '{field}' of '{resource}' is not a valid regular expression: {reason}.",
  description: "`pattern` is an ECMA-262 regular expression, compiled with the `u` (Unicode) flag as JSON Schema validators do; under that flag, escapes of ordinary characters (`\\-` outside a class, `\\a`) and lone braces are errors. Correct the expression; in YAML, write it in single quotes so backslashes stay as they are.",
});

export default defineRule({
  name: 'field-pattern-invalid',
  diagnostics: [invalid],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (shape.pattern === undefined) return;
      const reason = problem(shape.pattern);
      if (reason) ctx.report(invalid, { field: label, resource: resource.name, reason }, child(shape.pointer, 'pattern'));
    });
  },
});
