/**
 * Walking a resource's list through its pages, as the format's page shape says:
 * `{items, next}` (cursor) or `{items, offset, next}` (offset), `next` sent back as the
 * position parameter. Bounded, so a list that never ends fails instead of hanging.
 */
import { pageSettings } from '../../spec/conventions/pagination.ts';
import type { Resource } from '../../spec/model.ts';
import { Failure, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectSuccess, isObject } from '../expect.ts';
import type { Exchange } from '../http.ts';

export const MAX_PAGES = 200;

/**
 * The page settings the tester holds a list to: the format's convention (the safety default
 * when the spec is silent, src/spec/conventions/pagination.ts), as serve and export read it.
 */
export function pageParams(ctx: TestContext): { size: string; position: string; defaultSize: number; maxSize: number; overMax: 'clamp' | 'reject' } {
  const p = pageSettings(ctx.spec);
  return { size: p.sizeParam, position: p.positionParam, defaultSize: p.defaultSize, maxSize: p.maxSize, overMax: p.overMax };
}

export interface Page {
  readonly items: readonly Record<string, unknown>[];
  readonly next: string | number | null;
  readonly exchange: Exchange;
}

export async function getPage(ctx: TestContext, resource: Resource, query: string, as?: Principal): Promise<Page> {
  const list = ctx.endpoint(resource.name, 'list');
  if (!list) throw new Failure(`${resource.name} has no list endpoint`);
  const ex = await ctx.call('GET', `${list.path}${query ? `?${query}` : ''}`, { as: as ?? ctx.principalFor(list) ?? null });
  expectSuccess(list, ex);
  const body = ex.response.json;
  if (!isObject(body) || !Array.isArray(body.items)) throw new Failure(`the list of ${resource.name} is not a page {items, next}`, ex);
  const next = body.next;
  if (next !== null && typeof next !== 'string' && typeof next !== 'number') throw new Failure(`the page's 'next' is ${JSON.stringify(next)}, not a position or null`, ex);
  return { items: body.items as Record<string, unknown>[], next, exchange: ex };
}

/** Every item of the list, page by page, with the page each came on. */
export async function walk(ctx: TestContext, resource: Resource, size?: number, as?: Principal): Promise<{ items: Record<string, unknown>[]; pages: Page[] }> {
  const p = pageParams(ctx);
  const items: Record<string, unknown>[] = [];
  const pages: Page[] = [];
  let position: string | number | null = null;
  do {
    const params = new URLSearchParams();
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
  if (!ctx.endpoint(resource.name, 'list')) return undefined;
  const { items, pages } = await walk(ctx, resource, undefined, as);
  const idField = data.idField(resource);
  const item = items.find((i) => String(i[idField]) === id);
  return item ? { item, exchange: pages.at(-1)!.exchange } : undefined;
}
