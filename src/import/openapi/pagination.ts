/**
 * Part 8's pagination from the query parameters of the list endpoints, as real APIs name
 * them without svcspec's extensions. The format states one pagination for the whole service
 * (`limits.pagination`): a style, the names of its parameters, the default and largest page
 * size and what a larger size asked for gets. The document says:
 *
 *   cursor   `cursor`, `starting_after` (Stripe), `after`, `page_token`/`pageToken`, `marker` (Box)
 *   offset   `offset`, `skip`
 *   page     `page`, `page_number`/`pageNumber`
 *   size     `limit`, `per_page`/`perPage`, `page_size`/`pageSize`, `max_results`/`maxResults`
 *
 * The page body is the lists' envelope (./pages.ts: `{data, has_more}`, `{items,
 * next_page_token}`, Box's `{entries, total_count, offset}`, Lago's `{add_ons, meta:
 * {next_page, total_count}}`) or a bare array; a list answering another states its own.
 *
 * The sizes are read from the size parameter's schema only (`default`, `maximum`); a larger
 * size than `maximum` breaks the parameter's schema, so it is refused (`overMax: reject`).
 * Where the schema leaves either size unsaid, nothing is guessed: the pagination is written
 * without it (the part partial; the reference's safety bound stands in), reported with its place. What the format cannot say (backward cursors such as
 * `ending_before`, several styles in one service) is reported, never approximated.
 */
import type { Limits, PageBody } from '../../spec/model.ts';
import { child, pointer } from '../../spec/pointer.ts';
import { IMPORT_CODES } from '../codes.ts';
import { isObject, report, resolve, type ImportContext } from './context.ts';
import type { Operation } from './resources.ts';
import { envelopeKey, type Envelope } from './pages.ts';

type Style = 'cursor' | 'offset' | 'page';

const POSITION: Readonly<Record<Style, readonly string[]>> = {
  cursor: ['cursor', 'starting_after', 'after', 'page_token', 'pageToken', 'marker'],
  offset: ['offset', 'skip'],
  page: ['page', 'page_number', 'pageNumber'],
};
const SIZE: readonly string[] = ['limit', 'per_page', 'perPage', 'page_size', 'pageSize', 'max_results', 'maxResults'];
/** Cursors that page backwards: the format pages forward from a position only. */
const BACKWARD: readonly string[] = ['ending_before', 'before'];

/** A list endpoint's operation, and the envelope its page comes in (none: a bare array). */
export interface Listed {
  readonly op: Operation;
  readonly envelope?: Envelope;
}

/** How one list endpoint pages, as its query parameters say. */
interface ListPaging {
  readonly op: Operation;
  readonly envelope?: Envelope;
  readonly style: Style;
  readonly position: { readonly name: string; readonly at: string };
  readonly size?: Size;
  /** Every size parameter it takes, in SIZE's order (Kratos takes per_page with page, page_size with page_token). */
  readonly sizes: readonly Size[];
  readonly backward?: { readonly name: string; readonly at: string };
}

interface Size {
  readonly name: string;
  readonly at: string;
  readonly schema: Record<string, unknown>;
}

/** The query parameters of an operation (its own, then its path's), resolved, with their places. */
function queryParams(ctx: ImportContext, op: Operation): { name: string; at: string; node: Record<string, unknown> }[] {
  const out: { name: string; at: string; node: Record<string, unknown> }[] = [];
  const lists: [readonly unknown[], string][] = [[Array.isArray(op.node.parameters) ? op.node.parameters : [], op.pointer], [op.shared, op.pointer.slice(0, op.pointer.lastIndexOf('/'))]];
  for (const [list, at] of lists) {
    list.forEach((p, i) => {
      const r = resolve(ctx, p, child(at, 'parameters', i));
      if (!r || r.node.in !== 'query' || typeof r.node.name !== 'string' || out.some((o) => o.name === r.node.name)) return;
      out.push({ name: r.node.name, at: r.pointer, node: r.node });
    });
  }
  return out;
}

function pagingOf(ctx: ImportContext, { op, envelope }: Listed): ListPaging | undefined {
  const params = queryParams(ctx, op);
  const find = (names: readonly string[]) => params.find((p) => names.includes(p.name));
  for (const style of ['cursor', 'offset', 'page'] as const) {
    const position = find(POSITION[style]);
    if (!position) continue;
    // The size that goes with the style first: a page number with per_page, a cursor or offset with limit or page_size.
    const order = style === 'page' ? SIZE : [...SIZE.filter((n) => !/^per_?[pP]age$/.test(n)), ...SIZE.filter((n) => /^per_?[pP]age$/.test(n))];
    const sizes = order.flatMap((name) => params.filter((p) => p.name === name)).map((p) => ({ name: p.name, at: p.at, schema: isObject(p.node.schema) ? p.node.schema : {} }));
    const backward = style === 'cursor' ? find(BACKWARD) : undefined;
    return {
      op, ...(envelope ? { envelope } : {}), style, position: { name: position.name, at: position.at }, sizes,
      ...(sizes[0] ? { size: sizes[0] } : {}),
      ...(backward ? { backward: { name: backward.name, at: backward.at } } : {}),
    };
  }
  return undefined;
}

