/**
 * Bulk updates and deletes (part 4, `operation: bulk-update`, `bulk-delete`; the convention:
 * src/spec/conventions/bulk.ts), against any implementation:
 *   all       a valid batch changes (removes) every record it names: the declared success,
 *             a bulk update's `items` holding the records as changed, each read back so
 *   atomic    one bad item (a bulk update's member of the wrong type; an id that names no
 *             record) is 422 at that item's pointer, and every other record of the batch
 *             reads back as it was
 *   max       one item more than `max` is refused whole, 422 at `/items`
 *   events    with an event stream and an event on the resource's update (delete) whose
 *             payload carries the id: one event per record changed, about each of them
 * Reading back needs the resource's read endpoint; without it, the answers alone are checked.
 */
import { statusAs } from './errors.ts';
import { BULK_ITEMS, itemPointer } from '../../spec/conventions/bulk.ts';
import type { Endpoint, Resource } from '../../spec/model.ts';
import { DEFAULT_EVENT_TIMEOUT_MS, Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory, Made } from '../data.ts';
import { expectError, expectSuccess, isObject } from '../expect.ts';
import { arrivedOfEvent, openStream } from './events-stream.ts';
import { missingId } from './actions.ts';
import { brokenField, freeText, wrongType } from './bulk.ts';
import { idOf } from '../../spec/conventions/ids.ts';

export async function checkBulkChanges(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const e of ctx.spec.endpoints) {
    const resource = ctx.resource(e.resource);
    if ((e.operation !== 'bulk-update' && e.operation !== 'bulk-delete') || !resource) continue;
    const rule = { pointer: e.pointer, text: `${e.id}: ${e.method} ${e.path}${e.bulk?.max !== undefined ? `, at most ${e.bulk.max} items` : ''}` };
    const as = ctx.principalFor(e);
    const may = () => {
      if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
    };
    const checker = new Checker(ctx, data, resource, e, as);
    const what = e.operation === 'bulk-update' ? 'changes' : 'deletes';
    await ctx.check('endpoints', `${e.id}.all`, `${e.id} ${what} every record a valid request names`, rule, async () => {
      may();
      await (e.operation === 'bulk-update' ? checker.updateAll() : checker.deleteAll());
    });
    await ctx.check('endpoints', `${e.id}.atomic`, `${e.id} with one failing item changes no record and names the item by its pointer`, rule, async () => {
      may();
      await (e.operation === 'bulk-update' ? checker.updateAtomic() : checker.deleteAtomic());
    });
    await checkEvents(ctx, data, resource, e, as, rule, checker);
    const max = e.bulk?.max;
    if (max !== undefined && max <= 1000) {
      await ctx.check('endpoints', `${e.id}.max`, `${e.id} refuses ${max + 1} items, one over its max, with ${statusAs(ctx, 'validation-failed')} at /${BULK_ITEMS}`, rule, async () => {
        may();
        const made = await data.create(resource, as ? { as } : {});
        const one = e.operation === 'bulk-update' ? { [data.idField(resource)]: checker.apiId(made) } : checker.apiId(made);
        const ex = await ctx.call(e.method, e.path, { body: { [BULK_ITEMS]: Array.from({ length: max + 1 }, () => one) }, as: as ?? null });
        expectError(ctx, ex, 'validation-failed', `/${BULK_ITEMS}`);
        await checker.stillThere(made, ex);
      });
    }
  }
}

