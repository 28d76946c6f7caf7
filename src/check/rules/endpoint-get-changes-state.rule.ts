import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unsafe = defineDiagnostic({
  code: 'endpoint-get-changes-state',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' changes records ({operation}) but uses GET, which must be safe.",
  description: 'GET is a safe method (RFC 9110, section 9.2.1): caches, crawlers and prefetchers send it freely, expecting nothing to change. create, update, replace, delete and transitions change records; use POST, PATCH, PUT or DELETE (or leave `method` out for the conventional one).',
});

export default defineRule({
  name: 'endpoint-get-changes-state',
  diagnostics: [unsafe],
  endpoint(endpoint, ctx) {
    // An action may be safe (preview-price): its prose says; a GET one is taken at its word.
    if (endpoint.method !== 'GET' || endpoint.operation === 'read' || endpoint.operation === 'list' || endpoint.operation === 'action') return;
    ctx.report(unsafe, { endpoint: endpoint.id, operation: endpoint.transition ? `transition '${endpoint.transition}'` : endpoint.operation }, child(endpoint.pointer, 'method'));
  },
});
