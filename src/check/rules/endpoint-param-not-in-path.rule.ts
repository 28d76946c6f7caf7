import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const notInPath = defineDiagnostic({
  code: 'endpoint-param-not-in-path',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' declares the parameter '{param}' under params, but its path {path} does not have it.",
  description: 'A declaration under `params` says what a `{parameter}` of the path stands for; one the path does not have binds nothing, and is most often a misspelt name. Add it to the path, or rename or remove the declaration.',
});

export default defineRule({
  name: 'endpoint-param-not-in-path',
  diagnostics: [notInPath],
  endpoint(endpoint, ctx) {
    for (const param of endpoint.strayParams ?? []) {
      ctx.report(notInPath, { endpoint: endpoint.id, param, path: endpoint.path }, child(child(endpoint.pointer, 'params'), param), { key: true });
    }
  },
});