/** One event per record of a bulk update (delete), on the stream, where the spec has both. */
async function checkEvents(ctx: TestContext, data: DataFactory, resource: Resource, e: Endpoint, as: Principal | undefined, rule: { pointer: string; text: string }, checker: Checker): Promise<void> {
  const stream = ctx.spec.events.stream;
  const action = e.operation === 'bulk-update' ? 'updated' : 'deleted';
  const idField = data.idField(resource);
  const event = ctx.spec.events.catalog.find((x) => x.trigger.resource === resource.name && x.trigger.action === action && ctx.inVersion(x) && (x.payload.kind === 'resource' || x.payload.fields.includes(idField)));
  if (!stream || !event || ctx.spec.parts.events.statement !== 'given') return;
  await ctx.check('endpoints', `${e.id}.events`, `${e.id} emits ${event.name} once for each record it ${action === 'updated' ? 'changes' : 'deletes'}`, rule, async () => {
    if (!as && e.auth && !e.auth.public) throw ctx.noPrincipal(e);
    const timeoutMs = ctx.events.timeoutMs ?? DEFAULT_EVENT_TIMEOUT_MS;
    const made = [await data.create(resource, as ? { as } : {}), await data.create(resource, as ? { as } : {})];
    const listening = await openStream(ctx, stream, as);
    try {
      if (listening.status !== 200) throw new Skip(`the event stream did not open (${listening.status}); part 6 checks it`);
      const ex = await checker.send(made);
      expectSuccess(e, ex);
      const ids = made.map((m) => m.id);
      const about = (id: string) => listening.events.items.filter((x) => {
        const a = arrivedOfEvent(x);
        const payload = isObject(a?.data) ? a.data : undefined;
        return a?.type === event.name && payload !== undefined && String(payload[idField]) === id;
      });
      const all = await listening.events.until(() => (ids.every((id) => about(id).length > 0) ? true : undefined), Date.now() + timeoutMs);
      if (!all) throw new Failure(`not every record got its ${event.name} within ${timeoutMs / 1000} s: ${ids.map((id) => `'${id}' ${about(id).length}`).join(', ')}`, listening.exchange());
      // A moment more for a duplicate to show: one event per record, not one per item and another per batch.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const twice = ids.filter((id) => about(id).length > 1);
      if (twice.length) throw new Failure(`${event.name} arrived more than once about ${twice.join(', ')}`, listening.exchange());
    } finally {
      listening.close();
    }
  });
}

class Checker {
  readonly #ctx: TestContext;
  readonly #data: DataFactory;
  readonly #resource: Resource;
  readonly #e: Endpoint;
  readonly #as: Principal | undefined;
  readonly #id: string;

  constructor(ctx: TestContext, data: DataFactory, resource: Resource, e: Endpoint, as: Principal | undefined) {
    this.#ctx = ctx;
    this.#data = data;
    this.#resource = resource;
    this.#e = e;
    this.#as = as;
    this.#id = data.idField(resource);
  }

