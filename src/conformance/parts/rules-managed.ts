/**
 * Managed fields (issue #14, src/spec/domain/managed.ts): on a record the tester creates,
 * each field the service sets holds what its source says — a time stamp within the
 * request's time (± CLOCK_SKEW_MS), the principal's id where the tester is told it, a number
 * of the sequence in its template's form (and not one already given), the value of its
 * CEL expression computed locally — and after an update, what is set on create stays while
 * what is set on every write moves to the update's time.
 */
import { fromCel } from '../../spec/domain/cel.ts';
import { managedFields, sequencePattern, setsOn } from '../../spec/domain/managed.ts';
import type { Field, ManagedSource, Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { jsonEqual } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { valueOf } from '../generate.ts';
import { CLOCK_SKEW_MS, Scene, type SceneRecord } from './rules-scene.ts';

type Data = Record<string, unknown>;

interface Made {
  readonly record: SceneRecord;
  /** Who made the record (undefined: anonymously). */
  readonly as?: Principal;
  readonly exchange: Exchange;
  readonly from: number;
  readonly to: number;
}

export async function checkManaged(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const resource of ctx.spec.resources) {
    const managed = managedFields(ctx.fieldsOf(resource));
    if (!managed.length) continue;
    const scene = new Scene(ctx, data, resource);
    let first: Promise<Made> | undefined;
    let second: Promise<Made> | undefined;
    const make = async (): Promise<Made> => {
      if (!data.createEndpointOrUndefined(resource)) throw new Skip(`not checked: ${resource.name} has no create endpoint`);
      const body = await data.validBody(resource, scene.as ? { as: scene.as } : {});
      const from = ctx.now();
      const record = await scene.create(resource, body, `a ${resource.name}`);
      const to = ctx.now();
      const read = await scene.read(resource, record.id);
      if (read) record.data = read;
      return { record, exchange: record.exchange as Exchange, from, to, ...(scene.as ? { as: scene.as } : {}) };
    };
    // Of a scarce create (helpdesk: 5 tickets a minute), the run's first record of it, made with its times noted, is the first.
    const earlier = data.scarce(resource) ? data.firstMade(resource) : undefined;
    const reuse = async (): Promise<Made> => {
      const e = earlier!;
      // What the create answered is what it set (later checks may have updated the record since).
      const record: SceneRecord = { resource, id: e.id, data: { ...e.body }, exchange: e.exchange };
      return { record, exchange: e.exchange, from: e.from!, to: e.to!, ...(e.as ? { as: e.as } : {}) };
    };
    const made = () => (first ??= earlier?.from !== undefined && earlier.to !== undefined ? reuse() : make());
    for (const field of managed) {
      const source = field.managed;
      const id = `${resource.name}.${field.name}.managed`;
      await ctx.check('resources', id, `${resource.name}.${field.name}: set by the service on create (${describeSource(source)})`, { pointer: source.pointer, text: `${field.name}: managed ${describeSource(source)}` }, async () => {
        const m = await made();
        if (!setsOn(source, 'create')) return;
        await holds(ctx, data, resource, field, source, m, m.record.data, 'create', m.from, m.to, () => (second ??= make()));
      });
    }
    const update = ctx.endpoint(resource.name, 'update');
    const changeable = data.writable(resource, ctx.version).find((f) => f.type !== 'ref' && !f.writeOnly && !resource.unique.some((u) => u.fields.includes(f.name)) && !f.enum);
    for (const field of managed) {
      const source = field.managed;
      const id = `${resource.name}.${field.name}.managed-on-update`;
      const title = setsOn(source, 'change') ? `${resource.name}.${field.name}: set again by an update (${describeSource(source)})` : `${resource.name}.${field.name}: unchanged by an update (${describeSource(source)})`;
      // No update at all: the spec gives nothing to change the record with, so nothing to hold this to.
      if (!update) {
        ctx.skip('resources', id, title, `the spec declares no update of ${resource.name}`, { kind: 'not-applicable' });
        continue;
      }
      if (!changeable) {
        ctx.skip('resources', id, title, `not checked: the update of ${resource.name} has no plain field (not a ref, an enum or under a uniqueness) the tester changes`);
        continue;
      }
      await ctx.check('resources', id, title, { pointer: source.pointer, text: `${field.name}: managed ${describeSource(source)}` }, async () => {
        const m = await made();
        const before = { ...m.record.data };
        let value: unknown;
        // A new value, which leaves a record that keeps the record rules.
        const fits = (v: unknown) => v !== undefined && !jsonEqual(v, before[changeable.name]) && !data.domain.brokenRule(resource, { ...before, [changeable.name]: v }, ctx.now());
        for (let i = 0; i < 20 && !fits(value); i++) value = ctx.draw.one(valueOf(changeable));
        if (!fits(value)) throw new Skip(`not checked: no value of ${changeable.name} drawn keeps the ${resource.name}'s record rules`);
        const from = ctx.now();
        const ex = await scene.send(update, m.record, { [changeable.name]: value });
        const to = ctx.now();
        if (ex.response.status < 200 || ex.response.status >= 300) throw new Skip(`not checked: the update of ${changeable.name} was refused (${ex.response.status})`);
        const after = (await scene.read(resource, m.record.id)) ?? (ex.response.json as Data);
        m.record.data = after;
        if (setsOn(source, 'change')) return holds(ctx, data, resource, field, source, { ...m, exchange: ex }, after, 'change', from, to);
        if (!jsonEqual(after[field.name], before[field.name])) throw new Failure(`${field.name} was ${JSON.stringify(before[field.name])} and reads ${JSON.stringify(after[field.name])} after an update; it is set on create only`, ex);
      });
    }
  }
}

