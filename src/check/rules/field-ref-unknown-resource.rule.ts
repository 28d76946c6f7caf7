import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, listOf } from './support.ts';

const unknown = defineDiagnostic({
  code: 'field-ref-unknown-resource',
  severity: 'error',
  part: 'resources',
  message: "Field '{field}' of '{resource}' refers to resource '{target}', which is not declared (resources: {resources}).{hint}",
  description: "A `ref` field's `resource` must name a resource of the spec, so that its values are ids of that resource's records. Correct the name, or declare the resource.",
});

export default defineRule({
  name: 'field-ref-unknown-resource',
  diagnostics: [unknown],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (shape.type !== 'ref' || shape.resource === undefined || ctx.index.resources.has(shape.resource)) return;
      ctx.report(unknown, {
        field: label, resource: resource.name, target: shape.resource, resources: listOf(ctx.index.resources.keys()), hint: didYouMean(shape.resource, ctx.index.resources.keys()),
      }, child(shape.pointer, 'resource'));
    });
  },
});
