import { routeClashes } from '../../spec/conventions/paths.ts';
import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Endpoint } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { writtenOr } from './support.ts';

const ambiguous = defineDiagnostic({
  code: 'endpoint-route-ambiguous',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' ({path}) and '{other}' ({otherPath}) are one path with different names for its parameters.",
  description: 'Two templates equal up to their parameter names (`GET /loans/{id}` and `DELETE /loans/{loanId}`) are one path to a router and to OpenAPI, which forbids both (OpenAPI 3.1 §4.8.8): which name binds what is ambiguous. Name the parameters alike.',
});

function at(ctx: RuleContext, e: Endpoint): string {
  return writtenOr(ctx, child(e.pointer, 'path'), e.pointer);
}

export default defineRule({
  name: 'endpoint-route-ambiguous',
  diagnostics: [ambiguous],
  spec(ctx) {
    for (const clash of routeClashes(ctx.spec.endpoints)) {
      if (clash.kind !== 'ambiguous') continue;
      const { endpoint, other } = clash;
      ctx.report(ambiguous, { endpoint: endpoint.id, path: endpoint.path, other: other.id, otherPath: other.path }, at(ctx, endpoint));
    }
  },
});