function describeSource(source: ManagedSource): string {
  switch (source.kind) {
    case 'sequence':
      return `sequence ${source.template}`;
    case 'expr':
      return `${source.expr.source}, on ${source.on}`;
    default:
      return source.kind;
  }
}

async function holds(ctx: TestContext, data: DataFactory, resource: Resource, field: Field, source: ManagedSource, m: Made, record: Data, write: 'create' | 'change', from: number, to: number, another?: () => Promise<Made>): Promise<void> {
  const value = record[field.name];
  const ex = m.exchange;
  switch (source.kind) {
    case 'created-at':
    case 'updated-at': {
      if (typeof value !== 'string') throw new Failure(`${field.name} is ${JSON.stringify(value)}; the service sets it to the time of the ${write === 'create' ? 'create' : 'write'}`, ex);
      const day = field.format === 'date';
      const form = day ? /^\d{4}-\d{2}-\d{2}$/ : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
      if (!form.test(value)) throw new Failure(`${field.name} is '${value}', not ${day ? 'a date' : 'an RFC 3339 date-time'}`, ex);
      const at = Date.parse(value);
      const lo = from - CLOCK_SKEW_MS;
      const hi = to + CLOCK_SKEW_MS;
      const inWindow = day ? value >= new Date(lo).toISOString().slice(0, 10) && value <= new Date(hi).toISOString().slice(0, 10) : at >= lo && at <= hi;
      if (!inWindow) throw new Failure(`${field.name} is ${value}, outside the time of the request (${new Date(from).toISOString()} to ${new Date(to).toISOString()}, ±${CLOCK_SKEW_MS / 1000} s)`, ex);
      return;
    }
    case 'created-by':
    case 'updated-by': {
      const as = m.as;
      if (!as) {
        if (value !== undefined && value !== null) throw new Failure(`${field.name} is ${JSON.stringify(value)} on a record made anonymously`, ex);
        return;
      }
      if (as.id === undefined) throw new Skip(`not checked: the tester is not told the id of principal ${as.name} (give the principal an id)`);
      if (value !== as.id) throw new Failure(`${field.name} is ${JSON.stringify(value)}, not the id of the principal who made the request ('${as.id}')`, ex);
      return;
    }
    case 'sequence': {
      const pattern = sequencePattern(source.template);
      if (typeof value !== 'string' || !pattern.test(value)) throw new Failure(`${field.name} is ${JSON.stringify(value)}, not of the form ${source.template} (${pattern.source})`, ex);
      if (another) {
        const other = await another();
        if (other.record.data[field.name] === value) throw new Failure(`two ${resource.name}s were given the same ${field.name} '${value}'`, other.exchange);
      }
      return;
    }
    case 'expr': {
      const expected = data.domain.evaluate(resource, source.expr, { self: data.domain.self(resource, record), now: new Date(from) });
      if (expected === undefined) {
        if (value !== undefined && value !== null && write === 'create') throw new Skip(`not checked: '${source.expr.source}' has no value for this record as read`);
        return;
      }
      if (expected instanceof Date) {
        const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
        if (Number.isNaN(at) || at < from - CLOCK_SKEW_MS || at > to + CLOCK_SKEW_MS) throw new Failure(`${field.name} is ${JSON.stringify(value)}, not '${source.expr.source}' at the time of the request`, ex);
        return;
      }
      const want = fromCel(expected, field);
      if (!jsonEqual(value, want)) throw new Failure(`${field.name} is ${JSON.stringify(value)}, not ${JSON.stringify(want)} ('${source.expr.source}' of the record)`, ex);
    }
  }
}
