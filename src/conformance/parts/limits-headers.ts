/**
 * Part 8's response fields, by their values and only where the spec states them:
 *
 *   rate.headers: ratelimit   RateLimit-Policy and RateLimit parse as RFC 9651 structured
 *                             fields (draft-ietf-httpapi-ratelimit-headers §3, §4); the policy's
 *                             quota `q` and window `w` are the declared limit and window of the
 *                             endpoint (its override's, where it has one); `r` is within 0..q and
 *                             `t` within 0..w
 *   pagination.links: [next]  every page but the last links the next (RFC 8288 §3); following
 *                             the link, as given, walks the same records as the positions do, and
 *                             each link keeps the query of the walk (its filters and sort)
 */
import { parseList } from 'structured-headers';
import { readPage } from '../../spec/conventions/pagination.ts';
import { isPlain } from '../../spec/conventions/paths.ts';
import { ratePolicyFields } from '../../spec/conventions/rate.ts';
import type { Endpoint, Resource } from '../../spec/model.ts';
import { Failure, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectSuccess } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { getPage, MAX_PAGES, pageParams, walk } from './list-walk.ts';

export async function checkLimitHeaders(ctx: TestContext, data: DataFactory): Promise<void> {
  await checkRateFields(ctx);
  await checkPageLinks(ctx, data);
}

async function checkRateFields(ctx: TestContext): Promise<void> {
  const rate = ctx.spec.limits.rate;
  if (!rate || rate.headers !== 'ratelimit') {
    ctx.skip('limits', 'rate-fields', 'RateLimit fields as stated', !rate ? 'the spec declares no rate limit' : rate.headers === 'none' ? 'the spec states no quota fields (headers: none)' : "the spec does not state the quota fields (limits.rate.headers): svcspec serve's RateLimit fields are its runtime default, not a promise", { kind: 'not-applicable' });
    return;
  }
  const policies = ratePolicyFields(ctx.spec);
  // Every policy a GET can reach without making anything: the main one's first list, each override's own.
  const probes = new Map<string, Endpoint>();
  for (const e of ctx.spec.endpoints) {
    if (e.method !== 'GET' || e.operation !== 'list' || !isPlain(e) || !ctx.principalFor(e) && e.auth && !e.auth.public) continue;
    const policy = policies.get(e.id);
    if (policy && !probes.has(policy.name)) probes.set(policy.name, e);
  }
  if (!probes.size) return ctx.skip('limits', 'rate-fields', 'RateLimit fields as stated', 'no rate-limited list endpoint can be called by the principals given');
  for (const [name, endpoint] of probes) {
    const policy = policies.get(endpoint.id)!;
    const w = Math.max(1, Math.ceil(policy.windowMs / 1000));
    const limit = name === 'default' ? rate : rate.overrides.find((o) => o.endpoint === endpoint.id) ?? rate;
    await ctx.check('limits', `rate-fields.${endpoint.id}`, `${endpoint.id}: RateLimit-Policy and RateLimit parse (RFC 9651) and say ${policy.limit} requests per ${w} s`, { pointer: limit.pointer, text: `${policy.limit} requests per ${policy.windowMs} ms; headers: ratelimit` }, async () => {
      const ex = await ctx.call('GET', endpoint.path, { as: ctx.principalFor(endpoint) ?? null });
      expectSuccess(endpoint, ex);
      const policyField = ex.response.headers['ratelimit-policy'];
      const field = ex.response.headers.ratelimit;
      if (!policyField || !field) throw new Failure(`the answer lacks ${!policyField ? 'RateLimit-Policy' : 'RateLimit'}`, ex);
      const policyItems = parsed(policyField, 'RateLimit-Policy', ex);
      const mine = policyItems.find(([, params]) => params.get('q') === policy.limit && params.get('w') === w);
      if (!mine) throw new Failure(`RateLimit-Policy '${policyField}' names no policy of q=${policy.limit};w=${w} (the declared ${policy.limit} requests per ${formatWindow(policy.windowMs)})`, ex);
      const items = parsed(field, 'RateLimit', ex);
      const now = items.find(([item]) => String(item) === String(mine[0])) ?? (items.length === 1 ? items[0] : undefined);
      if (!now) throw new Failure(`RateLimit '${field}' says nothing of the policy ${JSON.stringify(String(mine[0]))}`, ex);
      const r = now[1].get('r');
      const t = now[1].get('t');
      if (typeof r !== 'number' || !Number.isInteger(r) || r < 0 || r > policy.limit) throw new Failure(`RateLimit's r is ${JSON.stringify(r)}: not a count within 0..${policy.limit}`, ex);
      if (t !== undefined && (typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t > w)) throw new Failure(`RateLimit's t is ${JSON.stringify(t)}: not seconds within 0..${w}`, ex);
    });
  }
}

