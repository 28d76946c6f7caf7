import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const undeclared = defineDiagnostic({
  code: 'endpoint-error-undeclared',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' may answer with error '{code}', which is not in the errors catalog.{hint}",
  description: "An endpoint's `errors` name codes of the errors catalog (part 7), which gives each its status and title. Correct the code, or add it to the catalog.",
});

export default defineRule({
  name: 'endpoint-error-undeclared',
  diagnostics: [undeclared],
  endpoint(endpoint, ctx) {
    if (!given(ctx, 'errors')) return;
    endpoint.errors.forEach((code, i) => {
      if (!ctx.index.errors.has(code)) ctx.report(undeclared, { endpoint: endpoint.id, code, hint: didYouMean(code, ctx.index.errors.keys()) }, child(endpoint.pointer, 'errors', i));
    });
  },
});
