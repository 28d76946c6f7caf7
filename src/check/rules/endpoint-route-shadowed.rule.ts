import { routeClashes } from '../../spec/conventions/paths.ts';
import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Endpoint } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { writtenOr } from './support.ts';

const shadowed = defineDiagnostic({
  code: 'endpoint-route-shadowed',
  severity: 'warning',
  part: 'endpoints',
  message: "{method} {literalPath} ('{literal}') shadows {method} {paramPath} ('{param}'): a request to {literalPath} never reaches '{param}', so no record can have that id.",
  description: 'A literal segment where another endpoint of the same method has a parameter (`/members/me` beside `/members/{id}`) is allowed by routers, which try the literal first — so the parameter can never take that value. Declare the literal endpoint a singleton (`select: caller`) if that is the intent, or give one of them another path.',
});

function at(ctx: RuleContext, e: Endpoint): string {
  return writtenOr(ctx, child(e.pointer, 'path'), e.pointer);
}

export default defineRule({
  name: 'endpoint-route-shadowed',
  diagnostics: [shadowed],
  spec(ctx) {
    for (const clash of routeClashes(ctx.spec.endpoints)) {
      if (clash.kind !== 'shadow') continue;
      const literal = clash.literal ?? clash.endpoint;
      const param = literal === clash.endpoint ? clash.other : clash.endpoint;
      // A declared singleton beside the collection's {id} is the intended reading.
      if (literal.select === 'caller') continue;
      ctx.report(shadowed, { method: literal.method, literalPath: literal.path, literal: literal.id, paramPath: param.path, param: param.id }, at(ctx, literal));
    }
  },
});