export interface ImportedPagination {
  readonly pagination?: NonNullable<Limits['pagination']>;
  /** The lists answering another page body than the part's, each with its own (the endpoint's `page`). */
  readonly pages?: ReadonlyMap<Operation, PageBody>;
  /** Per list operation, the query parameters the pagination carries (not reported as left out). */
  readonly carried: ReadonlyMap<Operation, ReadonlySet<string>>;
}

/**
 * The pagination the list endpoints state, in the format's words: the operations imported as
 * `list`, each with its page's envelope (none: a bare array).
 */
export function importPagination(ctx: ImportContext, lists: readonly Listed[]): ImportedPagination {
  const carried = new Map<Operation, Set<string>>();
  const read = lists.map((l) => pagingOf(ctx, l)).filter((p): p is ListPaging => p !== undefined);
  if (!read.length) {
    unstatedEnvelopes(ctx, lists);
    return { carried };
  }
  const where = (p: ListPaging) => `${p.op.method.toUpperCase()} ${p.op.path}`;
  // One style for the service: the one most lists use (the first, on a tie).
  const counts = new Map<Style, number>();
  for (const p of read) counts.set(p.style, (counts.get(p.style) ?? 0) + 1);
  const style = [...counts].sort((a, b) => b[1] - a[1])[0][0];
  let mine = read.filter((p) => p.style === style);
  for (const p of read.filter((x) => x.style !== style)) {
    report(ctx, IMPORT_CODES.pagingUnsayable, { where: where(p), what: `pages by ${p.style} ('${p.position.name}') where the other lists page by ${style}`, why: 'the format states one pagination for the whole service' }, p.position.at);
  }
  for (const p of mine) {
    if (p.backward) report(ctx, IMPORT_CODES.pagingUnsayable, { where: where(p), what: `takes '${p.backward.name}', a cursor that pages backwards`, why: 'the format pages forward from a position only' }, p.backward.at);
  }
  // The names: the ones most of these lists use.
  const position = mostUsed(mine.map((p) => p.position.name));
  // The size the most lists take, of all each takes; a list taking it pages by it, whatever else it takes.
  // Of equals, the one the first list would choose (its sizes come in the style's order).
  const taken = new Map<string, number>();
  for (const p of mine) for (const x of p.sizes) taken.set(x.name, (taken.get(x.name) ?? 0) + 1);
  const ranked = mine.flatMap((p) => p.sizes.map((x) => x.name));
  const sizeName = ranked.length ? ranked.reduce((best, n) => ((taken.get(n) ?? 0) > (taken.get(best) ?? 0) ? n : best)) : undefined;
  const chosen = new Map(mine.map((p) => [p, p.sizes.find((x) => x.name === sizeName) ?? p.size]));
  mine = mine.map((p) => {
    const size = chosen.get(p);
    return size ? { ...p, size } : p;
  });
  const sized = mine.filter((p) => p.size !== undefined);
  for (const p of mine) {
    if (p.position.name !== position || (p.size && p.size.name !== sizeName)) {
      report(ctx, IMPORT_CODES.pagingUnsayable, { where: where(p), what: `names its parameters '${p.position.name}'${p.size ? ` and '${p.size.name}'` : ''}, where the other lists name them '${position}'${sizeName ? ` and '${sizeName}'` : ''}`, why: 'the format names the parameters once for the whole service' }, p.position.at);
    }
  }
  const first = mine[0];
  const size = sized.find((p) => p.size!.name === sizeName)?.size;
  const defaultSize = size && integer(size.schema.default);
  const maxSize = size && integer(size.schema.maximum);
  const { body, pages } = pageBodies(ctx, mine, style);
  // A list taking no page parameters still answers in its own envelope: said, so its records are read where they are.
  for (const l of lists) {
    if (!read.some((p) => p.op === l.op) && envelopeKey(l.envelope) !== envelopeKey(mine.find((p) => !pages.has(p.op))?.envelope)) pages.set(l.op, bodyOf(l.envelope, style));
  }
  if (!size) {
    // No size parameter to name: the format names one, and none is invented.
    report(ctx, IMPORT_CODES.pagingSizes, { where: where(first), style, position, missing: `it takes no page size parameter (${SIZE.slice(0, 4).join(', ')}, …)`, done: 'the format names a size parameter, so the pagination is left unstated' }, first.position.at);
    unstatedEnvelopes(ctx, lists);
    return { carried };
  }
  if (defaultSize === undefined || maxSize === undefined) {
    const gives = [defaultSize === undefined ? 'default' : '', maxSize === undefined ? 'maximum' : ''].filter(Boolean).join(' nor ');
    const unsaid = [defaultSize === undefined ? 'a default page size' : '', maxSize === undefined ? 'a largest page size' : ''].filter(Boolean).join(' and ');
    // What the document does say is written (below): the style, the parameters, the page body.
    report(ctx, IMPORT_CODES.pagingSizes, { where: where(first), style, position, missing: `the schema of '${size.name}' gives no ${gives}`, done: `the pagination is written without ${unsaid}, which stays for you to state (the part is partial)` }, size.at);
  } else {
    report(ctx, IMPORT_CODES.pagingRead, { style, position, size: sizeName!, defaultSize, maxSize }, size.at);
    // One pagination for the service: a list whose size parameter gives other sizes pages by the service's, said where it stands.
    const source = sized.find((x) => x.size === size) ?? first;
    for (const p of sized) {
      const own = { defaultSize: integer(p.size!.schema.default), maxSize: integer(p.size!.schema.maximum) };
      if (p.size!.name !== sizeName || (own.defaultSize === defaultSize && own.maxSize === maxSize)) continue;
      const differs = [own.defaultSize !== defaultSize ? `the default ${own.defaultSize ?? '(none)'}` : '', own.maxSize !== maxSize ? `the maximum ${own.maxSize ?? '(none)'}` : ''].filter(Boolean).join(' and ');
      report(ctx, IMPORT_CODES.pagingUnsayable, { where: where(p), what: `gives '${sizeName}' ${differs}, where the pagination read from ${where(source)} has the default ${defaultSize} and the maximum ${maxSize}`, why: 'the format states one page size for the whole service' }, p.size!.at);
    }
  }
  for (const p of mine) carried.set(p.op, new Set([`query ${p.position.name}`, ...(p.size ? [`query ${p.size.name}`] : [])]));
  return {
    carried,
    pages,
    pagination: {
      style,
      ...(defaultSize !== undefined ? { defaultSize } : {}),
      // A maximum in the size's schema refuses a larger size; none given, what a larger one gets is unsaid too.
      ...(maxSize !== undefined ? { maxSize, overMax: 'reject' as const } : {}),
      sizeParam: size.name,
      positionParam: position,
      sortParam: 'sort',
      body,
      unpaged: 'first-page',
      pointer: pointer('limits', 'pagination'),
    },
  };
}

