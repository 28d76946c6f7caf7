import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, FORMAT_NAMES } from './support.ts';

const unknown = defineDiagnostic({
  code: 'field-format-unknown',
  severity: 'error',
  part: 'resources',
  message: "Field '{field}' of '{resource}' has the format '{format}', which is not a known format.{hint}",
  description: `A \`format\` must be one the service validates: ${FORMAT_NAMES.join(', ')} (the formats of ajv-formats). An unknown format would not be checked at all. Correct the name, or describe the rule with a \`pattern\`.`,
});

const KNOWN: ReadonlySet<string> = new Set(FORMAT_NAMES);

export default defineRule({
  name: 'field-format-unknown',
  diagnostics: [unknown],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (shape.format === undefined || KNOWN.has(shape.format)) return;
      ctx.report(unknown, { field: label, resource: resource.name, format: shape.format, hint: didYouMean(shape.format, FORMAT_NAMES) }, child(shape.pointer, 'format'));
    });
  },
});
