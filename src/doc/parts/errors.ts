import type { ErrorShape, Spec } from '../../spec/model.ts';
import { code, facts, maybeText, specText, table, type Block, type Inline } from '../blocks.ts';

export function errorsBlocks(spec: Spec): Block[] {
  const { shape, catalog } = spec.errors;
  return [
    ...facts([['Error body', shape ? shapeText(shape) : undefined]]),
    ...table(['Code', 'Status', 'Title', 'When'], catalog.map((e) => [[code(e.code)], [String(e.status)], specText(e.title), maybeText(e.when)])),
  ];
}

function shapeText(shape: ErrorShape): Inline[] {
  if (shape.kind === 'problem') return ['problem details (RFC 9457) as ', code(shape.mediaType), ', with a ', code('code'), ' member naming the error'];
  const members = Object.entries(shape.members).flatMap(([role, name], i) => [...(i ? ['; '] : []), `${role} in `, code(name)]);
  return [code(shape.mediaType), ': ', ...members];
}
