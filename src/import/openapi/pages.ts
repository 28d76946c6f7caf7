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
import { child, parsePointer, pointer } from '../../spec/pointer.ts';
import { componentOf, isObject, resolve, type ImportContext, type Json } from './context.ts';
import { mergeAllOf } from './schema.ts';
import { sameName } from './paths.ts';

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
  /** The next position's schema allows no null (Vultr's `next: string`, "" on the last page): where it stands. */
  readonly nextNeverNull?: string;
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
    if (!p || p.node.type !== 'array') return [];
    const ref = componentOf(p.node.items);
    // An inline listing only under its records' own plural: `items` of {sku, qty} may as well be a cart's lines.
    const listing = ref === undefined && !ITEMS.has(name) ? listingOf(ctx, name, p.node.items) : undefined;
    const records = ref ?? listing;
    return records === undefined ? [] : [[name, records, listing !== undefined] as const];
  });
  if (arrays.length !== 1) return undefined;
  const [items, component, inline] = arrays[0];
  const names = members.map(([n]) => n);
  // A member holding the page's position or count inside it (Lago's `meta: {next_page, total_count, …}`,
  // Vultr's `meta: {total, links: {next, prev}}`): the paths inside it, each a JSON Pointer from the page.
  const holder = members.map(([n, v]) => ({ name: n, inner: n === items ? [] : pageMembersOf(ctx, v, child(r.pointer, 'properties', n)).map((path) => pointer(n, ...path)) })).find((m) => m.inner.some((x) => NEXT.has(last(x)) || TOTAL.has(last(x))));
  // The array named as lists name theirs, or after its records with nothing beside it but a
  // page's members (RealWorld's `{articles: [Article], articlesCount}`; Museum's event, with
  // its `dates` beside a name and a price, stays a record).
  const pageMember = (n: string) => n === items || n === holder?.name || NEXT.has(n) || TOTAL.has(n) || n === 'offset' || n === `${items}Count` || n === `${items}_count`;
  // Inline items (a listing, listingOf) with nothing but a page's members beside them.
  const named = namedAfter(items, component) || wrapperMembers(ctx, component).some((m) => namedAfter(items, m));
  if ((!ITEMS.has(items) || inline) && !(named && names.every(pageMember))) return undefined;
  // A member of the page's own first; else one inside the holder, named by a JSON Pointer (RFC 6901).
  const next = names.find((n) => NEXT.has(n)) ?? holder?.inner.find((x) => NEXT.has(last(x)));
  const total = names.find((n) => TOTAL.has(n) || n === `${items}Count` || n === `${items}_count`) ?? holder?.inner.find((x) => TOTAL.has(last(x)));
  const offset = names.includes('offset') ? 'offset' : undefined;
  const others = [
    ...names.filter((n) => n !== items && n !== next && n !== total && n !== offset && n !== holder?.name),
    ...(holder ? holder.inner.filter((x) => x !== next && x !== total) : []),
  ];
  const neverNull = next !== undefined ? neverNullAt(ctx, node, r.pointer, next) : undefined;
  return { component, envelope: { items, ...(next ? { next } : {}), ...(total ? { total } : {}), ...(offset ? { offset } : {}), others, ...(neverNull ? { nextNeverNull: neverNull } : {}) } };
}

/** Where the member at `member` (a name or a pointer) of a page schema is typed without null, its place; else undefined. */
function neverNullAt(ctx: ImportContext, node: Json, at: string, member: string): string | undefined {
  let here: Json = node;
  let place = at;
  const path = member.startsWith('/') ? parsePointer(member) : [member];
  for (const [i, token] of path.entries()) {
    if (!isObject(here.properties)) return undefined;
    const r = resolve(ctx, here.properties[token], child(place, 'properties', token));
    if (!r) return undefined;
    here = i < path.length - 1 ? mergeAllOf({ ctx, resources: new Map() }, r.node, r.pointer) : r.node;
    place = r.pointer;
  }
  const t = here.type;
  const types = Array.isArray(t) ? t : [t];
  // A text that is never null ends with "" (Vultr); a never-null number has no such end to read, and is not this case.
  return types.length && !types.includes('null') && here.nullable !== true && types.every((x) => x === 'string') ? place : undefined;
}

/**
 * The names a record goes by in the wrappers holding it alone (Lago's `Customer: {customer:
 * CustomerObjectExtended}`): a list of it may be named after those (`customers`).
 */
