import { isDefaultBody } from '../../spec/conventions/pagination.ts';
import type { Limits, Spec } from '../../spec/model.ts';
import { code, facts, table, type Block, type Inline } from '../blocks.ts';
import { duration, pageBodyText, size } from '../describe.ts';

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
      ['Quota fields', rate?.headers === 'ratelimit' ? ['every answer of a limited endpoint carries ', code('RateLimit-Policy'), ' and ', code('RateLimit'), ' (what is left, and when the window closes)'] : rate?.headers === 'none' ? ['none: only a 429 and its ', code('Retry-After'), ' tell'] : undefined],
      ['Conditional requests', conditionalText(spec)],
      ['Idempotency keys', idempotencyText(spec)],
    ]),
  ];
}

function paginationText(p: NonNullable<Limits['pagination']>): Inline[] {
  const over = p.overMax === undefined ? 'not stated' : p.overMax === 'clamp' ? 'clamped' : 'refused';
  const bound = p.maxSize === undefined ? 'the largest size not stated' : Number.isFinite(p.maxSize) ? `at most ${p.maxSize}; a larger size is ${over}` : 'any size asked for (no maximum)';
  const out: Inline[] = [
    `${p.style} style; ${p.defaultSize === undefined ? 'the default size not stated' : `${p.defaultSize} per page unless asked`}, ${bound}; parameters `,
    code(p.sizeParam), ', ', code(p.positionParam), ' and ', code(p.sortParam),
  ];
  if (p.body.kind === 'array') out.push('; a page is a bare array, the next one linked by ', code('Link: rel="next"'));
  else if (!isDefaultBody(p)) {
    out.push('; a page holds its ', ...pageBodyText(p.body));
  }
  if (p.unpaged === 'all') out.push('; without ', code(p.positionParam), ' every record comes as a bare array');
  if (p.links?.includes('next') && p.body.kind !== 'array') out.push('; every page but the last links the next by ', code('Link: rel="next"'));
  if (p.links && !p.links.length) out.push('; pages carry no links');
  return out;
}

/** `limits.conditional` in words: what a record answer carries and which preconditions hold. */
function conditionalText(spec: Spec): Inline[] | undefined {
  const none = spec.limits.none?.conditional;
  if (none) return [`none: ${none.reason}`];
  const c = spec.limits.conditional;
  if (!c) return undefined;
  const etag = c.validators.includes('etag');
  const lm = c.validators.includes('last-modified');
  const out: Inline[] = ['every answer with a record carries '];
  if (etag) out.push('a strong ', code('ETag'));
  if (etag && lm) out.push(' and ');
  if (lm) out.push(code('Last-Modified'));
  if (c.writes) out.push('; a write with a stale ', code(etag ? 'If-Match' : 'If-Unmodified-Since'), ' is refused with 412 and changes nothing');
  if (c.reads) out.push('; a read whose ', code(etag ? 'If-None-Match' : 'If-Modified-Since'), ' shows the copy is current is answered 304');
  return out;
}

/** `limits.idempotency` in words. */
function idempotencyText(spec: Spec): Inline[] | undefined {
  const none = spec.limits.none?.idempotency;
  if (none) return [`none: ${none.reason}`];
  const i = spec.limits.idempotency;
  if (!i) return undefined;
  return ['a POST repeated with the same ', code(i.header), ` within ${duration(i.lifetimeMs) ?? ''} gets the first answer again and makes nothing new; the same key with another body is refused; keys are per ${i.scope === 'credential' ? 'credential' : 'client address'}`];
}
