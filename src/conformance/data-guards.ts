/**
 * What generated data does for the spec's guards (issue #14), beside ./data.ts: a record a
 * guard reads walked to the state the guard wants (a payment captured before it pays an
 * order), optional fields a create guard would refuse left out (a coupon code no coupon
 * has), and the records array items point to chosen so that the guards on each item hold
 * (an order line's product on sale and in stock).
 */
import { idOf } from '../spec/conventions/ids.ts';
import { hasOwner } from '../spec/conventions/ownership.ts';
import { itemFields } from '../spec/domain/cel.ts';
import type { Field, Resource } from '../spec/model.ts';
import { Skip, type Principal } from './context.ts';
import type { DataFactory, Made } from './data.ts';
import { isObject } from './expect.ts';
import { routeFrom } from './rules-data.ts';

/** What a record made for one ref must also satisfy (DataFactory.freshTarget). */
export interface FreshOptions {
  readonly accept?: (record: Record<string, unknown>) => boolean;
  readonly set?: Record<string, unknown>;
  readonly room?: number;
}

/**
 * A record made for one ref of one body: the guards of the referring resource that read it
 * hold for it (a fresh loan's book has a copy on the shelf), and nothing else points at it.
 * A guard may want it in a state other than its first (a payment captured before it pays an
 * order): such a record is made, then walked there by declared transitions.
 */
export async function freshTarget(data: DataFactory, referrer: Resource, field: Field, as?: Principal, options: FreshOptions = {}): Promise<string | number> {
  const made = await friendlyRecord(data, referrer, field, as, options);
  return idOf(made.resource).assigned === 'sequence' && /^\d+$/.test(made.id) ? Number(made.id) : made.id;
}

/**
 * freshTarget's record itself. `by`: who makes it, where the caller must (the principal that
 * nests children under it); else the referring record's maker where it must own it (an owned
 * target: another's is not there for it), else whoever has most of the target's create quota left.
 * The record's body is as created: a record walked on is in the state the walk left it in.
 */
export async function friendlyRecord(data: DataFactory, referrer: Resource, field: Field, as?: Principal, options: FreshOptions & { readonly by?: Principal } = {}): Promise<Made> {
  const target = data.ctx.resource(field.resource ?? '');
  if (!target) throw new Skip(`a ref names resource '${field.resource ?? ''}', which the spec does not declare`);
  const friendly = (record: Record<string, unknown>) => data.domain.friendlyTarget(referrer, field.name, record, target, data.ctx.now(), options.room) && (options.accept?.(record) ?? true);
  const machine = data.machine(target);
  const goals = (record: Record<string, unknown>) => (machine ? machine.states.filter((s) => friendly({ ...record, [machine.field]: s })) : []);
  const by = options.by ?? (as && hasOwner(target) ? as : data.maker(target) ?? as);
  const redraw = () => data.validBody(target, { ...(by ? { as: by } : {}), accept: (r) => friendly(r) || goals(r).length > 0, ...(options.set ? { set: options.set } : {}) });
  const made = await data.create(target, { ...(by ? { as: by } : {}), body: await redraw(), redraw });
  if (machine && !friendly(made.body)) await walkTo(data, target, made.id, String(made.body[machine.field] ?? machine.initial), goals(made.body), by);
  return made;
}

/**
 * The record a ref a transition's guard reads points at (valuesFor): made for it, and made
 * again only where the guards reading it count records (an agent's open tickets); one that
 * nothing counts serves again (a captured payment pays another order), no one else changing it.
 */
export async function guardedRef(data: DataFactory, resource: Resource, f: Field, as?: Principal): Promise<string | number> {
  const key = `${resource.name}.${f.name}:${as?.name ?? ''}`;
  const kept = data.guarded.get(key);
  const reusable = data.domain.refGuards(resource, f.name).every(({ write }) => !write.rules.counts.length);
  const id = kept !== undefined && reusable ? kept : await freshTarget(data, resource, f, as);
  data.guarded.set(key, id);
  return id;
}

