/**
 * The list operation (part 8, pagination; filters and sorts per src/serve/list-query.ts).
 *
 * The page, the same for every resource:
 *   cursor style   { "items": [record...], "next": "<cursor>" | null }
 *   offset style   { "items": [record...], "offset": <offset of the first item>, "next": <offset> | null }
 * `next` is the value to send as the position parameter for the following page, null on
 * the last page. Items are presented as single reads are (writeOnly fields left out).
 *
 * When a page follows, `Link: <path?query>; rel="next"` (RFC 8288 §3) carries the full
 * relative URL of it (RFC 3986 §4.2): the same filters, sort and other parameters, the
 * effective size, and the next position.
 *
 * Cursor pages are keyset pages (src/serve/cursor.ts): the next page starts strictly after
 * the last record of this one in the sort order (insertion sequence breaking ties), so
 * records inserted during a walk never make it repeat or skip a record that existed when
 * the walk began. Offset pages carry no such promise (RFC-free, and the spec's choice).
 */
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Endpoint, Resource } from '../spec/model.ts';
import type { LeanListQuery, ListedRecord, ListQuery, ListResult, ScalarValue } from '../store/store.ts';
import { ownerOf } from './auth/ownership.ts';
import type { ServeContext } from './context.ts';
import { encodeCursor } from './cursor.ts';
import { EXPAND_PARAM } from '../spec/conventions/expand.ts';
import { linksNext, memberAt } from '../spec/conventions/pagination.ts';
import { expandPaths, expandRecords } from './expand.ts';
import { HttpError } from './errors.ts';
import { answered } from './limits/timeout.ts';
import { boundParents, parentsOf, type Parent } from './nesting.ts';
import { listPlan, parseListQuery, type ListPlan, type ListRequest } from './list-query.ts';
import { shapedPage } from './page-shapes.ts';
import { JSON_TYPE, JsonText, presentJsonList, type Outcome } from './representation.ts';

export interface CursorPage {
  readonly items: readonly Record<string, unknown>[];
  readonly next: string | null;
}

export interface OffsetPage {
  readonly items: readonly Record<string, unknown>[];
  readonly offset: number;
  readonly next: number | null;
}

export function listHandler(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  const resource = ctx.resources.get(endpoint.resource);
  if (!resource) throw new Error(`bug: list endpoint ${endpoint.id} of unknown resource ${endpoint.resource}`);
  const base = listPlan(ctx, resource, endpoint.query, endpoint.page);
  const plan = endpoint.expand ? { ...base, foreign: new Set([...base.foreign, EXPAND_PARAM]) } : base;
  const status = endpoint.responses.find((r) => r.status >= 200 && r.status < 300)?.status ?? 200;
  const parents = parentsOf(ctx, endpoint);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // Read first: a refused `expand` is refused before the page is read.
    const paths = endpoint.expand ? expandPaths(ctx, endpoint, resource, request) : undefined;
    const outcome = await listPage(ctx, plan, request, status, parents);
    if (answered(reply)) return reply; // the time-out answered meanwhile
    let text = (outcome.body as JsonText).text;
    if (paths) {
      // The rare path: the page built as text is read back, its items expanded.
      // In the page's declared shape (a bare array, or the records under their member).
      const page = JSON.parse(text) as Record<string, unknown>[] | Record<string, unknown>;
      const body = plan.settings.body;
      const items = (Array.isArray(page) ? page : memberAt(page, body.kind === 'object' ? body.items : 'items')) as Record<string, unknown>[];
      await expandRecords(ctx, resource, items, paths, request);
      if (answered(reply)) return reply;
      text = JSON.stringify(page);
    }
    // A deprecated version's `Link: <docs>; rel="deprecation"` is already set: the page's next link joins it (RFC 8288 §3), not replaces it.
    const before = reply.getHeader('link');
    const headers = typeof before === 'string' && outcome.headers.link ? { ...outcome.headers, link: `${before}, ${outcome.headers.link}` } : outcome.headers;
    return reply.code(outcome.status).headers(headers).type(JSON_TYPE).send(text);
  };
}

