/**
 * Part 8's conditional requests (`limits.conditional`, RFC 9110 §13), checked only where the
 * spec states them: a default of svcspec's reference service is no promise of another
 * implementation's. For each resource with a create, a read and an update (or replace):
 *
 *   etag            a strong entity tag (§8.8.3), the same on two reads of an unchanged record,
 *                   another after the record changed
 *   last-modified   an HTTP-date (§5.6.7), the same on two reads of an unchanged record
 *   writes          a write with the tag read before a change (If-Match) is 412 and changes
 *                   nothing; with the current tag it is accepted. With last-modified alone,
 *                   If-Unmodified-Since a day before the last change is 412 (§13.1.4)
 *   reads           the current tag in If-None-Match is 304 without a body, a stale one 200;
 *                   If-Modified-Since at the last change is 304 (§13.1.3)
 */
import { statusAs } from './errors.ts';
import { isPlain } from '../../spec/conventions/paths.ts';
import type { ConditionalRequests, Endpoint, Field, Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory, Made } from '../data.ts';
import { expectError, expectSuccess, isObject, jsonEqual } from '../expect.ts';
import { valueOf } from '../generate.ts';
import { freshBody } from './fresh.ts';
import type { Exchange } from '../http.ts';

/** RFC 9110 §8.8.3: entity-tag = [ weak ] opaque-tag; a strong one has no `W/`. */
const STRONG_TAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;
/** RFC 9110 §5.6.7: the IMF-fixdate a sender generates. */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export async function checkConditional(ctx: TestContext, data: DataFactory): Promise<void> {
  const promise = ctx.spec.limits.conditional;
  if (!promise) {
    const none = ctx.spec.limits.none?.conditional;
    ctx.skip('endpoints', 'conditional', 'conditional requests as stated', none ? `the spec states there are none (${none.reason})` : 'the spec states no conditional requests (limits.conditional): svcspec serve\'s ETags are its runtime default, not a promise to hold another implementation to', { kind: 'not-applicable' });
    return;
  }
  const rule = { pointer: promise.pointer, text: `conditional: ${promise.validators.join(', ')}${promise.writes ? '; writes honour preconditions' : ''}${promise.reads ? '; reads answer 304' : ''}` };
  for (const resource of ctx.spec.resources) {
    const read = ctx.endpoint(resource.name, 'read');
    const create = ctx.endpoint(resource.name, 'create');
    if (!read || !create || !isPlain(read) || read.select) continue;
    await checkResource(ctx, data, resource, read, promise, rule);
  }
}

/**
 * A record whose refs were made for it, by the principal that makes it (its owned refs are its
 * own); of a scarce create (helpdesk: 5 tickets a minute), a record other checks are done with.
 */
async function makeFresh(ctx: TestContext, data: DataFactory, resource: Resource): Promise<Pick<Made, 'id' | 'as'>> {
  // One its updates may still change (not a closed ticket): the checks write to it.
  const parked = await data.parking.take(resource, (state) => (data.domain.updatableIn(resource, state, ctx.now()) ? [] : undefined));
  if (parked) return { id: parked.id };
  const as = ctx.principalFor(data.createEndpoint(resource));
  return data.create(resource, { ...(as ? { as } : {}), body: await freshBody(data, resource, as) });
}

interface State {
  made?: Pick<Made, 'id' | 'as'>;
  as?: Principal | null;
  first?: Exchange;
  changedTo?: Exchange;
}

