/**
 * The format's pagination convention (part 8): the settings a list runs with, the names of
 * its parameters and the body of a page. Read by serve (to answer), export (to describe) and
 * the tester (to page), so the three cannot drift. docs/format.md "Pagination" is the
 * reader's copy.
 *
 * The page body by style, unless `limits.pagination.body` says otherwise:
 *   cursor   { "items": [...], "next": "<cursor>" | null }
 *   offset   { "items": [...], "offset": <offset of the first item>, "next": <offset> | null }
 *   page     { "items": [...], "next": <page number> | null }
 * `body: array` sends a bare array; the next page is then linked only by
 * `Link: <…>; rel="next"` (RFC 8288 §3), as every style also sends it.
 *
 * A member is named plainly (`next`) or by a JSON Pointer (RFC 6901) into the page, for a
 * member inside another (`/meta/next_page`, Lago's `{add_ons: [...], meta: {next_page}}`).
 * A list endpoint may state a page body of its own (`page:`), in place of the part's: the
 * records of each list under a member named after them.
 */
import { SAFETY } from '../defaults.ts';
import type { Endpoint, Limits, PageBody, Spec } from '../model.ts';
import { parsePointer } from '../pointer.ts';

/** The query parameter that orders a list unless the spec renames it: `sort=title,-pages`. */
export const SORT_PARAM = 'sort';

/**
 * The pagination a list runs with: the spec's, its sizes filled where it leaves them unsaid
 * (the safety bound, src/spec/defaults.ts), and which of them it states. A size the spec does
 * not state is the runtime's: serve pages by it, and no implementation is held to it.
 */
export type PageSettings = Omit<NonNullable<Limits['pagination']>, 'pointer' | 'defaultSize' | 'maxSize' | 'overMax'> & {
  readonly defaultSize: number;
  readonly maxSize: number;
  readonly overMax: 'clamp' | 'reject';
  readonly stated: { readonly defaultSize: boolean; readonly maxSize: boolean; readonly overMax: boolean };
};

const UNSTATED = { defaultSize: false, maxSize: false, overMax: false } as const;

export function defaultPageBody(style: 'cursor' | 'offset' | 'page'): PageBody {
  return style === 'offset' ? { kind: 'object', items: 'items', offset: 'offset', next: 'next' } : { kind: 'object', items: 'items', next: 'next' };
}

/** Whether pages link the next one in `Link`: as stated, else yes (the runtime default, src/spec/conventions/promises.ts). */
export function linksNext(settings: PageSettings): boolean {
  return settings.links === undefined || settings.links.includes('next');
}

/** Whether a page body is the style's own (the reference's fast path writes those). */
export function isDefaultBody(settings: Pick<PageSettings, 'style' | 'body'>): boolean {
  const d = defaultPageBody(settings.style);
  const b = settings.body;
  return b.kind === 'object' && d.kind === 'object' && b.items === d.items && b.next === d.next && b.offset === d.offset && b.total === undefined;
}

/**
 * The spec's pagination, or the documented safety default when the spec is silent
 * (src/spec/defaults.ts): cursor pages of SAFETY.pageSize, default and maximum, clamped,
 * with the format's default parameter names.
 */
export function pageSettings(spec: Spec, endpoint?: Pick<Endpoint, 'page'>): PageSettings {
  const settings = partSettings(spec);
  // A list's own page body stands in for the part's (docs/format.md "Page shapes").
  return endpoint?.page ? { ...settings, body: endpoint.page } : settings;
}

function partSettings(spec: Spec): PageSettings {
  const p = spec.limits.pagination;
  if (!p) return { style: 'cursor', defaultSize: SAFETY.pageSize, maxSize: SAFETY.pageSize, overMax: 'clamp', sizeParam: 'limit', positionParam: 'cursor', sortParam: SORT_PARAM, body: defaultPageBody('cursor'), unpaged: 'first-page', stated: UNSTATED };
  // A size the spec leaves unsaid (the part is partial, check says so): the safety bound stands in.
  const stated = { defaultSize: p.defaultSize !== undefined && p.defaultSize >= 1, maxSize: p.maxSize !== undefined && p.maxSize >= 1, overMax: p.overMax !== undefined };
  // Unstated, the largest size is the safety bound, or the stated default where that is larger: a stated default is never cut.
  const maxSize = stated.maxSize ? p.maxSize! : Math.max(SAFETY.pageSize, stated.defaultSize ? p.defaultSize! : 0);
  const defaultSize = stated.defaultSize ? Math.min(p.defaultSize!, maxSize) : Math.min(SAFETY.pageSize, maxSize);
  return { style: p.style, defaultSize, maxSize, overMax: p.overMax ?? 'clamp', sizeParam: p.sizeParam, positionParam: p.positionParam, sortParam: p.sortParam, body: p.body, unpaged: p.unpaged, ...(p.links ? { links: p.links } : {}), stated };
}