/** One page as data: the body, and the Link header when a page follows. */
export async function listPage(ctx: ServeContext, plan: ListPlan, request: FastifyRequest, status = 200, parents: readonly Parent[] = []): Promise<Outcome> {
  const { resource, settings } = plan;
  // A nested list (src/serve/nesting.ts): the parent must be there; only its children are listed.
  // A top-level list (the common one) has no parents: no await, no merge.
  const bound = parents.length ? await boundParents(ctx, parents, request) : undefined;
  const url = request.url;
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const parsed = parseListQuery(mark < 0 ? '' : url.slice(mark + 1), plan);
  // A filter on the ref that names another parent than the path's matches nothing.
  const contradicts = bound !== undefined && Object.entries(bound).some(([field, value]) => parsed.filter !== undefined && field in parsed.filter && parsed.filter[field] !== value);
  const q = bound !== undefined && Object.keys(bound).length ? { ...parsed, filter: nestedFilter(parsed.filter, bound) ?? {} } : parsed;
  if (plan.shaped) return shapedPage(ctx, plan, request, q, path, status, contradicts);
  // Object-level authorization: for an owned resource a client only ever pages its own records.
  // One shape of query object for every page (absent members undefined): the hot path.
  // `work`: a slow page still queued when the time-out answers is not read at all (store.ts).
  const query: LeanListQuery = { filter: q.filter, filters: q.filters, search: q.search, sort: q.sort, limit: q.size, owner: ownerOf(resource, request), after: q.after, offset: q.offset, lean: true, work: request.work };
  const result: ListResult<ListedRecord> = contradicts ? { records: [], hasMore: false } : await ctx.store.list(resource.name, query);
  // The page is built as text (CursorPage, OffsetPage): each item is what a read sends, so
  // the stored JSON of a record goes out without being parsed and serialized again.
  const headers: Record<string, string> = {};
  if (settings.style === 'offset') {
    const offset = q.offset ?? 0;
    const next = result.hasMore ? offset + result.records.length : null;
    if (next !== null && linksNext(settings)) headers.link = nextLink(path, q, settings.sizeParam, settings.positionParam, String(next));
    return { status, headers, body: new JsonText(presentJsonList(resource, result.records, '{"items":[', `],"offset":${offset},"next":${next}}`, result.plain)) };
  }
  const next = nextCursor(resource, q, result);
  if (next !== null && linksNext(settings)) headers.link = nextLink(path, q, settings.sizeParam, settings.positionParam, next);
  return { status, headers, body: new JsonText(presentJsonList(resource, result.records, '{"items":[', `],"next":${next === null ? 'null' : JSON.stringify(next)}}`, result.plain)) };
}

export function nextCursor(resource: Resource, q: ListRequest, result: ListResult<ListedRecord>): string | null {
  const last = result.records.at(-1);
  if (!result.hasMore || !last) return null;
  // Unsorted (a plain page): the position is the sequence alone, and the record's data is not read.
  const values: ScalarValue[] = [];
  for (const k of q.sort) {
    const v = (last.data[k.field] ?? null) as ScalarValue;
    if (v !== null && typeof v === 'object') throw new HttpError('internal', { detail: 'A sort field holds a structured value.' });
    values.push(v);
  }
  return encodeCursor(resource.name, q.sort, { values, seq: last.seq });
}

/** The query's filters and the path's parents: both must match. */
function nestedFilter(filter: ListQuery['filter'], bound: Readonly<Record<string, ScalarValue>>): ListQuery['filter'] {
  return Object.keys(bound).length ? { ...filter, ...bound } : filter;
}

/** Commas stay readable in links (RFC 3986 §2.2: a sub-delimiter, decoded as itself). */
function encode(s: string): string {
  const encoded = encodeURIComponent(s);
  // Nothing encoded (a name, a number, a cursor): the text as it is, no search for a comma.
  return encoded.length === s.length ? s : encoded.replace(/%2C/g, ',');
}

/** `<path?query>; rel="next"` (RFC 8288 §3), the query repeated with the next position. */
export function nextLink(path: string, q: ListRequest, sizeParam: string, positionParam: string, next: string): string {
  let query = '';
  for (const [k, v] of q.carried) query += `${encode(k)}=${encode(v)}&`;
  return `<${path}?${query}${encode(sizeParam)}=${encode(String(q.size))}&${encode(positionParam)}=${encode(next)}>; rel="next"`;
}