async function checkResource(ctx: TestContext, data: DataFactory, resource: Resource, read: Endpoint, promise: ConditionalRequests, rule: { pointer: string; text: string }): Promise<void> {
  const s: State = {};
  const path = () => data.itemPath(read, (s.made as Pick<Made, 'id'>).id);
  const get = (headers: Record<string, string> = {}) => ctx.call('GET', path(), { as: s.as ?? null, headers });
  const etag = promise.validators.includes('etag');
  const lastModified = promise.validators.includes('last-modified');
  const change = ctx.endpoint(resource.name, 'update') ?? ctx.endpoint(resource.name, 'replace');
  const name = resource.name;

  if (etag) {
    await ctx.check('endpoints', `${name}.etag.stable`, `${name}: a read carries a strong ETag, the same while the record is unchanged`, rule, async () => {
      s.made = await makeFresh(ctx, data, resource);
      s.as = s.made.as ?? ctx.principalFor(read) ?? null;
      const one = await get();
      expectSuccess(read, one);
      const two = await get();
      const tag = one.response.headers.etag;
      if (!tag) throw new Failure(`the read of ${name} '${s.made.id}' carries no ETag`, one);
      if (!STRONG_TAG.test(tag)) throw new Failure(`the ETag ${tag} is not a strong entity tag (RFC 9110 §8.8.3: "…" without W/)`, one);
      if (two.response.headers.etag !== tag) throw new Failure(`two reads of the unchanged ${name} carry different ETags: ${tag} and ${two.response.headers.etag ?? '(none)'}`, two);
      s.first = one;
    });
  }
  if (lastModified) {
    await ctx.check('endpoints', `${name}.last-modified`, `${name}: a read carries Last-Modified, an HTTP-date, the same while the record is unchanged`, rule, async () => {
      s.made ??= await makeFresh(ctx, data, resource);
      s.as ??= s.made.as ?? ctx.principalFor(read) ?? null;
      const one = await get();
      expectSuccess(read, one);
      const lm = one.response.headers['last-modified'];
      if (!lm) throw new Failure(`the read of ${name} '${s.made.id}' carries no Last-Modified`, one);
      if (!IMF_FIXDATE.test(lm)) throw new Failure(`Last-Modified '${lm}' is not an IMF-fixdate (RFC 9110 §5.6.7)`, one);
      if (Date.parse(lm) > ctx.now() + 60_000) throw new Failure(`Last-Modified '${lm}' is in the future`, one);
      const two = await get();
      if (two.response.headers['last-modified'] !== lm) throw new Failure(`two reads of the unchanged ${name} carry different Last-Modified: ${lm} and ${two.response.headers['last-modified'] ?? '(none)'}`, two);
      s.first ??= one;
    });
  }
  if (!change) {
    ctx.skip('endpoints', `${name}.conditional.change`, `${name}: validators after a change, and preconditions on writes`, `${name} has no update or replace endpoint to change a record with`, { kind: 'not-applicable' });
  } else {
    await ctx.check('endpoints', `${name}.conditional.write`, `${name}: ${change.id} ${promise.writes ? 'with the current validator is accepted, and ' : ''}changes the ${etag ? 'ETag' : 'Last-Modified'}`, rule, async () => {
      const first = need(s);
      const headers: Record<string, string> = {};
      if (promise.writes && etag) headers['if-match'] = first.response.headers.etag as string;
      else if (promise.writes) headers['if-unmodified-since'] = first.response.headers['last-modified'] as string;
      const ex = await ctx.call(change.method, data.itemPath(change, (s.made as Pick<Made, 'id'>).id), { body: await changeBody(ctx, data, resource, change, first, s.as), as: s.as ?? null, headers });
      expectSuccess(change, ex);
      const after = await get();
      expectSuccess(read, after);
      if (etag && after.response.headers.etag === first.response.headers.etag) throw new Failure(`the ETag stayed ${String(after.response.headers.etag)} after ${change.id} changed the record`, after);
      // Last-Modified has a resolution of one second: a change within the second may keep it.
      s.changedTo = after;
    });
    if (promise.writes) {
      await ctx.check('endpoints', `${name}.conditional.stale-write`, `${name}: ${change.id} with a stale ${etag ? 'If-Match' : 'If-Unmodified-Since'} is ${statusAs(ctx, 'precondition-failed')} and changes nothing`, rule, async () => {
        const first = need(s);
        const now = s.changedTo;
        if (!now) throw new Skip('the record could not be changed, so no validator is stale');
        const headers: Record<string, string> = etag
          ? { 'if-match': first.response.headers.etag as string }
          : { 'if-unmodified-since': new Date(Date.parse(now.response.headers['last-modified'] ?? '') - 86_400_000).toUTCString() };
        const ex = await ctx.call(change.method, data.itemPath(change, (s.made as Pick<Made, 'id'>).id), { body: await changeBody(ctx, data, resource, change, now, s.as), as: s.as ?? null, headers });
        expectError(ctx, ex, 'precondition-failed');
        const after = await get();
        if (!jsonEqual(after.response.json, now.response.json)) throw new Failure(`the refused write changed the ${name} all the same`, after);
      });
      const del = ctx.endpoint(resource.name, 'delete');
      if (del && isPlain(del)) {
        await ctx.check('endpoints', `${name}.conditional.stale-delete`, `${name}: ${del.id} with a stale ${etag ? 'If-Match' : 'If-Unmodified-Since'} is ${statusAs(ctx, 'precondition-failed')} and the record stays`, rule, async () => {
          const first = need(s);
          const now = s.changedTo;
          if (!now) throw new Skip('the record could not be changed, so no validator is stale');
          const headers: Record<string, string> = etag
            ? { 'if-match': first.response.headers.etag as string }
            : { 'if-unmodified-since': new Date(Date.parse(now.response.headers['last-modified'] ?? '') - 86_400_000).toUTCString() };
          const ex = await ctx.call('DELETE', data.itemPath(del, (s.made as Pick<Made, 'id'>).id), { as: ctx.principalFor(del) ?? s.as ?? null, headers });
          expectError(ctx, ex, 'precondition-failed');
          const after = await get();
          if (after.response.status !== 200) throw new Failure(`the refused delete removed the ${name} all the same (a read answers ${after.response.status})`, after);
        });
      }
    }
  }
  if (promise.reads) {
    await ctx.check('endpoints', `${name}.conditional.read`, `${name}: a read with the current ${etag ? 'If-None-Match' : 'If-Modified-Since'} is 304 without a body${etag ? ', a stale one 200' : ''}`, rule, async () => {
      need(s);
      const current = await get();
      expectSuccess(read, current);
      const headers: Record<string, string> = etag ? { 'if-none-match': current.response.headers.etag ?? '"svcspec-none"' } : { 'if-modified-since': current.response.headers['last-modified'] ?? '' };
      const ex = await get(headers);
      if (ex.response.status !== 304) throw new Failure(`the read with ${Object.keys(headers)[0]}: ${Object.values(headers)[0]} answered ${ex.response.status}, not 304 (RFC 9110 §13.1.${etag ? 2 : 3})`, ex);
      if (ex.response.text !== '') throw new Failure('the 304 carries a body (RFC 9110 §15.4.5: it has none)', ex);
      if (etag && ex.response.headers.etag !== current.response.headers.etag) throw new Failure(`the 304 carries the ETag ${ex.response.headers.etag ?? '(none)'}, not the record's ${String(current.response.headers.etag)} (RFC 9110 §15.4.5)`, ex);
      if (!etag) return;
      const stale = await get({ 'if-none-match': '"svcspec-stale-tag"' });
      expectSuccess(read, stale);
      if (!isObject(stale.response.json)) throw new Failure('a read with a stale If-None-Match answered no record', stale);
    });
  }
}

