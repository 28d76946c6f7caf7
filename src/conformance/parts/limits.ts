/**
 * Part 8: limits. Pagination as declared: pages hold at most the default size, a walk of
 * the whole list returns each record exactly once, a size above the maximum is clamped or
 * refused as declared (records are made until the list holds more than the bound, so a short
 * list cannot pass for a bound kept); a body above the declared size is 413; rate limits give 429 with
 * `Retry-After` and the RateLimit fields (opt-in, `--include rate-limits`: it spends a quota).
 */
import { statusAs } from './errors.ts';
import { isPlain } from '../../spec/conventions/paths.ts';
import type { Resource } from '../../spec/model.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError } from '../expect.ts';
import { checkLimitHeaders } from './limits-headers.ts';
import type { Exchange } from '../http.ts';
import { readRateLimit, readRatePolicy } from '../quota.ts';
import { getPage, pageParams, walk, type Page } from './list-walk.ts';

export async function checkLimits(ctx: TestContext, data: DataFactory): Promise<void> {
  const p = pageParams(ctx);
  // Any listed resource shows the pages: an unowned one, and of those the one whose creates the quota can best spare.
  const listed = ctx.spec.resources.filter((r) => ctx.endpoint(r.name, 'list') && ctx.endpoint(r.name, 'create'));
  const pick = (rs: typeof listed) => {
    const e = ctx.roomiest(rs.map((r) => ctx.endpoint(r.name, 'create')!));
    return rs.find((r) => ctx.endpoint(r.name, 'create') === e);
  };
  const resource = pick(listed.filter((r) => !r.owned)) ?? pick(listed);
  const pagination = ctx.spec.limits.pagination;
  if (!resource || !pagination) {
    ctx.skip('limits', 'pagination', 'pages as declared', !pagination ? 'the spec declares no pagination' : 'no resource has both a create and a list endpoint', { kind: 'not-applicable' });
  } else {
    await checkPagination(ctx, data, resource, p);
  }
  await checkBodySize(ctx);
  await checkLimitHeaders(ctx, data);
  await checkRateLimit(ctx);
}

async function checkPagination(ctx: TestContext, data: DataFactory, resource: Resource, p: ReturnType<typeof pageParams>): Promise<void> {
  const s = p.settings.stated;
  const rule = { pointer: ctx.spec.limits.pagination!.pointer, text: `${ctx.spec.limits.pagination!.style} pages, default ${s.defaultSize ? p.defaultSize : 'not stated'}, maximum ${s.maxSize ? p.maxSize : 'not stated'}${s.overMax ? `, ${p.overMax} above it` : ''}` };
  // Pages of three where the list is short; where the run has made many records, larger ones, so the walk takes about eight requests, not one per three records (the list's quota is spent where it matters). The records made below always fill more than one page.
  const size = Math.max(1, Math.min(p.defaultSize, p.askAtMost, Math.max(3, Math.ceil(data.count(resource) / 8))));
  await ctx.check('limits', `${resource.name}.walk`, `${resource.name}: walking every page (size ${size}) returns each record exactly once`, rule, async () => {
    const made = [];
    const before = data.count(resource);
    for (let i = 0; i < Math.max(2, size * 2 + 1 - before); i++) made.push(await data.create(resource));
    const { items, pages } = await walk(ctx, resource, size);
    const idField = data.idField(resource);
    const ids = items.map((i) => String(i[idField]));
    const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (repeated.length) throw new Failure(`the walk returned ${repeated[0]} more than once`, pages.at(-1)!.exchange);
    for (const m of made) if (!ids.includes(m.id)) throw new Failure(`the walk never returned ${resource.name} '${m.id}'`, pages.at(-1)!.exchange);
    const over = pages.find((pg) => pg.items.length > size);
    if (over) throw new Failure(`a page of size ${size} held ${over.items.length} items`, over.exchange);
    // A page body that carries the total of the list: the same on every page, and what the walk found.
    const totals = pages.filter((pg) => pg.total !== undefined);
    const wrong = totals.find((pg) => pg.total !== items.length);
    if (wrong) throw new Failure(`a page says the list holds ${wrong.total} records; the walk found ${items.length}`, wrong.exchange);
  });
  // A size the spec leaves unsaid is svcspec's safety bound, no promise of the spec's.
  if (!p.settings.stated.defaultSize) ctx.skip('limits', `${resource.name}.default-size`, `${resource.name}: a page without a size`, 'the spec states no default page size', { kind: 'not-applicable' });
  else await ctx.check('limits', `${resource.name}.default-size`, `${resource.name}: a page without a size holds at most ${p.defaultSize}`, rule, async () => {
    const page = await fullPage(ctx, data, resource, '', p.defaultSize);
    if (page.items.length > p.defaultSize) throw new Failure(`a page holds ${page.items.length} items; the default size is ${p.defaultSize}`, page.exchange);
  });
  if (!Number.isFinite(p.maxSize)) return ctx.skip('limits', `${resource.name}.over-max`, `${resource.name}: a size above the maximum`, 'the spec states there is no largest page size', { kind: 'not-applicable' });
  if (!p.settings.stated.maxSize || !p.settings.stated.overMax) return ctx.skip('limits', `${resource.name}.over-max`, `${resource.name}: a size above the maximum`, `the spec states no ${!p.settings.stated.maxSize ? 'largest page size' : 'answer to a larger size (overMax)'}`, { kind: 'not-applicable' });
  await ctx.check('limits', `${resource.name}.over-max`, `${resource.name}: a size above the maximum ${p.maxSize} is ${p.overMax === 'clamp' ? 'clamped' : 'refused'}`, rule, async () => {
    const query = `${encodeURIComponent(p.size)}=${p.maxSize + 1}`;
    if (p.overMax === 'reject') {
      const list = ctx.endpoint(resource.name, 'list')!;
      expectError(ctx, await ctx.call('GET', `${list.path}?${query}`, { as: ctx.principalFor(list) ?? null }), 'validation-failed');
    } else {
      const page = await fullPage(ctx, data, resource, query, p.maxSize);
      if (page.items.length > p.maxSize) throw new Failure(`a page holds ${page.items.length} items; the maximum is ${p.maxSize}`, page.exchange);
    }
  });
}

