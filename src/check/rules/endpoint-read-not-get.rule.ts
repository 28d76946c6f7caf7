import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const notGet = defineDiagnostic({
  code: 'endpoint-read-not-get',
  severity: 'warning',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' only reads ({operation}) but uses {method}; reads are GET.",
  description: 'read and list change nothing, and GET says so (RFC 9110, section 9.2.1): it can be cached and retried safely. Another method hides that from clients and intermediaries. Use GET (or leave `method` out).',
});

export default defineRule({
  name: 'endpoint-read-not-get',
  diagnostics: [notGet],
  endpoint(endpoint, ctx) {
    if ((endpoint.operation === 'read' || endpoint.operation === 'list') && endpoint.method !== 'GET') {
      ctx.report(notGet, { endpoint: endpoint.id, operation: endpoint.operation, method: endpoint.method }, child(endpoint.pointer, 'method'));
    }
  },
});