function wrapperMembers(ctx: ImportContext, component: string): readonly string[] {
  // Read once a document: every list envelope asks, and a document has hundreds of schemas (Lago's 500).
  let byComponent = wrappers.get(ctx.doc);
  if (!byComponent) {
    byComponent = new Map();
    const schemas = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {};
    for (const schema of Object.values(schemas)) {
      if (!isObject(schema) || !isObject(schema.properties)) continue;
      const members = Object.entries(schema.properties);
      const held = members.length === 1 ? componentOf(members[0]![1]) : undefined;
      if (held !== undefined) byComponent.set(held, [...(byComponent.get(held) ?? []), members[0]![0]]);
    }
    wrappers.set(ctx.doc, byComponent);
  }
  return byComponent.get(component) ?? [];
}

const wrappers = new WeakMap<object, Map<string, string[]>>();

/** The last token of a JSON Pointer. */
const last = (p: string): string => parsePointer(p).at(-1) ?? '';

/** The links a page's metadata may hold beside the next one (Vultr's `meta.links: {next, prev}`). */
const PAGE_LINKS: ReadonlySet<string> = new Set(['prev', 'previous', 'first', 'last', 'self']);

/** What a page's metadata holds besides the next position and the count (Lago's `meta`, Rails' kaminari). */
const PAGE_META: ReadonlySet<string> = new Set(['current_page', 'currentPage', 'prev_page', 'prevPage', 'previous_page', 'total_pages', 'totalPages', 'page', 'per_page', 'perPage', 'page_size', 'pageSize', 'limit', 'offset', 'count', 'has_more', 'hasMore', 'has_next', 'hasNext', 'prev', 'previous', 'prev_cursor', 'previous_cursor']);

/**
 * The paths of the members of an object member that is a page's metadata (`meta: {next_page,
 * total_count, current_page, …}`, or `meta: {total, links: {next, prev}}`): every member one a
 * page has, the next position typed as one (a number, a text or null), the count a whole
 * number, the links an object of links only. Anything else (a forecast's `meta: {city,
 * total}`, rain in mm) is no page's, and the object around it a record: none.
 */
function pageMembersOf(ctx: ImportContext, schema: unknown, at: string, links = false): string[][] {
  const r = resolve(ctx, schema, at);
  if (!r) return [];
  const node: Json = mergeAllOf({ ctx, resources: new Map() }, r.node, r.pointer);
  if (!isObject(node.properties) || (node.type !== undefined && node.type !== 'object')) return [];
  const members = Object.entries(node.properties);
  const types = (name: string, v: unknown): string[] => {
    const m = resolve(ctx, v, child(r.pointer, 'properties', name));
    const t = m?.node.type;
    return (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === 'string' && x !== 'null');
  };
  const out: string[][] = [];
  for (const [name, v] of members) {
    const t = types(name, v);
    if (NEXT.has(name) && t.length > 0 && t.every((x) => x === 'integer' || x === 'string')) out.push([name]);
    else if (!links && TOTAL.has(name) && t.length === 1 && t[0] === 'integer') out.push([name]);
    else if (links ? PAGE_LINKS.has(name) : PAGE_META.has(name)) out.push([name]);
    // One level down, the links of the page (`links: {next, prev}`), and nothing else.
    else if (!links && name === 'links' && t.every((x) => x === 'object')) {
      const inner = pageMembersOf(ctx, v, child(r.pointer, 'properties', name), true);
      // Links without the next one are a record's own (`links: {self}`), not a page's.
      if (!inner.some((p) => NEXT.has(p.at(-1)!))) return [];
      out.push(...inner.map((p) => [name, ...p]));
    } else return [];
  }
  return out;
}

/**
 * Inline items that are a listing of a record schema: the array is named after the component
 * (`articles`, `Article`) and every property of an item is one of the component's (a list
 * that leaves the heavy members out, RealWorld's articles without their body).
 */
function listingOf(ctx: ImportContext, member: string, items: unknown): string | undefined {
  if (!isObject(items) || componentOf(items) !== undefined || !isObject(items.properties)) return undefined;
  const schemas = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {};
  const listed = Object.keys(items.properties);
  for (const [name, schema] of Object.entries(schemas)) {
    if (!namedAfter(member, name)) continue;
    const r = resolve(ctx, schema, child('/components/schemas', name));
    const node = r && mergeAllOf({ ctx, resources: new Map() }, r.node, r.pointer);
    if (node && isObject(node.properties) && listed.every((p) => p in (node.properties as object))) return name;
  }
  return undefined;
}