/** The most records a run makes only so that a page has more to hold back than its size allows. */
const FILL_MAX = 200;

/**
 * A page of the list (`query`) where the list holds more than `bound` records, so that a page
 * holding at most `bound` shows the bound kept, not a short list: records are made until it
 * does. Not checked where that costs more than FILL_MAX creates or a scarce quota, or where
 * the list still shows fewer (a service that lists only some of what the tester made).
 */
async function fullPage(ctx: TestContext, data: DataFactory, resource: Resource, query: string, bound: number): Promise<Page> {
  let page = await getPage(ctx, resource, query);
  // A page of exactly the bound cannot tell a bound kept from a list that long: one more is needed.
  if (page.items.length > bound) return page;
  const missing = bound + 1 - page.items.length;
  if (missing > FILL_MAX || data.scarce(resource)) {
    throw new Skip(`the list holds ${page.items.length} ${resource.plural}, too few to show a bound of ${bound}, and making ${missing} more ${data.scarce(resource) ? "would spend the create's scarce quota" : `is more than the ${FILL_MAX} a run makes for it`}`, { needs: `a list of more than ${bound} ${resource.plural} in the service` });
  }
  for (let i = 0; i < missing; i++) await data.create(resource);
  page = await getPage(ctx, resource, query);
  if (page.items.length < bound) {
    throw new Skip(`the list shows ${page.items.length} ${resource.plural} on a page after ${missing} more were made, fewer than the bound of ${bound}: whether it holds pages to it cannot be seen here`);
  }
  return page;
}

async function checkBodySize(ctx: TestContext): Promise<void> {
  const limit = ctx.spec.limits.body;
  const create = ctx.roomiest(ctx.spec.endpoints.filter((e) => e.operation === 'create' && isPlain(e) && ctx.may(ctx.main, e)));
  if (!limit || !create) {
    ctx.skip('limits', 'body-size', 'a body above the size limit is refused', !limit ? 'the spec declares no body size limit' : 'no create endpoint can be called by the principals given', !limit ? { kind: 'not-applicable' } : { needs: 'a principal that may call a create endpoint' });
    return;
  }
  await ctx.check('limits', 'body-size', `${create.id}: a body of ${limit.maxBytes + 1} bytes (limit ${limit.maxBytes}) is refused with ${statusAs(ctx, 'payload-too-large')}`, { pointer: limit.pointer, text: `body: ${limit.maxBytes} bytes at most` }, async () => {
    const filler = 'x'.repeat(limit.maxBytes);
    expectError(ctx, await ctx.call('POST', create.path, { raw: { text: JSON.stringify({ filler }), contentType: 'application/json' } }), 'payload-too-large');
  });
}