/** A page as a client reads it: the records, the next position (null on the last page), the total when the body has one. */
export interface ReadPage {
  readonly items: readonly unknown[];
  readonly next: string | number | null;
  readonly total?: number;
}

/**
 * Reads a page body as the settings declare it; the `Link` header's next URL stands in for a
 * body without a `next` member. Returns a message where the body is not such a page.
 */
export function readPage(settings: PageSettings, body: unknown, link: string | undefined): ReadPage | string {
  // An empty position addresses no page, linked or in the body (below): the last page.
  const linked = nextFromLink(link, settings.positionParam) || null;
  if (settings.body.kind === 'array') {
    if (!Array.isArray(body)) return 'the list is not a bare JSON array, as the spec declares';
    return { items: body, next: linked };
  }
  const b = settings.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return `the list is not a page {${[b.items, b.next, b.total].filter(Boolean).join(', ')}}`;
  const items = memberAt(body, b.items);
  if (!Array.isArray(items)) return `the page has no '${b.items}' list`;
  let next: string | number | null = linked;
  if (b.next !== undefined) {
    const n = memberAt(body, b.next);
    if (n !== null && typeof n !== 'string' && typeof n !== 'number') return `the page's '${b.next}' is ${JSON.stringify(n)}, not a position or null`;
    // An empty position addresses no page: the last page, as Vultr marks it (`"next": ""`, its
    // schema a string that is never null). Read so, a walk ends there rather than starting over.
    next = n === '' ? null : (n as string | number | null);
  }
  if (b.total === undefined) return { items, next };
  const total = memberAt(body, b.total);
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) return `the page's '${b.total}' is ${JSON.stringify(total)}, not a count`;
  return { items, next, total };
}

/**
 * The path of a page member as the spec writes it: a plain name is the page's own member, a
 * JSON Pointer (RFC 6901, `/meta/next_page`) one inside another.
 */
export function memberPath(member: string): readonly string[] {
  return member.startsWith('/') ? parsePointer(member) : [member];
}

/** The value of a page member (memberPath), or undefined where the page has none. */
export function memberAt(page: unknown, member: string): unknown {
  let at: unknown = page;
  for (const token of memberPath(member)) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}

/**
 * A page's JSON text from the texts of its members (each already JSON), nested where a member
 * is a pointer: `{"add_ons":[…],"meta":{"next_page":2,"total_count":70}}`. Members are written
 * in the order given.
 */
export function pageText(members: readonly (readonly [member: string, json: string])[]): string {
  interface Node { readonly keys: Map<string, Node | string> }
  const root: Node = { keys: new Map() };
  for (const [member, json] of members) {
    const path = memberPath(member);
    let node = root;
    for (const token of path.slice(0, -1)) {
      let next = node.keys.get(token);
      // A member named both as a value and as a holder of others is a conflict `check` refuses (pagination-body-members-conflict).
      if (typeof next === 'string') break;
      if (!next) node.keys.set(token, (next = { keys: new Map() }));
      node = next;
    }
    node.keys.set(path[path.length - 1], json);
  }
  const write = (node: Node): string => `{${[...node.keys].map(([k, v]) => `${JSON.stringify(k)}:${typeof v === 'string' ? v : write(v)}`).join(',')}}`;
  return write(root);
}

/** The members a page body names, by their role, for the rules that hold them apart. */
export function bodyMembers(body: PageBody): readonly (readonly [role: 'items' | 'next' | 'total' | 'offset', member: string])[] {
  if (body.kind !== 'object') return [];
  return (['items', 'next', 'total', 'offset'] as const).flatMap((role) => (body[role] === undefined ? [] : [[role, body[role]!] as const]));
}

/** The position parameter of the `rel="next"` target of a Link field (RFC 8288 §3), if any. */
export function nextFromLink(link: string | undefined, positionParam: string): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*(.*)$/.exec(part);
    if (!m || !/;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2])) continue;
    const q = m[1].indexOf('?');
    if (q < 0) return null;
    return new URLSearchParams(m[1].slice(q + 1)).get(positionParam);
  }
  return null;
}
