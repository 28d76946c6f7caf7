/**
 * Walking a resource's list through its pages, as the spec's page shape says (the format's
 * convention, read by serve and export alike: src/spec/conventions/pagination.ts): the
 * records in the body's items member (or a bare array), the next position in its `next`
 * member or, without one, in the `Link: rel="next"` target, sent back as the position
 * parameter. Bounded, so a list that never ends fails instead of hanging.
 */
import { isNested } from '../../spec/conventions/paths.ts';
import { pageSettings, readPage, type PageSettings } from '../../spec/conventions/pagination.ts';
import type { Endpoint, Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectSuccess } from '../expect.ts';
import type { Exchange } from '../http.ts';

export const MAX_PAGES = 200;

/**
 * The page settings the tester holds a list to: the format's convention (the safety default
 * when the spec is silent), as serve and export read it.
 */
export function pageParams(ctx: TestContext, list?: Pick<Endpoint, 'page'>): { size: string; position: string; defaultSize: number; maxSize: number; overMax: 'clamp' | 'reject'; askAtMost: number; settings: PageSettings } {
  // A list's own page body (its `page:`) stands in for the part's.
  const p = pageSettings(ctx.spec, list);
  // The largest size the tester asks for: the stated maximum; without one, the stated default, else
  // a modest ten, so that an implementation's own unstated maximum is not what a walk runs into.
  const askAtMost = p.stated.maxSize ? p.maxSize : p.stated.defaultSize ? p.defaultSize : Math.min(10, p.maxSize);
  return { size: p.sizeParam, position: p.positionParam, defaultSize: p.defaultSize, maxSize: p.maxSize, overMax: p.overMax, askAtMost, settings: p };
}

export interface Page {
  readonly items: readonly Record<string, unknown>[];
  readonly next: string | number | null;
  readonly total?: number;
  readonly exchange: Exchange;
}

/**
 * One page. Where the spec says a request without a position gets every record as a bare
 * array (`unpaged: all`), a page is asked for by its first position, so the page's own
 * shape is what is read.
 */
export async function getPage(ctx: TestContext, resource: Resource, query: string, as?: Principal): Promise<Page> {
  const list = ctx.endpoint(resource.name, 'list');
  if (!list) throw new Failure(`${resource.name} has no list endpoint`);
  const settings = pageSettings(ctx.spec, list);
  const first = settings.unpaged === 'all' && !new URLSearchParams(query).has(settings.positionParam) ? firstPosition(settings) : undefined;
  const q = first === undefined ? query : [query, `${encodeURIComponent(settings.positionParam)}=${first}`].filter(Boolean).join('&');
  const ex = await ctx.call('GET', `${list.path}${q ? `?${q}` : ''}`, { as: as ?? ctx.principalFor(list) ?? null });
  try {
    expectSuccess(list, ex);
  } catch (error) {
    // Answering in another content type is one defect of the list, not one of every check that walks it.
    if (error instanceof Failure && ex.response.status < 300 && /answered with content type/.test(error.message)) throw ctx.contentTypeFinding(list, error);
    throw error;
  }
  const page = readPage(settings, ex.response.json, ex.response.headers.link);
  // Unstated, svcspec's page is the runtime's default, not the spec's promise (the proxy holds no one to it either):
  // a list in another shape cannot be read, so what needs it is not checked, saying so.
  if (typeof page === 'string' && !ctx.spec.limits.pagination && !list.page) throw new Skip(`the list of ${resource.name} is not svcspec's page (${page}), and the spec states no pagination to read it by`, { needs: 'limits.pagination in the spec: the page body this service answers (docs/format.md, page shapes)' });
  if (typeof page === 'string') throw new Failure(`the list of ${resource.name}: ${page}`, ex);
  if (!page.items.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i))) throw new Failure(`the list of ${resource.name} holds items that are not records`, ex);
  return { items: page.items as Record<string, unknown>[], next: page.next, ...(page.total !== undefined ? { total: page.total } : {}), exchange: ex };
}

/** The position of the first page: 0 for offsets, 1 for page numbers; cursor lists have none to send. */
function firstPosition(settings: PageSettings): string | undefined {
  return settings.style === 'offset' ? '0' : settings.style === 'page' ? '1' : undefined;
}

/** Every item of the list, page by page, with the page each came on. */
export async function walk(ctx: TestContext, resource: Resource, size?: number, as?: Principal, extra: readonly (readonly [string, string])[] = []): Promise<{ items: Record<string, unknown>[]; pages: Page[] }> {
  const p = pageParams(ctx);
  const items: Record<string, unknown>[] = [];
  const pages: Page[] = [];
  let position: string | number | null = null;
  do {
    const params = new URLSearchParams(extra.map(([k, v]): [string, string] => [k, v]));
    if (size !== undefined) params.set(p.size, String(size));
    if (position !== null) params.set(p.position, String(position));
    const page = await getPage(ctx, resource, params.toString(), as);
    pages.push(page);
    items.push(...page.items);
    position = page.next;
    if (pages.length > MAX_PAGES) throw new Failure(`the list of ${resource.name} did not end within ${MAX_PAGES} pages`, page.exchange);
  } while (position !== null);
  return { items, pages };
}

/** The item with this id in the list, if listed (and the list exists). */
export async function findInList(ctx: TestContext, data: DataFactory, resource: Resource, id: string, as?: Principal): Promise<{ item: Record<string, unknown>; exchange: Exchange } | undefined> {
  const list = ctx.endpoint(resource.name, 'list');
  // A list reached only through a parent (`/customers/{customer_id}/orders`) holds one parent's
  // records; the checks that look a record up (never to require it) then rest on its read.
  if (!list || isNested(list)) return undefined;
  const { items, pages } = await walk(ctx, resource, undefined, as);
  const idField = data.idField(resource);
  const item = items.find((i) => String(i[idField]) === id);
  return item ? { item, exchange: pages.at(-1)!.exchange } : undefined;
}
