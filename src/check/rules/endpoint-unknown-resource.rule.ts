import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { parentPointer } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const unknown = defineDiagnostic({
  code: 'endpoint-unknown-resource',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoints are declared for '{resource}', which is not a resource (resources: {resources}).{hint}",
  description: 'The `endpoints` part is keyed by resource; each key must name a resource of the `resources` part, whose records the endpoints read and change. Correct the name, or declare the resource.',
});

export default defineRule({
  name: 'endpoint-unknown-resource',
  diagnostics: [unknown],
  spec(ctx) {
    const reported = new Set<string>();
    for (const endpoint of ctx.spec.endpoints) {
      if (ctx.index.resources.has(endpoint.resource) || reported.has(endpoint.resource)) continue;
      reported.add(endpoint.resource);
      ctx.report(unknown, {
        resource: endpoint.resource, resources: listOf(ctx.index.resources.keys()), hint: didYouMean(endpoint.resource, ctx.index.resources.keys()),
      }, parentPointer(endpoint.pointer) ?? endpoint.pointer, { key: true });
    }
  },
});
