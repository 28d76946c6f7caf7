import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Endpoint } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { routeShape, written } from './support.ts';

const duplicate = defineDiagnostic({
  code: 'endpoint-duplicate-route',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' answers {method} {path}, as {other} already does: a request could not tell them apart.",
  description: 'Two endpoints with the same method and path (parameter names aside: `/loans/{id}` and `/loans/{loanId}` are one route) cannot both be served. Give one of them another path or method, or remove the repetition.',
});

export default defineRule({
  name: 'endpoint-duplicate-route',
  diagnostics: [duplicate],
  spec(ctx) {
    const seen = new Map<string, Endpoint>();
    for (const endpoint of ctx.spec.endpoints) {
      const route = `${endpoint.method} ${routeShape(endpoint.path)}`;
      const other = seen.get(route);
      if (!other) {
        seen.set(route, endpoint);
        continue;
      }
      const path = child(endpoint.pointer, 'path');
      const at = written(ctx, path) ? { pointer: path, key: false } : { pointer: endpoint.pointer, key: endpoint.explicit };
      ctx.report(duplicate, { endpoint: endpoint.id, method: endpoint.method, path: endpoint.path, other: other.id === endpoint.id ? 'its earlier entry' : `'${other.id}'` }, at.pointer, { key: at.key });
    }
  },
});
