/** Shared wording of the document: how types, constraints, requests and access are said to a reader. */
import type { Endpoint, EndpointAuth, Field, PageBody, RequestShape, Shape, Spec } from '../spec/model.ts';
import { BULK_ITEMS } from '../spec/conventions/bulk.ts';
import { requestEnvelope } from '../spec/conventions/envelope.ts';
import { formatDuration, formatSize } from '../spec/units.ts';
import { code, codes, joined, type Inline } from './blocks.ts';

/** The base address, as the founding document writes it. */
export const BASE_URL = '{base_url}';

/** A value as written in the spec: strings bare, everything else as JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
}

const UNIT_WORDS: Readonly<Record<string, string>> = { ms: 'millisecond', s: 'second', m: 'minute', h: 'hour', d: 'day' };

/** A duration for readers: `90s` becomes "90 seconds", `1m` "1 minute". */
export function duration(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  const [, amount = '', unit = ''] = /^([0-9]+)([a-z]+)$/.exec(formatDuration(ms)) ?? [];
  const word = UNIT_WORDS[unit] ?? unit;
  return `${amount} ${word}${amount === '1' ? '' : 's'}`;
}

export function size(bytes: number | undefined): string | undefined {
  return bytes === undefined ? undefined : formatSize(bytes).replace(/^([0-9]+)/, '$1 ');
}

export function shapeType(s: Shape): Inline[] {
  const base: Inline[] =
    s.type === 'ref' ? ['reference to ', code(s.resource ?? '?')]
    : s.type === 'array' && s.items ? ['array of ', ...shapeType(s.items)]
    : [s.type];
  return s.nullable ? [...base, ' or null'] : base;
}

/** What limits a value beyond its type, in reading order. */
export function constraints(s: Shape | Field): Inline[] {
  const out: Inline[][] = [];
  if (s.enum) out.push(['one of ', ...joined(s.enum.map((v) => code(valueText(v))))]);
  const range = (low: number | undefined, high: number | undefined, unit: string): void => {
    if (low !== undefined && high !== undefined) out.push([`${low} to ${high}${unit}`]);
    else if (low !== undefined) out.push([`at least ${low}${unit}`]);
    else if (high !== undefined) out.push([`at most ${high}${unit}`]);
  };
  range(s.minimum, s.maximum, '');
  if (s.exclusiveMinimum !== undefined) out.push([`more than ${s.exclusiveMinimum}`]);
  if (s.exclusiveMaximum !== undefined) out.push([`less than ${s.exclusiveMaximum}`]);
  if (s.multipleOf !== undefined) out.push([`multiple of ${s.multipleOf}`]);
  range(s.minLength, s.maxLength, ' characters');
  if (s.pattern !== undefined) out.push(['matches ', code(s.pattern)]);
  range(s.minItems, s.maxItems, ' items');
  if (s.uniqueItems) out.push(['items unique']);
  if (s.items) {
    const inner = constraints(s.items);
    if (inner.length) out.push(['each item: ', ...inner]);
  }
  if ('name' in s) {
    if (s.readOnly) out.push(['read-only']);
    if (s.writeOnly) out.push(['write-only']);
    if (s.hasDefault) out.push(['default ', code(valueText(s.default))]);
    if (s.since !== undefined) out.push([`since version ${s.since}`]);
    if (s.until !== undefined) out.push([`until version ${s.until}`]);
  }
  return out.flatMap((parts, i) => (i === 0 ? parts : ['; ', ...parts]));
}

export function requestLine(e: Pick<Endpoint, 'method' | 'path'>): Inline {
  return code(`${e.method} ${BASE_URL}${e.path}`);
}

/**
 * An endpoint's request body in words: a bulk write's `{items: […]}` (src/spec/conventions/bulk.ts),
 * and the record's envelope where the resource has one (src/spec/conventions/envelope.ts).
 */
export function requestText(e: Pick<Endpoint, 'operation' | 'request' | 'resource'>, spec: Pick<Spec, 'resources'>): Inline[] {
  if (e.operation === 'bulk-delete') return [code(`{"${BULK_ITEMS}": [ids]}`)];
  if (e.operation === 'bulk-update') return [code(`{"${BULK_ITEMS}": [{id, …changes}]}`), ', each a merge patch of the record with its id'];
  if (e.operation === 'bulk-create') return [code(`{"${BULK_ITEMS}": […]}`), ', each item ', ...shapeText(e.request)];
  const member = requestEnvelope(spec, e);
  const text = shapeText(e.request);
  return member === undefined || e.request.kind === 'none' ? text : [...text, ', inside ', code(`{"${member}": …}`)];
}

function shapeText(request: RequestShape): Inline[] {
  switch (request.kind) {
    case 'none':
      return ['none'];
    case 'resource':
      return [request.partial ? 'writable fields, each optional' : 'writable fields'];
    case 'fields':
      return codes(request.fields, 'empty');
    case 'shape':
      return ['its own fields ', ...codes(request.fields.map((f) => f.name), 'none')];
  }
}

export function responsesText(e: Endpoint): Inline[] {
  const own = e.page;
  // A list's own page body (its `page:`) is said where its page is.
  return e.responses.flatMap((r, i): Inline[] => [
    ...(i ? ['; '] : []),
    `${r.status} ${r.body}`,
    ...(r.body === 'page' && own ? (own.kind === 'array' ? [', a bare array'] : [' (', ...pageBodyText(own), ')']) : []),
    ...(r.description ? [` (${r.description})`] : []),
  ]);
}

/** Where a page body keeps its records and the rest (`limits.pagination.body`, a list's `page`). */
export function pageBodyText(b: PageBody): Inline[] {
  if (b.kind === 'array') return [];
  const out: Inline[] = ['records in ', code(b.items)];
  if (b.next !== undefined) out.push(', the next position in ', code(b.next));
  if (b.total !== undefined) out.push(', the number of all records in ', code(b.total));
  if (b.offset !== undefined) out.push(', its offset in ', code(b.offset));
  return out;
}

/** Who may call an endpoint; "not shown" while authentication is a gap. */
export function accessText(auth: EndpointAuth | undefined): Inline[] {
  if (!auth) return ['not shown'];
  if (auth.public) return ['public'];
  // Every scheme is accepted everywhere; the schemes are listed once, under Authentication.
  if (auth.scopes.length) return ['scopes ', ...joined(auth.scopes.map(code))];
  return ['any credential'];
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : '';
}
