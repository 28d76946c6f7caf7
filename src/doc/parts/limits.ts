import type { Limits, Spec } from '../../spec/model.ts';
import { code, facts, table, type Block, type Inline } from '../blocks.ts';
import { duration, size } from '../describe.ts';

export function limitsBlocks(spec: Spec): Block[] {
  const { rate, body, fields, timeouts, pagination } = spec.limits;
  const scope = (s: 'credential' | 'address') => (s === 'credential' ? 'credential' : 'client address');
  return [
    ...table(
      ['Applies to', 'Requests', 'Per', 'Counted per'],
      rate
        ? [
            [[rate.overrides.length ? 'every other endpoint' : 'every endpoint'], [String(rate.limit)], [duration(rate.windowMs) ?? ''], [scope(rate.scope)]],
            ...rate.overrides.map((o) => [[code(o.endpoint)], [String(o.limit)], [duration(o.windowMs) ?? ''], [scope(o.scope)]]),
          ]
        : [],
    ),
    ...facts([
      ['Request body', body ? [`at most ${size(body.maxBytes)}`] : undefined],
      ['Strings', fields?.maxStringLength !== undefined ? [`at most ${fields.maxStringLength} characters unless a field says otherwise`] : undefined],
      ['Arrays', fields?.maxArrayItems !== undefined ? [`at most ${fields.maxArrayItems} items unless a field says otherwise`] : undefined],
      ['Rate limit', !rate && spec.limits.none?.rate ? [`none: ${spec.limits.none.rate.reason}`] : undefined],
      ['Time-out', timeouts ? [`${duration(timeouts.requestMs)}, then answered with ${timeouts.status}`] : spec.limits.none?.timeouts ? [`none: ${spec.limits.none.timeouts.reason}`] : undefined],
      ['Pagination', pagination ? paginationText(pagination) : undefined],
    ]),
  ];
}

function paginationText(p: NonNullable<Limits['pagination']>): Inline[] {
  return [
    `${p.style} style; ${p.defaultSize} per page unless asked, at most ${p.maxSize}; a larger size is ${p.overMax === 'clamp' ? 'clamped' : 'refused'}; parameters `,
    code(p.sizeParam), ' and ', code(p.positionParam),
  ];
}
