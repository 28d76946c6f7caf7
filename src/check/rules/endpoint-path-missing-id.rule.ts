import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { ITEM_OPERATIONS, writtenOr } from './support.ts';

const missing = defineDiagnostic({
  code: 'endpoint-path-missing-id',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' acts on one record, but its path {path} has no {id} to say which.",
  description: 'read, update, replace, delete and transitions address one record, named by `{id}` in the path (`/loans/{id}/approve`), or by a parameter declared `id` under `params`. Add `{id}` to the path, or, for the caller\'s own record (`/me`), declare `select: caller`.',
});

export default defineRule({
  name: 'endpoint-path-missing-id',
  diagnostics: [missing],
  endpoint(endpoint, ctx) {
    // A singleton (select: caller) addresses the caller's own record, without an id.
    if (!ITEM_OPERATIONS.has(endpoint.operation) || endpoint.select === 'caller' || endpoint.params.some((p) => p.binding.kind === 'id')) return;
    ctx.report(missing, { endpoint: endpoint.id, path: endpoint.path, id: '{id}' }, writtenOr(ctx, child(endpoint.pointer, 'path'), endpoint.pointer));
  },
});
