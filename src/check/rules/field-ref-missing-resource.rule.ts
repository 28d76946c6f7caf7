import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel } from './support.ts';

const missing = defineDiagnostic({
  code: 'field-ref-missing-resource',
  severity: 'error',
  part: 'resources',
  message: "Field '{field}' of '{resource}' is a ref but does not say which resource it refers to.",
  description: 'A `ref` field holds the id of a record of another resource. Without `resource` a builder cannot know what the value points at, nor check that it exists. Add `resource: <name>` to the field (or to the `items` of an array of refs).',
});

export default defineRule({
  name: 'field-ref-missing-resource',
  diagnostics: [missing],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (shape.type === 'ref' && shape.resource === undefined) ctx.report(missing, { field: label, resource: resource.name }, shape.pointer);
    });
  },
});
