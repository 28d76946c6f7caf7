import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { given, written } from './support.ts';

const undeclared = defineDiagnostic({
  code: 'endpoint-error-status-undeclared',
  severity: 'warning',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' answers {status} with an error body, but no code of the errors catalog has status {status}.",
  description: 'An error response carries a code from the errors catalog; a status for which the catalog has no code leaves a builder without one to send. Add a catalog entry with that status, or correct the status.',
});

export default defineRule({
  name: 'endpoint-error-status-undeclared',
  diagnostics: [undeclared],
  endpoint(endpoint, ctx) {
    const responses = child(endpoint.pointer, 'responses');
    if (!given(ctx, 'errors') || !written(ctx, responses)) return;
    for (const response of endpoint.responses) {
      if (response.body === 'error' && !ctx.index.errorStatuses.has(response.status)) {
        ctx.report(undeclared, { endpoint: endpoint.id, status: response.status }, child(responses, String(response.status)), { key: true });
      }
    }
  },
});