function integer(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}

function mostUsed(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0][0];
}

/**
 * The page body of the lists of the chosen style: the envelope most of them answer (or a bare
 * array), and for each list answering another its own (`page:` of the endpoint: Lago names each
 * list's records after them, `{add_ons: [...], meta: {...}}`). The envelope's members the
 * format's page has no place for are reported (Stripe's `has_more`: a page says its next
 * position, not a flag).
 */
function pageBodies(ctx: ImportContext, lists: readonly ListPaging[], style: Style): { body: PageBody; pages: Map<Operation, PageBody> } {
  const key = mostUsed(lists.map((l) => envelopeKey(l.envelope)));
  const chosen = lists.find((l) => envelopeKey(l.envelope) === key)!;
  const pages = new Map<Operation, PageBody>();
  for (const l of lists) {
    const where = `${l.op.method.toUpperCase()} ${l.op.path}`;
    if (envelopeKey(l.envelope) !== key) pages.set(l.op, bodyOf(l.envelope, style));
    if (l.envelope?.others.length) {
      report(ctx, IMPORT_CODES.pagingUnsayable, { where, what: `answers its page with ${l.envelope.others.map((n) => `'${n}'`).join(', ')} beside the records`, why: "the format's page holds the records, the next position, the total and (offset style) the offset" }, l.op.pointer);
    }
  }
  // The format's page ends with a null next; a document whose next is never null ends otherwise (Vultr: "").
  // The chosen body's list first, where it is one, else the first list of its own.
  const never = [chosen, ...lists].find((l) => l.envelope?.nextNeverNull !== undefined);
  if (never) report(ctx, IMPORT_CODES.pagingNextNeverNull, { where: `${never.op.method.toUpperCase()} ${never.op.path}`, member: never.envelope!.next! }, never.envelope!.nextNeverNull!);
  return { body: bodyOf(chosen.envelope, style), pages };
}

function bodyOf(e: Envelope | undefined, style: Style): PageBody {
  if (!e) return { kind: 'array' };
  return { kind: 'object', items: e.items, ...(e.next ? { next: e.next } : {}), ...(e.total ? { total: e.total } : {}), ...(e.offset && style === 'offset' ? { offset: e.offset } : {}) };
}

/** Without a stated pagination an envelope cannot be stated either: svcspec's own page is written, and that is said. */
function unstatedEnvelopes(ctx: ImportContext, lists: readonly Listed[]): void {
  for (const l of lists) {
    if (l.envelope) report(ctx, IMPORT_CODES.pagingBody, { where: `${l.op.method.toUpperCase()} ${l.op.path}`, envelope: describe(l.envelope) }, l.op.pointer);
  }
}

function describe(e: Envelope | undefined): string {
  if (!e) return 'a bare array';
  return `{${[e.items, e.next, e.total, e.offset, ...e.others].filter(Boolean).join(', ')}}`;
}
