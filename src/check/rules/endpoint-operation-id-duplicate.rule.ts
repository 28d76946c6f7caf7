import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Endpoint } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const duplicate = defineDiagnostic({
  code: 'endpoint-operation-id-duplicate',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' is named '{operationId}' in an exported document, as {other} is: OpenAPI requires each operationId to be unique.",
  description: 'An endpoint\'s `operationId` (or, where it states none, its id `<resource>.<endpoint>`) names its operation in an exported OpenAPI document, and code generators name methods after it. OpenAPI 3.1 §4.8.10 asks each to be unique among all operations. Give one of them another `operationId`.',
});

export default defineRule({
  name: 'endpoint-operation-id-duplicate',
  diagnostics: [duplicate],
  spec(ctx) {
    const seen = new Map<string, Endpoint>();
    // Stated names first: an endpoint keeping its default id is the one to rename when a stated name takes it.
    const ordered = [...ctx.spec.endpoints.filter((e) => e.operationId !== undefined), ...ctx.spec.endpoints.filter((e) => e.operationId === undefined)];
    for (const endpoint of ordered) {
      const name = endpoint.operationId ?? endpoint.id;
      const other = seen.get(name);
      if (!other) {
        seen.set(name, endpoint);
        continue;
      }
      const stated = endpoint.operationId !== undefined;
      // One entry listed twice has one id twice: endpoint-duplicate-route says so.
      if (!stated && other.operationId === undefined && other.id === endpoint.id) continue;
      ctx.report(duplicate, { endpoint: endpoint.id, operationId: name, other: `'${other.id}'` }, stated ? child(endpoint.pointer, 'operationId') : endpoint.pointer, { key: !stated && endpoint.explicit });
    }
  },
});
