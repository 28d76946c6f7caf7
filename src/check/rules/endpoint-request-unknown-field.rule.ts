import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { written } from './support.ts';

const unknown = defineDiagnostic({
  code: 'endpoint-request-unknown-field',
  severity: 'error',
  part: 'endpoints',
  message: "The request of endpoint '{endpoint}' lists field '{field}', which is not a field of '{resource}'.{hint}",
  description: "An endpoint's `request` list names the fields its body carries; each must be a top-level field of the resource. Correct the name, or add the field.",
});

export default defineRule({
  name: 'endpoint-request-unknown-field',
  diagnostics: [unknown],
  endpoint(endpoint, ctx) {
    const fields = ctx.index.fields.get(endpoint.resource);
    const pointer = child(endpoint.pointer, 'request');
    // A transition's request taken from its `requires` is checked where it is written (transition-requires-unknown-field).
    if (!fields || endpoint.request.kind !== 'fields' || !written(ctx, pointer)) return;
    endpoint.request.fields.forEach((name, i) => {
      if (!fields.has(name)) ctx.report(unknown, { endpoint: endpoint.id, field: name, resource: endpoint.resource, hint: didYouMean(name, fields.keys()) }, child(pointer, i));
    });
  },
});
