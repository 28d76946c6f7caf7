import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const empty = defineDiagnostic({
  code: 'resource-without-fields',
  severity: 'warning',
  part: 'resources',
  message: "Resource '{resource}' has no fields, so nothing says what its records hold.",
  description: 'A resource without `fields` leaves a builder nothing to store and a tester nothing to check. List its fields with their types.',
});

export default defineRule({
  name: 'resource-without-fields',
  diagnostics: [empty],
  resource(resource, ctx) {
    if (resource.fields.length === 0) ctx.report(empty, { resource: resource.name }, resource.pointer, { key: true });
  },
});
