import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel } from './support.ts';

const missing = defineDiagnostic({
  code: 'field-array-without-items',
  severity: 'warning',
  part: 'resources',
  message: "Field '{field}' of '{resource}' is a list but does not say what its items are.",
  description: 'Without `items`, any value is accepted in the list and a builder cannot know what to store or return. Add `items: {type: ...}` (or `items: string`).',
});

export default defineRule({
  name: 'field-array-without-items',
  diagnostics: [missing],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (shape.type === 'array' && !shape.items) ctx.report(missing, { field: label, resource: resource.name }, shape.pointer);
    });
  },
});
