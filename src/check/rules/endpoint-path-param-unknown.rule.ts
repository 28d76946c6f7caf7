import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { ITEM_OPERATIONS, pathParams, writtenOr } from './support.ts';

const unknown = defineDiagnostic({
  code: 'endpoint-path-param-unknown',
  severity: 'error',
  part: 'endpoints',
  message: "The path of endpoint '{endpoint}' ({path}) has the parameter '{param}', {why}.",
  description: 'The only path parameter an endpoint can be given is `{id}`, the id of the record an item operation (read, update, replace, delete, a transition) acts on. Collection operations (create, list, bulk-create, bulk-update, bulk-delete) take none; an action takes `{id}` when it acts on one record. Remove the parameter, or rename it `{id}`.',
});

export default defineRule({
  name: 'endpoint-path-param-unknown',
  diagnostics: [unknown],
  endpoint(endpoint, ctx) {
    // An action acts on one record when its path carries the record's id.
    const item = ITEM_OPERATIONS.has(endpoint.operation) || endpoint.operation === 'action';
    for (const param of pathParams(endpoint.path)) {
      if (param === 'id' && item) continue;
      const why = param === 'id'
        ? `but '${endpoint.operation}' acts on the collection, not on one record`
        : 'but the only path parameter an endpoint takes is {id}, the record id';
      ctx.report(unknown, { endpoint: endpoint.id, path: endpoint.path, param, why }, writtenOr(ctx, child(endpoint.pointer, 'path'), endpoint.pointer));
    }
  },
});
