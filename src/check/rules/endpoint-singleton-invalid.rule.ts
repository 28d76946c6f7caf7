import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { writtenOr } from './support.ts';

const invalid = defineDiagnostic({
  code: 'endpoint-singleton-invalid',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' selects the caller's own record (select: caller), {why}.",
  description: "`select: caller` addresses the one record the calling principal owns (`GET /me`): it needs an owned resource (`owned: true`, so records have an owner), and applies to read, update and replace. Make the resource owned, or remove `select`.",
});

const SINGLETON_OPERATIONS = new Set(['read', 'update', 'replace']);

export default defineRule({
  name: 'endpoint-singleton-invalid',
  diagnostics: [invalid],
  endpoint(endpoint, ctx) {
    if (endpoint.select !== 'caller') return;
    const resource = ctx.index.resources.get(endpoint.resource);
    const why = !SINGLETON_OPERATIONS.has(endpoint.operation)
      ? `but it is a ${endpoint.operation}; only read, update and replace select one`
      : resource && !resource.owned
        ? `but records of ${endpoint.resource} have no owner (it is not owned: true), so none is the caller's`
        : undefined;
    if (why) ctx.report(invalid, { endpoint: endpoint.id, why }, writtenOr(ctx, child(endpoint.pointer, 'select'), endpoint.pointer));
  },
});
