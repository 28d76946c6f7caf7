import { isDefaultBody } from '../../spec/conventions/pagination.ts';
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
  const bound = Number.isFinite(p.maxSize) ? `at most ${p.maxSize}; a larger size is ${p.overMax === 'clamp' ? 'clamped' : 'refused'}` : 'any size asked for (no maximum)';
  const out: Inline[] = [
    `${p.style} style; ${p.defaultSize} per page unless asked, ${bound}; parameters `,
    code(p.sizeParam), ', ', code(p.positionParam), ' and ', code(p.sortParam),
  ];
  if (p.body.kind === 'array') out.push('; a page is a bare array, the next one linked by ', code('Link: rel="next"'));
  else if (!isDefaultBody(p)) {
    const b = p.body;
    out.push('; a page holds its records in ', code(b.items));
    if (b.next !== undefined) out.push(', the next position in ', code(b.next));
    if (b.total !== undefined) out.push(', the number of all records in ', code(b.total));
    if (b.offset !== undefined) out.push(', its offset in ', code(b.offset));
  }
  if (p.unpaged === 'all') out.push('; without ', code(p.positionParam), ' every record comes as a bare array');
  return out;
}
