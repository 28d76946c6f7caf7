import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { ITEM_OPERATIONS, writtenOr } from './support.ts';

const unbound = defineDiagnostic({
  code: 'endpoint-path-param-unbound',
  severity: 'error',
  part: 'endpoints',
  message: "The path of endpoint '{endpoint}' ({path}) has the parameter '{param}', {why}.",
  description: 'Every path parameter must stand for something the model knows (docs/format.md "Path parameters"): `{id}`, the id of the record an item operation acts on; `{<field>Id}`, the id of the parent a ref field `<field>` of the resource points to (`/members/{memberId}/loans`); or a parameter declared under `params` (`{ ref: <field> }`, `id`, or a shape). Collection operations (create, list) take no `{id}`. Declare the parameter, rename it, or remove it.',
});

export default defineRule({
  name: 'endpoint-path-param-unbound',
  diagnostics: [unbound],
  endpoint(endpoint, ctx) {
    // An action acts on one record when its path names one (src/load/normalize/endpoints.ts readAction).
    const item = (ITEM_OPERATIONS.has(endpoint.operation) || endpoint.action?.target === 'record') && endpoint.select === undefined;
    for (const param of endpoint.params) {
      const b = param.binding;
      let why: string | undefined;
      if (b.kind === 'id' && !item) {
        why = endpoint.select === 'caller'
          ? "but the endpoint selects the caller's own record, which needs no id"
          : `but '${endpoint.operation}' acts on the collection, not on one record`;
      } else if (b.kind === 'unbound') {
        why = b.ref !== undefined
          ? `declared as the parent named by '${b.ref}', which is not a ref field of ${endpoint.resource}`
          : `which binds nothing: it is not {id}, no ref field '${param.name.replace(/Id$/, '')}' of ${endpoint.resource} matches the {<field>Id} convention, and params does not declare it`;
      }
      if (why === undefined) continue;
      const at = param.declared ? param.pointer : writtenOr(ctx, child(endpoint.pointer, 'path'), endpoint.pointer);
      ctx.report(unbound, { endpoint: endpoint.id, path: endpoint.path, param: param.name, why }, at);
    }
  },
});