function formatWindow(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

type Item = readonly [unknown, Map<string, unknown>];

function parsed(value: string, name: string, ex: Exchange): Item[] {
  try {
    return parseList(value).filter((m): m is [unknown, Map<string, unknown>] => !Array.isArray(m[0])) as unknown as Item[];
  } catch (error) {
    throw new Failure(`${name} '${value}' is not a structured field list (RFC 9651 §4.2): ${(error as Error).message}`, ex);
  }
}

async function checkPageLinks(ctx: TestContext, data: DataFactory): Promise<void> {
  const links = ctx.spec.limits.pagination?.links;
  const pagination = ctx.spec.limits.pagination;
  if (!pagination || !links?.includes('next')) {
    ctx.skip('limits', 'page-links', 'pages link the next one', !pagination ? 'the spec declares no pagination' : links ? 'the spec states pages carry no next link' : "the spec does not state page links (limits.pagination.links): svcspec serve's Link is its runtime default, not a promise", { kind: 'not-applicable' });
    return;
  }
  const resource = ctx.spec.resources.find((r) => ctx.endpoint(r.name, 'list') && ctx.endpoint(r.name, 'create') && !r.owned) ?? ctx.spec.resources.find((r) => ctx.endpoint(r.name, 'list') && ctx.endpoint(r.name, 'create'));
  if (!resource) return ctx.skip('limits', 'page-links', 'pages link the next one', 'no resource has both a create and a list endpoint', { kind: 'not-applicable' });
  const list = ctx.endpoint(resource.name, 'list') as Endpoint;
  const sort = orderedSort(ctx, list, resource);
  await ctx.check('limits', `${resource.name}.page-links`, `${resource.name}: every page but the last links the next (Link: rel="next"); the links walk every record once, keeping the query${sort ? ` (${sort[1]})` : ''}`, { pointer: `${pagination.pointer}/links`, text: 'links: [next]' }, async () => {
    const p = pageParams(ctx);
    // Five records of its own to walk; where the create's quota is scarce, those the run made already count (a resource with no delete keeps them).
    const made = data.scarce(resource) && !ctx.endpoint(resource.name, 'delete') ? data.count(resource) : 0;
    for (let i = made; i < 5; i++) await data.create(resource);
    const extra: [string, string][] = sort ? [sort] : [];
    // Pages of about a quarter of what the run made (at least 2): several pages to link, and two walks that fit the list's quota however many records earlier checks made.
    const size = Math.min(p.askAtMost, Math.max(2, Math.ceil(data.count(resource) / 4)));
    const byPosition = await walk(ctx, resource, size, undefined, extra);
    const idField = data.idField(resource);
    // The first page as the walk asked for it; then only the links, as given.
    const query = new URLSearchParams([...extra, [p.size, String(size)]]);
    let page = await getPage(ctx, resource, query.toString());
    const seen: string[] = [];
    for (let n = 0; ; n++) {
      const ids = page.items.map((item) => String(item[idField]));
      const again = ids.find((id) => seen.includes(id));
      if (again) throw new Failure(`following the next link of page ${n} led to ${resource.name} '${again}' again: the link does not lead to the next page`, page.exchange);
      seen.push(...ids);
      const target = nextTarget(page.exchange.response.headers.link);
      const last = page.next === null;
      if (last && target) throw new Failure(`the last page (no next position) links a next page: ${target}`, page.exchange);
      if (!last && !target) throw new Failure('a page that is not the last carries no Link rel="next"', page.exchange);
      if (!target) break;
      if (n > MAX_PAGES) throw new Failure(`the links did not end within ${MAX_PAGES} pages`, page.exchange);
      const url = within(ctx, page.exchange, target);
      const kept = new URLSearchParams(url.slice(url.indexOf('?') + 1));
      for (const [k, v] of extra) if (kept.get(k) !== v) throw new Failure(`the next link ${target} drops ${k}=${v} of the walk`, page.exchange);
      const as = ctx.standIn(list, ctx.principalFor(list));
      const ex = await ctx.client.send('GET', url, { headers: ctx.address('', { as: as ?? null }).headers });
      // Sent as linked (not through ctx.call, which would add the version again), and counted against the list's quota all the same.
      ctx.quota.spent(list, as?.name, ex.response.status, ex.response.headers);
      expectSuccess(list, ex);
      page = { ...readLinked(ctx, ex, resource, list), exchange: ex };
    }
    const expected = byPosition.items.map((item) => String(item[idField]));
    const missing = expected.find((id) => !seen.includes(id));
    if (missing) throw new Failure(`following the links never reached ${resource.name} '${missing}', which the walk by position returned`, page.exchange);
  });
}

/** A declared sort on an ordered field, as a query pair, so the links must carry it. */
function orderedSort(ctx: TestContext, list: Endpoint, resource: Resource): [string, string] | undefined {
  const key = list.query?.sort.find((k) => {
    const f = ctx.fieldsOf(resource).find((x) => x.name === k);
    return f && (f.type === 'integer' || f.type === 'number');
  });
  return key ? [pageParams(ctx).settings.sortParam, `-${key}`] : undefined;
}

/** The target of a `rel="next"` link (RFC 8288 §3), as written. */
function nextTarget(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*(.*)$/.exec(part);
    if (m && /;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2])) return m[1];
  }
  return undefined;
}

/** The link resolved against the page it came on (RFC 3986 §5), as a path under the base URL. */
function within(ctx: TestContext, ex: Exchange, target: string): string {
  const base = new URL(ctx.client.baseUrl + '/');
  const url = new URL(target, new URL(ex.request.url, base));
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname.replace(/\/$/, ''))) throw new Failure(`the next link ${target} leads outside the service (${base.href})`, ex);
  return url.pathname.slice(base.pathname.replace(/\/$/, '').length) + url.search;
}

function readLinked(ctx: TestContext, ex: Exchange, resource: Resource, list: Endpoint): { items: readonly Record<string, unknown>[]; next: string | number | null } {
  const page = readPage(pageParams(ctx, list).settings, ex.response.json, ex.response.headers.link);
  if (typeof page === 'string') throw new Failure(`the linked page of ${resource.name}: ${page}`, ex);
  return { items: page.items as Record<string, unknown>[], next: page.next };
}
