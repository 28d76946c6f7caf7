/**
 * List envelopes: a response object that holds the records of one resource in one array
 * member (`{data: [Customer], has_more}`, Box's `{entries: [File], total_count, offset}`,
 * `{items: [Book], next_page_token}`) is a page of that resource, as a bare array is. The
 * format's page body names the member holding the records and, where the document has them,
 * the members of the next position and of the total (limits.pagination.body).
 *
 * An object is read as an envelope only when it cannot be a record itself: it has no `id`,
 * and its one array of records is named as lists name theirs (ITEMS); an order with `lines`
 * stays an order.
 */
import { child } from '../../spec/pointer.ts';
import { componentOf, isObject, resolve, type ImportContext, type Json } from './context.ts';
import { mergeAllOf } from './schema.ts';

const ITEMS: ReadonlySet<string> = new Set(['data', 'items', 'results', 'entries', 'records', 'values', 'content', 'elements']);
const NEXT: ReadonlySet<string> = new Set(['next', 'next_cursor', 'nextCursor', 'next_page_token', 'nextPageToken', 'next_marker', 'nextMarker', 'next_page', 'nextPage', 'next_offset', 'nextOffset']);
const TOTAL: ReadonlySet<string> = new Set(['total', 'total_count', 'totalCount', 'total_size', 'totalSize']);

export interface Envelope {
  /** The member holding the records. */
  readonly items: string;
  /** The member holding the next position, where the document names one. */
  readonly next?: string;
  /** The member holding the count of the whole list. */
  readonly total?: string;
  /** `offset`, where the envelope has it (the offset style's member). */
  readonly offset?: string;
  /** The other members, which a page body of the format has no place for. */
  readonly others: readonly string[];
}

/** The records' component and the envelope's members, when `schema` is a list envelope. */
export function envelopeOf(ctx: ImportContext, schema: unknown, at: string): { component: string; envelope: Envelope } | undefined {
  const r = resolve(ctx, schema, at);
  if (!r) return undefined;
  const node: Json = mergeAllOf({ ctx, resources: new Map() }, r.node, r.pointer);
  if (!isObject(node.properties) || (node.type !== undefined && node.type !== 'object')) return undefined;
  const members = Object.entries(node.properties);
  if (members.some(([name]) => name === 'id')) return undefined;
  const arrays = members.flatMap(([name, v]) => {
    const p = resolve(ctx, v, child(r.pointer, 'properties', name));
    const records = p && p.node.type === 'array' ? componentOf(p.node.items) : undefined;
    return records === undefined ? [] : [[name, records] as const];
  });
  if (arrays.length !== 1 || !ITEMS.has(arrays[0][0])) return undefined;
  const [items, component] = arrays[0];
  const names = members.map(([n]) => n);
  const next = names.find((n) => NEXT.has(n));
  const total = names.find((n) => TOTAL.has(n));
  const offset = names.includes('offset') ? 'offset' : undefined;
  const others = names.filter((n) => n !== items && n !== next && n !== total && n !== offset);
  return { component, envelope: { items, ...(next ? { next } : {}), ...(total ? { total } : {}), ...(offset ? { offset } : {}), others } };
}

/** The envelope as the format's page body: its members, without those it has no place for. */
export function envelopeKey(e: Envelope | undefined): string {
  return e ? JSON.stringify([e.items, e.next ?? null, e.total ?? null, e.offset ?? null]) : 'array';
}