function need(s: State): Exchange {
  if (!s.first || !s.made) throw new Skip('no record with a validator to start from (see the check before)');
  return s.first;
}

/** A body that changes one writable field to another valid value (a whole record for a replace). */
async function changeBody(ctx: TestContext, data: DataFactory, resource: Resource, change: Endpoint, current: Exchange, as: Principal | null | undefined): Promise<Record<string, unknown>> {
  const writable = data.writable(resource, ctx.version).filter((f) => f.name !== data.idField(resource));
  const field = writable.find((f) => !f.writeOnly && f.type !== 'ref' && f.type !== 'object' && f.type !== 'array' && !(f.enum && f.enum.length < 2)) ?? writable.find((f) => !f.writeOnly);
  if (!field) throw new Skip(`${resource.name} has no writable field to change`);
  const now = isObject(current.response.json) ? current.response.json[field.name] : undefined;
  const value = await otherValue(ctx, data, field, now);
  if (change.operation === 'update') return { [field.name]: value };
  return { ...(await data.validBody(resource, as ? { as } : {})), [field.name]: value };
}

async function otherValue(ctx: TestContext, data: DataFactory, field: Field, now: unknown): Promise<unknown> {
  for (let i = 0; i < 16; i++) {
    const v = await data.fill(ctx.draw.one(valueOf(field)));
    if (!jsonEqual(v, now)) return v;
  }
  throw new Skip(`'${field.name}' admits no value other than ${JSON.stringify(now)}`);
}
