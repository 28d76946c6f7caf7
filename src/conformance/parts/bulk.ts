/**
 * Bulk creates (part 4, `operation: bulk-create`; the convention: src/spec/conventions/bulk.ts):
 *   all           two valid items are written: the declared success, `items` holding both
 *                 records in order, each readable afterwards
 *   atomic        a request whose middle item breaks the spec is 422 naming that item's
 *                 member by its pointer (`/items/1/<field>`), and its valid items are not
 *                 written (looked for by a list filter on a value only they carry, where
 *                 the resource has a list and a free text field to carry it)
 *   max           one item more than `max` is refused whole, 422 at `/items`
 *   events        with an event stream and an event on the resource's create: one event per
 *                 record written, about each of them, on the stream
 */
import { statusAs } from './errors.ts';
import { pageSettings, readPage } from '../../spec/conventions/pagination.ts';
import { BULK_ITEMS, itemPointer } from '../../spec/conventions/bulk.ts';
import type { Field, Resource } from '../../spec/model.ts';
import { DEFAULT_EVENT_TIMEOUT_MS, Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError, expectSuccess, isObject } from '../expect.ts';
import { arrivedOfEvent, openStream } from './events-stream.ts';

export async function checkBulk(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const e of ctx.spec.endpoints) {
    const resource = ctx.resource(e.resource);
    if (e.operation !== 'bulk-create' || !resource) continue;
    const rule = { pointer: e.pointer, text: `${e.id}: ${e.method} ${e.path}${e.bulk?.max !== undefined ? `, at most ${e.bulk.max} items` : ''}` };
    const as = ctx.principalFor(e);
    const may = () => {
      if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
    };
    await ctx.check('endpoints', `${e.id}.all`, `${e.id} writes every item of a valid request and answers the records`, rule, async () => {
      may();
      const items = await distinctBodies(data, resource, 2, as);
      const ex = await ctx.call(e.method, e.path, { body: { [BULK_ITEMS]: items }, as: as ?? null });
      // What it wrote (or wrongly kept) is deleted with the rest of the run's records.
      data.trackItems(resource, ex, BULK_ITEMS, as);
      expectSuccess(e, ex);
      const answered = isObject(ex.response.json) ? ex.response.json[BULK_ITEMS] : undefined;
      if (!Array.isArray(answered) || answered.length !== items.length) throw new Failure(`${e.id} answered no '${BULK_ITEMS}' list of ${items.length} records`, ex);
      const id = data.idField(resource);
      const read = ctx.endpoint(resource.name, 'read');
      for (const [i, record] of answered.entries()) {
        if (!isObject(record) || record[id] === undefined) throw new Failure(`${e.id}: ${BULK_ITEMS}/${i} is not a record with '${id}'`, ex);
        const text = freeText(resource, items[i]);
        if (text && record[text.name] !== items[i][text.name]) throw new Failure(`${e.id}: ${BULK_ITEMS}/${i} is not the item sent at that place (its ${text.name} differs)`, ex);
        if (read && ctx.may(as, read)) {
          const got = await ctx.call('GET', data.itemPath(read, String(record[id])), { as: as ?? null });
          if (got.response.status !== 200) throw new Failure(`${BULK_ITEMS}/${i} ('${String(record[id])}') cannot be read back: ${got.response.status}`, got);
        }
      }
    });
    const broken = brokenField(data, resource);
    await ctx.check('endpoints', `${e.id}.atomic`, `${e.id} with one failing item writes nothing and names the item's member by its pointer`, rule, async () => {
      may();
      if (!broken) throw new Skip(`no field of ${resource.name} can be made invalid by its type alone`);
      const items = await distinctBodies(data, resource, 3, as);
      items[1] = { ...items[1], [broken.name]: wrongType(broken) };
      const ex = await ctx.call(e.method, e.path, { body: { [BULK_ITEMS]: items }, as: as ?? null });
      // What it wrote (or wrongly kept) is deleted with the rest of the run's records.
      data.trackItems(resource, ex, BULK_ITEMS, as);
      expectError(ctx, ex, 'validation-failed', itemPointer(1, `/${broken.name}`));
      const list = ctx.endpoint(resource.name, 'list');
      const text = freeText(resource, items[0]);
      if (!list || !text || !ctx.may(as, list)) return; // the 422 and its pointer are checked; what was kept cannot be looked for
      // The lookup is an equality filter on the text field: by the convention, or where the list declares one.
      if (list.query && !list.query.filters.some((f) => f.field === text.name && f.ops.includes('eq'))) throw new Skip(`the 422 and its pointer are checked; ${list.id} cannot filter by ${text.name} to look for what was kept`);
      for (const i of [0, 2]) {
        const value = String(items[i][text.name]);
        const found = await ctx.call('GET', `${list.path}?${encodeURIComponent(text.name)}=${encodeURIComponent(value)}`, { as: as ?? null });
        if (found.response.status !== 200) throw new Failure(`looking for item ${i} of the refused request, ${list.id} answered ${found.response.status}`, found);
        const page = readPage(pageSettings(ctx.spec, list), found.response.json, found.response.headers.link);
        if (typeof page === 'string') throw new Failure(`${list.id}: ${page}`, found);
        if (page.items.length > 0) throw new Failure(`item ${i} of the refused request was written: a ${resource.name} with ${text.name} '${value}' is listed`, found);
      }
    });
    await checkBulkEvents(ctx, data, resource, e, as, rule);
    const max = e.bulk?.max;
    if (max !== undefined && max <= 1000) {
      await ctx.check('endpoints', `${e.id}.max`, `${e.id} refuses ${max + 1} items, one over its max, with ${statusAs(ctx, 'validation-failed')} at /${BULK_ITEMS}`, rule, async () => {
        may();
        const one = await data.validBody(resource, as ? { as } : {});
        const ex = await ctx.call(e.method, e.path, { body: { [BULK_ITEMS]: Array.from({ length: max + 1 }, () => one) }, as: as ?? null });
        expectError(ctx, ex, 'validation-failed', `/${BULK_ITEMS}`);
      });
    }
  }
}

