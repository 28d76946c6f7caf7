import type { ErrorShape, Spec } from '../../spec/model.ts';
import { code, facts, maybeText, specText, table, type Block, type Inline } from '../blocks.ts';

export function errorsBlocks(spec: Spec): Block[] {
  const { shape, catalog } = spec.errors;
  const m = shape?.members;
  return [
    ...facts([
      ['Error body', shape ? shapeText(shape) : undefined],
      // What serve adds to some errors (src/serve/validation.ts, states.ts, auth/index.ts), as the OpenAPI export describes them.
      ['Violations', m?.errors ? ['a refusal of the request lists each violation in ', code(m.errors), ', with its JSON ', code('pointer'), ' (RFC 6901, into the body as sent, or ', code('/query/…'), ', ', code('/path/…'), ', ', code('/headers/…'), ') and a ', code('message')] : undefined],
      ['Members of some errors', shape?.kind === 'problem' ? [code('invalid-transition'), ' adds ', code('currentState'), ' and ', code('allowedTransitions'), '; ', code('forbidden'), ' adds ', code('missingScopes')] : undefined],
    ]),
    ...table(['Code', 'Status', 'Title', 'When'], catalog.map((e) => [[code(e.code)], [String(e.status)], specText(e.title), maybeText(e.when)])),
  ];
}

function shapeText(shape: ErrorShape): Inline[] {
  if (shape.kind === 'problem') return ['problem details (RFC 9457) as ', code(shape.mediaType), ', with a ', code('code'), ' member naming the error'];
  const members = Object.entries(shape.members).flatMap(([role, name], i) => [...(i ? ['; '] : []), `${role} in `, code(name)]);
  return [code(shape.mediaType), ': ', ...members];
}
