import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const repeated = defineDiagnostic({
  code: 'endpoint-path-param-repeated',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' names the parameter '{param}' twice in its path {path}.",
  description: 'One name, one value: a route that names a parameter twice (`/articles/{id}/comments/{id}`) binds one of the two segments and loses the other, and OpenAPI refuses two path parameters of one name. Give the second its own name (`{commentId}`) and declare it under `params`.',
});

export default defineRule({
  name: 'endpoint-path-param-repeated',
  diagnostics: [repeated],
  endpoint(endpoint, ctx) {
    const seen = new Set<string>();
    for (const [, name] of endpoint.path.matchAll(/\{([^}]+)\}/g)) {
      if (seen.has(name!)) {
        ctx.report(repeated, { endpoint: endpoint.id, param: name, path: endpoint.path }, child(endpoint.pointer, 'path'));
        return;
      }
      seen.add(name!);
    }
  },
});
