import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const none = defineDiagnostic({
  code: 'endpoint-no-success-response',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' lists no successful (2xx) response, so it never succeeds (responses: {statuses}).",
  description: 'Written `responses` replace the conventional ones, so they must include the success: 201 for create, 204 for delete, 200 otherwise. Add it.',
});

export default defineRule({
  name: 'endpoint-no-success-response',
  diagnostics: [none],
  endpoint(endpoint, ctx) {
    if (endpoint.responses.some((r) => r.status >= 200 && r.status < 300)) return;
    ctx.report(none, { endpoint: endpoint.id, statuses: endpoint.responses.map((r) => r.status).join(', ') }, child(endpoint.pointer, 'responses'));
  },
});