  /** The id as the API typed it in the create's answer (an integer for sequence ids). */
  apiId(made: Made): unknown {
    return made.body[this.#id] ?? made.id;
  }

  #missing(): unknown {
    const id = missingId(this.#resource);
    return idOf(this.#resource).assigned === 'sequence' ? Number(id) : id;
  }

  #call(items: unknown[]) {
    return this.#ctx.call(this.#e.method, this.#e.path, { body: { [BULK_ITEMS]: items }, as: this.#as ?? null });
  }

  /** The record as a read shows it now; undefined when the read is 404; null when it cannot be read (no read endpoint the caller may call). */
  async #read(made: Made): Promise<Record<string, unknown> | undefined | null> {
    const read = this.#ctx.endpoint(this.#resource.name, 'read');
    if (!read || !this.#ctx.may(this.#as, read)) return null;
    const got = await this.#ctx.call('GET', this.#data.itemPath(read, made.id), { as: this.#as ?? null });
    if (got.response.status === 404) return undefined;
    if (got.response.status !== 200 || !isObject(got.response.json)) throw new Failure(`reading ${this.#resource.name} '${made.id}' answered ${got.response.status}`, got);
    return got.response.json;
  }

  async stillThere(made: Made, ex: Parameters<typeof expectSuccess>[1], text?: { name: string; value: unknown }): Promise<void> {
    const now = await this.#read(made);
    if (now === undefined) throw new Failure(`${this.#resource.name} '${made.id}' was deleted by a request that was refused`, ex);
    if (now && text && now[text.name] !== text.value) throw new Failure(`${this.#resource.name} '${made.id}' was changed by a request that was refused: its ${text.name} is now ${JSON.stringify(now[text.name])}`, ex);
  }

  /** Two records and a free text field to change on them, with a marker per record. */
  async #two(): Promise<{ made: Made[]; text: string; marks: string[] }> {
    const made = [await this.#data.create(this.#resource, this.#as ? { as: this.#as } : {}), await this.#data.create(this.#resource, this.#as ? { as: this.#as } : {})];
    const text = freeText(this.#resource, made[0].sent);
    if (!text) throw new Skip(`${this.#resource.name} has no free text field whose change can be seen`);
    const stamp = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    return { made, text: text.name, marks: made.map((_, i) => `svcspec-bulk-${stamp}-${i}`.slice(0, text.maxLength ?? 200)) };
  }

  /** A valid batch of the records: each given a marker in a free text field (an update), or their ids (a delete). */
  async send(made: readonly Made[]) {
    if (this.#e.operation === 'bulk-delete') return this.#call(made.map((m) => this.apiId(m)));
    const text = freeText(this.#resource, made[0].sent);
    if (!text) throw new Skip(`${this.#resource.name} has no free text field to change`);
    return this.#call(made.map((m, i) => ({ [this.#id]: this.apiId(m), [text.name]: `svcspec-bulk-event-${Date.now().toString(36)}-${i}`.slice(0, text.maxLength ?? 200) })));
  }

  async updateAll(): Promise<void> {
    const { made, text, marks } = await this.#two();
    const ex = await this.#call(made.map((m, i) => ({ [this.#id]: this.apiId(m), [text]: marks[i] })));
    expectSuccess(this.#e, ex);
    const answered = isObject(ex.response.json) ? ex.response.json[BULK_ITEMS] : undefined;
    if (ex.response.status !== 204) {
      if (!Array.isArray(answered) || answered.length !== made.length) throw new Failure(`${this.#e.id} answered no '${BULK_ITEMS}' list of ${made.length} records`, ex);
      answered.forEach((r, i) => {
        if (!isObject(r) || String(r[this.#id]) !== made[i].id || r[text] !== marks[i]) throw new Failure(`${this.#e.id}: ${BULK_ITEMS}/${i} is not ${this.#resource.name} '${made[i].id}' with the ${text} sent`, ex);
      });
    }
    for (const [i, m] of made.entries()) {
      const now = await this.#read(m);
      if (now === undefined) throw new Failure(`${this.#resource.name} '${m.id}' cannot be read after the bulk update`, ex);
      if (now && now[text] !== marks[i]) throw new Failure(`${this.#resource.name} '${m.id}' was not changed: its ${text} reads ${JSON.stringify(now[text])}`, ex);
    }
  }

  async updateAtomic(): Promise<void> {
    const { made, text, marks } = await this.#two();
    const broken = brokenField(this.#data, this.#resource);
    const items: Record<string, unknown>[] = made.map((m, i) => ({ [this.#id]: this.apiId(m), [text]: marks[i] }));
    // The second item breaks: a member of the wrong type where the resource has one, else an id that names no record.
    const pointer = broken && broken.name !== this.#id ? itemPointer(1, `/${broken.name}`) : itemPointer(1, `/${this.#id}`);
    items[1] = broken && broken.name !== this.#id ? { ...items[1], [broken.name]: wrongType(broken) } : { [this.#id]: this.#missing(), [text]: marks[1] };
    const ex = await this.#call(items);
    expectError(this.#ctx, ex, 'validation-failed', pointer);
    for (const m of made) await this.stillThere(m, ex, { name: text, value: m.body[text] });
    const gone = await this.#call([{ [this.#id]: this.apiId(made[0]), [text]: marks[0] }, { [this.#id]: this.#missing(), [text]: marks[1] }]);
    expectError(this.#ctx, gone, 'validation-failed', itemPointer(1, `/${this.#id}`));
    await this.stillThere(made[0], gone, { name: text, value: made[0].body[text] });
  }

  async deleteAll(): Promise<void> {
    const made = [await this.#data.create(this.#resource, this.#as ? { as: this.#as } : {}), await this.#data.create(this.#resource, this.#as ? { as: this.#as } : {})];
    const ex = await this.#call(made.map((m) => this.apiId(m)));
    expectSuccess(this.#e, ex);
    for (const m of made) {
      const now = await this.#read(m);
      if (now) throw new Failure(`${this.#resource.name} '${m.id}' can still be read after the bulk delete`, ex);
    }
  }

  async deleteAtomic(): Promise<void> {
    const made = [await this.#data.create(this.#resource, this.#as ? { as: this.#as } : {}), await this.#data.create(this.#resource, this.#as ? { as: this.#as } : {})];
    const ex = await this.#call([this.apiId(made[0]), this.#missing(), this.apiId(made[1])]);
    expectError(this.#ctx, ex, 'validation-failed', itemPointer(1));
    for (const m of made) await this.stillThere(m, ex);
  }
}