/** Walks a record by the shortest route of declared transitions to one of the states; a refusal on the way is "not checked". */
export async function walkTo(data: DataFactory, resource: Resource, id: string, from: string, states: readonly string[], as?: Principal): Promise<void> {
  const machine = data.machine(resource);
  const route = machine && routeFrom(machine, from, (s) => states.includes(s));
  if (!machine || !route) throw new Skip(`not checked: no transition leads a ${resource.name} from '${from}' to ${states.map((s) => `'${s}'`).join(' or ')}`);
  for (const t of route) {
    const endpoint = data.ctx.endpoint(resource.name, 'transition', t.name);
    if (!endpoint) throw new Skip(`not checked: the transition ${resource.name}.${t.name} has no endpoint`);
    const by = as && data.ctx.may(as, endpoint) ? as : data.ctx.principalFor(endpoint);
    const body = t.requires.length ? await data.valuesFor(resource, t.requires, by) : undefined;
    const ex = await data.ctx.call(endpoint.method, data.itemPath(endpoint, id), { ...(body ? { body } : {}), as: by ?? null });
    if (ex.response.status < 200 || ex.response.status >= 300) throw new Skip(`not checked: on the way to '${t.to}', ${resource.name} ${t.name} was refused (${ex.response.status}): ${ex.response.text.slice(0, 200)}`);
  }
}

/**
 * Leaves out the optional fields a create guard would refuse the body for whatever exists
 * (a coupon code that no coupon has): a valid body is one a faithful implementation takes.
 * A guard that still refuses without them is left to the check that sends the body.
 */
export function dropRefused(data: DataFactory, resource: Resource, candidate: Record<string, unknown>, fields: readonly Field[]): void {
  for (const guard of data.domain.refusingCreateGuards(resource, candidate, data.ctx.now())) {
    const optional = [...guard.expr.source.matchAll(/\brequest\.(\w+)/g)].map((m) => m[1] as string).filter((n) => n in candidate && !fields.find((f) => f.name === n)?.required);
    const kept = Object.fromEntries(optional.map((n) => [n, candidate[n]]));
    for (const n of optional) delete candidate[n];
    if (data.domain.refusingCreateGuards(resource, candidate, data.ctx.now()).includes(guard)) Object.assign(candidate, kept);
  }
}

/**
 * Points the ref members of array items that guards on each item read (an order line's
 * product, which must be on sale and in stock) at records for which those guards hold for
 * that item: one such record kept per member and principal while it suits, else a new one.
 */
export async function friendlyItems(data: DataFactory, resource: Resource, body: Record<string, unknown>, as?: Principal): Promise<void> {
  for (const f of resource.fields) {
    const items = body[f.name];
    if (f.type !== 'array' || !Array.isArray(items)) continue;
    for (const m of itemFields(f)) {
      const target = m.type === 'ref' ? data.ctx.resource(m.resource ?? '') : undefined;
      if (!target || !data.domain.itemGuards(resource, f.name, m.name).length) continue;
      for (const item of items) if (isObject(item) && item[m.name] !== undefined) item[m.name] = (await itemTarget(data, resource, f.name, m.name, target, item, as)).id;
    }
  }
}

/** A record for the ref member of one item for which the guards on the items hold; `fresh`: made for the caller alone. */
export async function itemTarget(data: DataFactory, resource: Resource, field: string, member: string, target: Resource, item: Record<string, unknown>, as?: Principal, fresh = false): Promise<{ id: string | number; data: Record<string, unknown> }> {
  const friendly = (record: Record<string, unknown>) => data.domain.friendlyItemTarget(resource, field, member, item, record, target, data.ctx.now());
  const key = `${resource.name}.${field}.${member}:${as?.name ?? ''}`;
  const kept = fresh ? undefined : data.itemTargets.get(key);
  if (kept && friendly(kept.data)) return kept;
  const targetCreate = data.ctx.endpoint(target.name, 'create');
  const by = as && (hasOwner(target) || (targetCreate && data.ctx.may(as, targetCreate))) ? as : undefined;
  const redraw = () => data.validBody(target, { ...(by ? { as: by } : {}), accept: friendly });
  const made = await data.create(target, { ...(by ? { as: by } : {}), body: await redraw(), redraw });
  const result = { id: idOf(target).assigned === 'sequence' && /^\d+$/.test(made.id) ? Number(made.id) : made.id, data: made.body };
  if (!fresh) data.itemTargets.set(key, result);
  return result;
}

