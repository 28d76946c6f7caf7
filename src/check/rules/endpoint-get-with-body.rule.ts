import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { writtenOr } from './support.ts';

const body = defineDiagnostic({
  code: 'endpoint-get-with-body',
  severity: 'warning',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' uses {method} but expects a request body.",
  description: 'Content in a GET or DELETE request has no generally defined meaning (RFC 9110, sections 9.3.1 and 9.3.5): proxies and client libraries may drop it. Use `request: none`, or a method that carries a body (POST, PUT, PATCH).',
});

export default defineRule({
  name: 'endpoint-get-with-body',
  diagnostics: [body],
  endpoint(endpoint, ctx) {
    if (endpoint.method !== 'GET' && endpoint.method !== 'DELETE') return;
    if (endpoint.request.kind === 'none' || (endpoint.request.kind === 'fields' && endpoint.request.fields.length === 0)) return;
    ctx.report(body, { endpoint: endpoint.id, method: endpoint.method }, writtenOr(ctx, child(endpoint.pointer, 'request'), endpoint.pointer));
  },
});
