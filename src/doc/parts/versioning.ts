import type { Spec, Versioning } from '../../spec/model.ts';
import { code, facts, table, type Block, type Inline } from '../blocks.ts';

export function versioningBlocks(spec: Spec): Block[] {
  const v = spec.versioning;
  return [
    ...facts([
      ['Selected by', v.select ? selectText(v.select) : undefined],
      ['Default version', v.default !== undefined ? [code(v.default)] : undefined],
    ]),
    ...table(
      ['Version', 'Status', 'Released', 'Deprecated', 'Sunset', 'Documentation'],
      v.versions.map((x) => [[code(x.name)], [x.status], [x.released ?? ''], [x.deprecated ?? ''], [x.sunset ?? ''], x.docs ? [code(x.docs)] : []]),
    ),
  ];
}

function selectText(select: NonNullable<Versioning['select']>): Inline[] {
  if (select.by === 'path') return ['path prefix ', code(select.prefix)];
  return [select.by === 'header' ? 'request header ' : 'query parameter ', code(select.name)];
}