/** Bodies of valid items; a free text field made unique per item, so they can be told apart and looked for. */
async function distinctBodies(data: DataFactory, resource: Resource, n: number, as: Principal | undefined): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const body = await data.validBody(resource, as ? { as } : {});
    const text = freeText(resource, body);
    if (text) body[text.name] = `svcspec-bulk-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-${i}`.slice(0, text.maxLength ?? 200);
    out.push(body);
  }
  return out;
}

/** A string field the body carries with no constraint but its length: free to carry a marker. */
export function freeText(resource: Resource, body: Record<string, unknown>): Field | undefined {
  return resource.fields.find((f) => f.type === 'string' && typeof body[f.name] === 'string' && !f.enum && !f.pattern && !f.format && (f.maxLength === undefined || f.maxLength >= 30) && (f.minLength === undefined || f.minLength <= 20) && !f.writeOnly);
}

/** A field a create carries whose type a wrong value breaks. */
export function brokenField(data: DataFactory, resource: Resource): Field | undefined {
  return data.createFields(resource).find((f) => f.type === 'string' || f.type === 'integer' || f.type === 'boolean');
}

export function wrongType(f: Field): unknown {
  return f.type === 'string' ? 12345 : 'not-a-number-svcspec';
}


/** One event per record of a bulk create, on the stream (where the spec has one and an event on the resource's create). */
async function checkBulkEvents(ctx: TestContext, data: DataFactory, resource: Resource, e: Parameters<typeof ctx.may>[1], as: Principal | undefined, rule: { pointer: string; text: string }): Promise<void> {
  const stream = ctx.spec.events.stream;
  const event = ctx.spec.events.catalog.find((x) => x.trigger.resource === resource.name && x.trigger.action === 'created' && ctx.inVersion(x));
  if (!stream || !event || ctx.spec.parts.events.statement !== 'given') return;
  await ctx.check('endpoints', `${e.id}.events`, `${e.id} emits ${event.name} once for each record it writes`, rule, async () => {
    if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
    const timeoutMs = ctx.events.timeoutMs ?? DEFAULT_EVENT_TIMEOUT_MS;
    const listening = await openStream(ctx, stream, as);
    try {
      if (listening.status !== 200) throw new Skip(`the event stream did not open (${listening.status}); part 6 checks it`);
      const items = await distinctBodies(data, resource, 2, as);
      const ex = await ctx.call(e.method, e.path, { body: { [BULK_ITEMS]: items }, as: as ?? null });
      // What it wrote (or wrongly kept) is deleted with the rest of the run's records.
      data.trackItems(resource, ex, BULK_ITEMS, as);
      expectSuccess(e, ex);
      const written = (isObject(ex.response.json) && Array.isArray(ex.response.json[BULK_ITEMS]) ? ex.response.json[BULK_ITEMS] : []) as Record<string, unknown>[];
      const idField = data.idField(resource);
      const ids = written.map((r) => String(r[idField]));
      const about = (id: string) => listening.events.items.filter((x) => {
        const a = arrivedOfEvent(x);
        const payload = isObject(a?.data) ? a.data : undefined;
        return a?.type === event.name && payload !== undefined && String(payload[idField]) === id;
      });
      const all = await listening.events.until(() => (ids.every((id) => about(id).length > 0) ? true : undefined), Date.now() + timeoutMs);
      if (!all) throw new Failure(`not every record written got its ${event.name} within ${timeoutMs / 1000} s: ${ids.map((id) => `'${id}' ${about(id).length}`).join(', ')}`, listening.exchange());
      // A moment more for a duplicate to show: one event per record, not one per item and another per batch.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const twice = ids.filter((id) => about(id).length > 1);
      if (twice.length) throw new Failure(`${event.name} arrived more than once about ${twice.join(', ')}`, listening.exchange());
    } finally {
      listening.close();
    }
  });
}
