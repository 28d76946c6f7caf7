import type { Endpoint, PathParam, Spec } from '../../spec/model.ts';
import { code, codes, maybeText, paragraph, table, type Block, type Inline } from '../blocks.ts';
import { accessText, BASE_URL, constraints, requestLine, requestText, responsesText, shapeType } from '../describe.ts';

export function endpointsBlocks(spec: Spec): Block[] {
  if (!spec.endpoints.length) return [];
  return [
    paragraph('Paths are relative to the base address, written ', code(BASE_URL), '.'),
    ...table(
      ['Endpoint', 'Method and path', 'Summary', 'Request body', 'Responses', 'Access', 'Errors'],
      spec.endpoints.map((e) => [[code(e.id)], [requestLine(e)], maybeText(e.summary), requestText(e.request), responsesText(e), accessText(e.auth), codes(e.errors)]),
    ),
    ...pathBlocks(spec),
  ];
}

/** What the parameters of nested paths stand for, and the singletons: only when some endpoint has them. */
function pathBlocks(spec: Spec): Block[] {
  const rows: Inline[][][] = [];
  for (const e of spec.endpoints) {
    if (e.select === 'caller') rows.push([[code(e.id)], ['(none)'], [`the caller's own ${e.resource}, without an id: 401 without credentials, 404 while there is none`]]);
    for (const p of e.params) if (p.binding.kind !== 'id') rows.push([[code(e.id)], [code(`{${p.name}}`)], bindingText(e, p)]);
  }
  if (!rows.length) return [];
  return [
    paragraph('Path parameters beyond the record ', code('{id}'), ', and the endpoints that address the caller\'s own record:'),
    ...table(['Endpoint', 'Parameter', 'Stands for'], rows),
  ];
}

function bindingText(e: Endpoint, p: PathParam): Inline[] {
  const b = p.binding;
  switch (b.kind) {
    case 'parent':
      return [`the id of the ${b.resource} its `, code(b.field), ` names; only that ${b.resource}'s ${e.resource} records are reached here (another's: 404)`];
    case 'value': {
      const c = constraints(b.shape);
      return ['a value: ', ...shapeType(b.shape), ...(b.shape.format ? [' ', code(b.shape.format)] : []), ...(c.length ? ['; ', ...c] : [])];
    }
    case 'unbound':
      return ['nothing the spec binds (check reports it)'];
    default:
      return [`the id of the ${e.resource}`];
  }
}
