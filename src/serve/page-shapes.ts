/**
 * List pages in the shapes a spec may declare besides the style's own (part 8,
 * `limits.pagination`: `style: page`, `body`, `unpaged`; src/spec/conventions/pagination.ts):
 *
 *   body: array                 a bare JSON array; the next page only in `Link: rel="next"`
 *   body: { items, next?, total?, offset? }   the records and the named members only, a
 *                               member inside another where named by a pointer (`/meta/next_page`)
 *   page: (a list's own)        the body of that list's pages, in place of the part's
 *   style: page                 `<position>=<n>` from 1; `next` the following page number
 *   unpaged: all                a request naming no position gets every record, as a bare
 *                               array (json-server without `_page`): what the spec states
 *
 * The style's own shapes keep their fast path in ./pagination.ts; this module is the general
 * one, with the same filters, sort, owner and Link header.
 */
import type { FastifyRequest } from 'fastify';
import type { LeanListQuery, ListedRecord, ListResult } from '../store/store.ts';
import { linksNext, pageText } from '../spec/conventions/pagination.ts';
import { ownerOf } from './auth/ownership.ts';
import type { ServeContext } from './context.ts';
import type { ListPlan, ListRequest } from './list-query.ts';
import { nextCursor, nextLink } from './pagination.ts';
import { JsonText, presentJsonList, type Outcome } from './representation.ts';

/** The largest batch read at once while gathering an unpaged list. */
const BATCH = 1000;

export async function shapedPage(ctx: ServeContext, plan: ListPlan, request: FastifyRequest, q: ListRequest, path: string, status: number, none = false): Promise<Outcome> {
  const { resource, settings } = plan;
  // `none`: a nested list whose filter names another parent than its path (./pagination.ts) matches nothing.
  // Lean: a page's items are made of each record's id and data (store.ts LeanListQuery).
  const list = (query: LeanListQuery): Promise<ListResult<ListedRecord>> => (none ? Promise.resolve({ records: [], hasMore: false }) : ctx.store.list(resource.name, query));
  const owner = ownerOf(resource, request);
  // `work`: a slow page or count still queued when the time-out answers is not read at all (store.ts).
  const conditions = { filter: q.filter, filters: q.filters, search: q.search, owner, work: request.work };
  if (settings.unpaged === 'all' && q.after === undefined && q.offset === undefined) {
    // Every record, as the spec states: gathered in batches so no one statement holds a huge result.
    const parts: string[] = [];
    for (let offset = 0; ; offset += BATCH) {
      const batch = await list({ ...conditions, sort: q.sort, limit: BATCH, offset, lean: true });
      if (batch.records.length) parts.push(presentJsonList(resource, batch.records, '', '', batch.plain));
      if (!batch.hasMore) break;
    }
    return { status, headers: {}, body: new JsonText(`[${parts.join(',')}]`) };
  }
  const query: LeanListQuery = { ...conditions, sort: q.sort, limit: q.size, after: q.after, offset: q.offset, lean: true };
  const result = await list(query);
  const next = nextPosition(plan, q, result);
  const headers: Record<string, string> = {};
  if (next !== null && linksNext(settings)) headers.link = nextLink(path, q, settings.sizeParam, settings.positionParam, String(next));
  const items = presentJsonList(resource, result.records, '', '', result.plain);
  const body = settings.body;
  if (body.kind === 'array') return { status, headers, body: new JsonText(`[${items}]`) };
  // Members may sit inside others (`/meta/next_page`): pageText nests them.
  const members: [string, string][] = [[body.items, `[${items}]`]];
  if (body.offset !== undefined) members.push([body.offset, String(q.offset ?? 0)]);
  if (body.next !== undefined) members.push([body.next, JSON.stringify(next)]);
  if (body.total !== undefined) members.push([body.total, String(none ? 0 : await ctx.store.count(resource.name, conditions))]);
  return { status, headers, body: new JsonText(pageText(members)) };
}

/** The next position in the style: a cursor, an offset, or a page number; null on the last page. */
function nextPosition(plan: ListPlan, q: ListRequest, result: ListResult<ListedRecord>): string | number | null {
  if (!result.hasMore) return null;
  const { settings } = plan;
  const offset = q.offset ?? 0;
  if (settings.style === 'offset') return offset + result.records.length;
  // Page n starts at (n - 1) * size, so the next page number follows from the offset.
  if (settings.style === 'page') return Math.floor(offset / q.size) + 2;
  return nextCursor(plan.resource, q, result);
}