/** Whether `member` is the component's name, in any case or with separators (`blogPost`, `blog_post`, `BlogPost`). */
export function namesComponent(member: string, component: string): boolean {
  const plain = (x: string) => x.replace(/[-_\s]/g, '').toLowerCase();
  return plain(member) === plain(component);
}

/** Whether `member` is the plural of the component's name (`articles` of `Article`, `blog_posts` of `BlogPost`): ./paths.ts sameName, not the name itself. */
function namedAfter(member: string, component: string): boolean {
  // A schema named for being one (`AddOnObject`, `UserModel`) names the record without the word: `add_ons` lists it.
  const record = component.replace(/(?<=.)(Object|Model|Schema|Entity|Resource)$/, '');
  return [component, record].some((name) => sameName(member, name) && !namesComponent(member, name));
}

/** Members that wrap whatever a body holds, never a record named by its wrapper. */
const GENERIC_MEMBERS: ReadonlySet<string> = new Set(['data', 'error', 'errors', 'result', 'results', 'item', 'items', 'value', 'values', 'payload', 'response', 'body', 'content']);

/**
 * A record envelope (`{"article": Article}`: RealWorld's API, Rails' JSON root, JSON:API's
 * `{data: …}`): an object of exactly one member, which is a record schema of the components.
 * The format states it as the resource's `envelope` (src/spec/conventions/envelope.ts).
 */
/**
 * `anyName`: a request body's, whose record schema is often one of its own (`{article:
 * NewArticle}`); the caller then holds the member to the resource's name.
 */
export function recordEnvelopeOf(ctx: ImportContext, schema: unknown, at: string, anyName = false, own?: string): { component?: string; member: string; schema: unknown; at: string } | undefined {
  // Inline or a component of its own (`SingleArticleResponse`); a record whose one member is
  // another record would read so too: no such record was met in the documents imported so far.
  const r = resolve(ctx, schema, at);
  if (!r) return undefined;
  const node: Json = mergeAllOf({ ctx, resources: new Map() }, r.node, r.pointer);
  if (!isObject(node.properties) || (node.type !== undefined && node.type !== 'object')) return undefined;
  const members = Object.entries(node.properties);
  if (members.length !== 1) return undefined;
  const [member, value] = members[0]!;
  const component = componentOf(value);
  // `own`: the component's name, where `schema` is its definition rather than a reference to it.
  const wrapper = componentOf(schema) ?? own;
  // Or the wrapper and its member are named alike, the record under another name (Lago's
  // `AddOn: {add_on: AddOnObject}`): the wrapper names the record it holds.
  // Not a generic member (`Data: {data: X}`, `Error: {error: ErrorBody}`): those name no record.
  const namedByWrapper = wrapper !== undefined && namesComponent(member, wrapper) && !GENERIC_MEMBERS.has(member.toLowerCase());
  // A request's body may hold its record inline (Lago's `{customer: {external_id, …}}`); the caller holds the member to the resource's name.
  if (component === undefined) {
    if (!anyName) return undefined;
  } else if (!anyName) {
    // Named for its record (`article` holding Article, `blog_post` BlogPost): a team whose one member is its address stays a team.
    if (!namesComponent(member, component) && !namedByWrapper) return undefined;
    // A wrapper that is a component of its own is named for its record (`ArticleResponse`,
    // `SingleArticle`): a `Team` whose one member is its `address` is a team.
    if (wrapper !== undefined && !namedByWrapper && !wrapper.toLowerCase().includes(component.toLowerCase())) return undefined;
  }
  const inner = child(r.pointer, 'properties', member);
  const target = resolve(ctx, value, inner);
  if (!target || target.node.type === 'array' || (target.node.type !== undefined && target.node.type !== 'object')) return undefined;
  if (component === undefined && !isObject(target.node.properties)) return undefined;
  return { ...(component !== undefined ? { component } : {}), member, schema: value, at: inner };
}

/** The envelope as the format's page body: its members, without those it has no place for. */
export function envelopeKey(e: Envelope | undefined): string {
  return e ? JSON.stringify([e.items, e.next ?? null, e.total ?? null, e.offset ?? null]) : 'array';
}
