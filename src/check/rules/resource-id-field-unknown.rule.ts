import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const unknown = defineDiagnostic({
  code: 'resource-id-field-unknown',
  severity: 'error',
  part: 'resources',
  message: "The id of '{resource}' is field '{field}', which is not one of its fields ({fields}).{hint}",
  description: '`id.field` must name a top-level field of the resource: the one that holds the record id. Correct the name, or add the field.',
});

export default defineRule({
  name: 'resource-id-field-unknown',
  diagnostics: [unknown],
  resource(resource, ctx) {
    if (!resource.id) return;
    const fields = ctx.index.fields.get(resource.name);
    if (!fields || fields.has(resource.id.field)) return;
    ctx.report(unknown, {
      resource: resource.name, field: resource.id.field, fields: listOf(fields.keys()), hint: didYouMean(resource.id.field, fields.keys()),
    }, child(resource.id.pointer, 'field'));
  },
});