async function checkRateLimit(ctx: TestContext): Promise<void> {
  const rate = ctx.spec.limits.rate;
  const title = 'requests beyond the rate limit get 429 with Retry-After and the RateLimit fields';
  if (!rate) return ctx.skip('limits', 'rate-limit', title, ctx.spec.limits.none?.rate ? `the spec states there is no rate limit (${ctx.spec.limits.none.rate.reason})` : 'the spec declares no rate limit', { kind: 'not-applicable' });
  if (!ctx.include.has('rate-limits')) return ctx.skip('limits', 'rate-limit', title, 'opt-in: it spends a whole quota; run with --include rate-limits', { kind: 'not-asked', needs: '--include rate-limits' });
  const endpoint = ctx.spec.endpoints.find((e) => e.operation === 'list' && isPlain(e) && ctx.may(ctx.main, e) && !rate.overrides.some((o) => o.endpoint === e.id));
  await ctx.check('limits', 'rate-limit', title, { pointer: rate.pointer, text: `${rate.limit} requests per ${rate.windowMs} ms per ${rate.scope}` }, async () => {
    if (!endpoint) throw new Skip('no list endpoint under the default rate limit can be called', { needs: 'a principal that may call a list endpoint under the default rate limit' });
    if (rate.limit > 2000) throw new Skip(`the limit (${rate.limit}) is too high to exhaust in a test run`);
    const policy = ctx.quota.policyOf(endpoint)!;
    const as = ctx.principalFor(endpoint) ?? null;
    const send = () => ctx.call('GET', endpoint.path, { as, retry: false });
    // Where the window stands: the run's other checks have spent some of it. The RateLimit field says
    // what is left (draft-ietf-httpapi-ratelimit-headers §4); without it, the count starts in a fresh window.
    let first = await send();
    if (first.response.status === 429) {
      await waitWindow(ctx, first, policy.windowMs);
      first = await send();
    }
    let left = readRateLimit(first.response.headers.ratelimit, policy.item)?.remaining;
    if (left === undefined) {
      await waitWindow(ctx, first, policy.windowMs);
      first = await send();
      left = rate.limit - 1;
    }
    if (first.response.status === 429) throw new Failure('the first request of a fresh window was refused', first);
    const stated = readRatePolicy(first.response.headers['ratelimit-policy'], policy.item);
    if (stated && (stated.quota !== policy.limit || stated.windowSeconds !== Math.max(1, Math.ceil(policy.windowMs / 1000)))) {
      throw new Failure(`RateLimit-Policy states ${first.response.headers['ratelimit-policy']}; the spec declares ${policy.field}`, first);
    }
    // Each answer's RateLimit field (where sent) says what is left; a window that closes during the
    // count (a slow run) shows as `r` going up, and the count starts again in the new one.
    const speaks = readRateLimit(first.response.headers.ratelimit, policy.item) !== undefined;
    const opened = ctx.now();
    let admitted = rate.limit - left;
    let previous = first;
    // Bounded: a window that reopens once during the count needs up to twice the limit.
    for (let sent = 0; sent <= 2 * rate.limit + 1; sent++) {
      const ex = await send();
      const said = readRateLimit(ex.response.headers.ratelimit, policy.item);
      const before = readRateLimit(previous.response.headers.ratelimit, policy.item);
      if (ex.response.status === 429) {
        if (speaks ? before !== undefined && before.remaining > 0 : admitted < rate.limit) throw new Failure(`refused after ${admitted} requests in the window${before ? `, with RateLimit saying ${before.remaining} left` : ''}; the limit is ${rate.limit}`, ex);
        expectError(ctx, ex, 'rate-limited');
        if (!ex.response.headers['retry-after']) throw new Failure('the 429 has no Retry-After', ex);
        // The quota fields only where the spec promises them (limits.rate.headers).
        if (rate.headers === 'ratelimit' && (!ex.response.headers.ratelimit || !ex.response.headers['ratelimit-policy'])) throw new Failure('the 429 lacks the RateLimit and RateLimit-Policy fields', ex);
        return;
      }
      if (said && before && said.remaining > before.remaining) admitted = rate.limit - said.remaining;
      else admitted++;
      if (!speaks && ctx.now() - opened >= policy.windowMs) throw new Skip(`the count outlasted the ${policy.windowMs / 1000} s window (the implementation sends no RateLimit field to say when a new one opened)`);
      if (admitted > rate.limit) throw new Failure(`${admitted} requests were let through in one window; the limit is ${rate.limit}`, ex);
      previous = ex;
    }
    throw new Failure(`${2 * rate.limit + 2} requests in a row were let through; the limit is ${rate.limit}`);
  });
}

/** Waits until the window a request was counted in has closed: its Retry-After or RateLimit reset, else a whole window. */
async function waitWindow(ctx: TestContext, ex: Exchange, windowMs: number): Promise<void> {
  const after = Number(ex.response.headers['retry-after']);
  const ms = Number.isFinite(after) && after >= 0 ? after * 1000 : windowMs;
  if (ms > ctx.client.maxWaitMs) throw new Skip(`a fresh rate-limit window is ${Math.ceil(ms / 1000)} s away, longer than --max-wait`, { needs: `--max-wait ${Math.ceil(ms / 1000) + 1}` });
  await ctx.client.wait(ms + 50, ex.request.url);
}
