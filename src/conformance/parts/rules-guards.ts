/**
 * Guards (issue #14): each guard of a create, an update, a transition, an action or a delete is made to
 * fail against the implementation, and the write must be refused with the guard's bound
 * error and leave nothing changed. The tester builds the failing situation from records of
 * its own (./rules-scene.ts), judging each step by evaluating the guards locally (CEL, in
 * the environment every stage shares), and moves towards it by what the spec declares:
 *
 *   the record a guard reads through a ref is walked, by declared transitions, to a state in
 *   which the guard fails (a member suspended: member-suspended);
 *   the writes that change that record are made on siblings sharing it (another loan of the
 *   same one-copy book approved: book-unavailable);
 *   the records a count counts are created, and walked to the states it counts (as many open
 *   loans as the member may have: loan-limit-reached);
 *   a write whose guard reads the record itself is repeated while it is allowed (renewed
 *   three times: renewal-limit-reached);
 *   the record itself walked to a state the guard refuses (an update of a closed ticket:
 *   ticket-closed);
 *   a record the guard reads, or the record an array item points to (a guard with `each`),
 *   changed by its update to a value that fails it (an agent deactivated: agent-inactive; an
 *   order line's product taken off sale or out of stock);
 *   an optional field of the request sent with a value of its own (a coupon code no coupon
 *   has: coupon-invalid).
 *
 * Guards are evaluated in order and the first false one refuses, so the situation must fail
 * this guard and let the earlier ones hold. What the tester cannot build is "not checked".
 */
import type { Field, Guard, Resource } from '../../spec/model.ts';
import { fromCel, itemFields, refsReadBy } from '../../spec/domain/cel.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { countsRead, readsRef, selfFields, type DomainWrite } from '../rules-data.ts';
import { expectCode, fromStates, machineOf, partOf, requestFor, routeFrom, sameId, Scene, writeName, type SceneRecord } from './rules-scene.ts';

type Data = Record<string, unknown>;

/** How many moves the tester makes towards a failing guard before it gives up (each is a few requests). */
const MAX_MOVES = 6;

export async function checkGuards(ctx: TestContext, data: DataFactory, part: 'resources' | 'states' | 'endpoints'): Promise<void> {
  for (const resource of ctx.spec.resources) {
    for (const write of data.domain.writes(resource)) {
      if (partOf(write) !== part) continue;
      for (const [i, g] of write.rules.guards.entries()) {
        const dup = write.rules.guards.filter((x) => x.error === g.error).length > 1;
        const id = `${resource.name}.${writeName(write)}.guard.${g.error}${dup ? `-${i + 1}` : ''}`;
        const title = `${resource.name}: ${writeName(write)} is refused with ${g.error} when \`${g.expr.source}\` does not hold`;
        await ctx.check(part, id, title, { pointer: g.pointer, text: `guard ${g.expr.source} → ${g.error}` }, () => provoke(ctx, data, resource, write, i));
      }
    }
  }
}

/** What the write would see now, and the first guard that would refuse it (-1: none). */
export interface Judgement {
  readonly vars: Data;
  readonly first: number;
  /** Counts the tester cannot know (they count records it did not make). */
  readonly unknownCounts: readonly string[];
}

/** The record a write would leave (before effects), as its guards see `self`. */
export function selfOf(scene: Scene, write: DomainWrite, body: Data | undefined, subject: SceneRecord | undefined = scene.subject): Data {
  const ctx = scene.ctx;
  if (write.kind === 'create') {
    const machine = machineOf(ctx, scene.resource);
    return { ...scene.data.domain.predictCreate(scene.resource, body ?? {}, ctx.now()), ...(machine ? { [machine.field]: machine.initial } : {}) };
  }
  const current = subject?.data ?? {};
  if (write.kind === 'update') return { ...current, ...(body ?? {}) };
  if (write.kind === 'transition') {
    const machine = machineOf(ctx, scene.resource);
    const t = machine?.transitions.find((x) => x.name === write.name);
    return { ...current, ...(body ?? {}), ...(machine && t ? { [machine.field]: t.to } : {}) };
  }
  return { ...current };
}

/** Evaluates the write's guards on the scene as it stands, with `override` of the targets' data. */
export function judge(scene: Scene, write: DomainWrite, body: Data | undefined, override: Record<string, Data> = {}): Judgement {
  const domain = scene.data.domain;
  // `override.self`: the subject as it would be (walked to another state).
  const subject = override.self && scene.subject ? { ...scene.subject, data: override.self } : scene.subject;
  const self = selfOf(scene, write, body, subject);
  const refs: Record<string, { resource: Resource; data: Data; id?: string }> = {};
  for (const [field, t] of scene.targets) if (sameId(self[field], t.id)) refs[field] = { resource: t.resource, data: override[field] ?? t.data, id: t.id };
  const base = { self, ...(subject ? { old: subject.data, id: subject.id } : {}), ...(body ? { request: body } : {}), ...(write.requestFields ? { requestFields: write.requestFields } : {}), ...(scene.as?.id !== undefined ? { principal: scene.as.id } : {}), refs, now: scene.ctx.now() };
  const unknownCounts: string[] = [];
  const count: Record<string, number> = {};
  const pre = domain.writeVars(scene.resource, base);
  for (const c of write.rules.counts) {
    const target = scene.ctx.resource(c.resource);
    if (!target || !c.where.some((w) => 'expr' in w)) {
      unknownCounts.push(c.name);
      continue;
    }
    const wanted = c.where.map((w) => ('expr' in w ? { field: w.field, values: [fromCel(domain.evaluate(scene.resource, w.expr, pre, write), target.fields.find((f) => f.name === w.field))] } : w));
    const pool: SceneRecord[] = [...(scene.subject && scene.subject.resource.name === target.name ? [scene.subject] : []), ...[...scene.targets.values(), ...scene.related].filter((r) => r.resource.name === target.name)];
    count[c.name] = pool.filter((r) => wanted.every((w) => w.values.some((v) => (v === null ? r.data[w.field] == null : sameId(r.data[w.field], v) || r.data[w.field] === v)))).length;
  }
  const vars = domain.writeVars(scene.resource, { ...base, count });
  const first = write.rules.guards.findIndex((g) => {
    if (g.each === undefined) return domain.evaluate(scene.resource, g.expr, vars, write) === false;
    // On each item: the items whose ref records the scene made (the first); the others point at records made for the guards to hold.
    const items = self[g.each];
    if (!Array.isArray(items)) return false;
    return items.some((item, i) => {
      const itemRefs: Record<string, { resource: Resource; data: Data; id?: string }> = {};
      for (const [key, r] of scene.items) {
        const [field, index, member] = key.split(':');
        if (field === g.each && Number(index) === i && sameId((item as Data)?.[member as string], r.id)) itemRefs[member as string] = { resource: r.resource, data: override[`item:${key}`] ?? r.data, id: r.id };
      }
      // An item whose records the scene did not make is judged only by a guard that reads the item alone.
      if (!Object.keys(itemRefs).length && refsReadBy(g.expr.source, 'itemRefs').size) return false;
      return !domain.itemHolds(scene.resource, write, g, item as Data, itemRefs, scene.ctx.now(), vars);
    });
  });
  return { vars, first, unknownCounts };
}

async function provoke(ctx: TestContext, data: DataFactory, resource: Resource, write: DomainWrite, index: number): Promise<void> {
  const guard = write.rules.guards[index] as Guard;
  const unknown = countsRead(guard.expr).filter((n) => {
    const c = write.rules.counts.find((x) => x.name === n);
    return !c || !c.where.some((w) => 'expr' in w);
  });
  if (unknown.length) throw new Skip(`not checked: the guard reads count.${unknown[0]}, which counts records the tester cannot tell apart from others (no condition ties it to the record written)`);
  const scene = new Scene(ctx, data, resource);
  // The refs a transition requires that the create does not carry (a ticket's assignee, sent by start) are the scene's too: its guard reads them.
  await scene.makeTargets(requiredRefs(ctx, resource, write, scene));
  if (write.kind === 'create') await scene.makeTargets();
  else await scene.makeSubject(fromStates(ctx, resource, write));
  const body = write.kind === 'create' ? await scene.body() : await requestFor(scene, write);
  const tried: string[] = [];
  let stuck = '';
  for (let step = 0; step <= MAX_MOVES; step++) {
    const j = judge(scene, write, body);
    if (j.first === index) return refuse(scene, write, guard, body);
    if (j.first !== -1) throw new Skip(`not checked: in the setup the tester found, the earlier guard \`${write.rules.guards[j.first]?.expr.source}\` (${write.rules.guards[j.first]?.error}) refuses first`);
    const seen = snapshot(j.vars, scene);
    const move = await moveTowards(scene, write, index, body);
    if (!move) break;
    tried.push(move);
    await scene.refresh();
    // A move that changed nothing the guard reads (an effect the implementation did not apply) is not repeated.
    if (snapshot(judge(scene, write, body).vars, scene) === seen) {
      stuck = `, which changed nothing the guard reads`;
      break;
    }
  }
  throw new Skip(`not checked: the tester found no records that make \`${guard.expr.source}\` false${tried.length ? ` (after: ${tried.join('; ')}${stuck})` : ''}; it walks the records the guard reads through declared transitions, creates what a count counts, and repeats writes that change them`);
}

/** The ref fields a transition requires that a create of the resource does not carry. */
function requiredRefs(ctx: TestContext, resource: Resource, write: DomainWrite, scene: Scene): Field[] {
  if (write.kind !== 'transition') return [];
  const t = machineOf(ctx, resource)?.transitions.find((x) => x.name === write.name);
  const carried = new Set(scene.refFields().map((f) => f.name));
  return resource.fields.filter((f) => f.type === 'ref' && f.resource && t?.requires.includes(f.name) && !carried.has(f.name));
}

/** What a guard reads (its variables), comparable between two moments. */
function snapshot(vars: Data, scene: Scene): string {
  const { now: _now, ...rest } = vars;
  // The records items point to are read by guards on each item, outside `vars`.
  return JSON.stringify({ ...rest, items: Object.fromEntries([...scene.items].map(([k, r]) => [k, r.data])) }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v instanceof Date ? v.toISOString() : v));
}

/** Sends the write whose guard fails: refused with the bound error, and nothing of it kept. */
async function refuse(scene: Scene, write: DomainWrite, guard: Guard, body: Data | undefined): Promise<void> {
  const ctx = scene.ctx;
  const before = scene.subject ? { ...scene.subject.data } : undefined;
  const ex = await scene.fire(write, scene.subject, body);
  if (write.kind === 'create') await scene.data.discard(scene.resource, ex, scene.as);
  expectCode(ctx, ex, guard.error);
  if (scene.subject && before) {
    const after = await scene.read(scene.resource, scene.subject.id);
    if (write.kind === 'delete' && after === undefined) throw new Failure(`the ${scene.resource.name} was deleted although the delete was refused`, ex);
    const machine = machineOf(ctx, scene.resource);
    if (after && machine && after[machine.field] !== before[machine.field]) throw new Failure(`the refused ${writeName(write)} moved the ${scene.resource.name} from '${String(before[machine.field])}' to '${String(after[machine.field])}'`, ex);
  }
}

/** One move towards a situation in which the guard fails; its description, or undefined when none is left. */
async function moveTowards(scene: Scene, write: DomainWrite, index: number, body: Data | undefined): Promise<string | undefined> {
  const ctx = scene.ctx;
  const guard = write.rules.guards[index] as Guard;
  const domain = scene.data.domain;
  // 0. The record itself, walked to a state in which the guard fails (a closed ticket does not change).
  if (scene.subject && (write.kind === 'update' || write.kind === 'delete')) {
    const machine = machineOf(ctx, scene.resource);
    const subject = scene.subject;
    if (machine && new RegExp(`\\b(?:old|self)\\.${machine.field}\\b`).test(guard.expr.source)) {
      const failing = machine.states.filter((st) => st !== subject.data[machine.field] && judge(scene, write, body, { self: { ...subject.data, [machine.field]: st } }).first === index);
      if (failing.length && routeFrom(machine, String(subject.data[machine.field] ?? machine.initial), (st) => failing.includes(st))) {
        await scene.walk(subject, failing);
        return `the ${scene.resource.name} walked to '${String(subject.data[machine.field])}'`;
      }
    }
  }
  // 1b. A record the guard reads (through a ref, or an item's ref), changed by its update to values for which the guard fails (an agent deactivated, a product off sale).
  const readRecords: [string, SceneRecord, RegExp][] = [
    ...[...scene.targets].map(([field, t]): [string, SceneRecord, RegExp] => [field, t, new RegExp(`\\brefs\\.${field}\\.(\\w+)`, 'g')]),
    ...[...scene.items].map(([key, t]): [string, SceneRecord, RegExp] => [`item:${key}`, t, new RegExp(`\\bitemRefs\\.${key.split(':')[2] as string}\\.(\\w+)`, 'g')]),
  ];
  for (const [key, target, pattern] of readRecords) {
    // An item's record is read only by a guard on each item of that array.
    if (key.startsWith('item:') && guard.each !== key.split(':')[1]) continue;
    const names = new Set([...guard.expr.source.matchAll(pattern)].map((m) => m[1] as string));
    const writable = scene.data.writable(target.resource, ctx.version).filter((f) => names.has(f.name));
    for (const f of writable) {
      const now = target.data[f.name];
      const candidates: unknown[] = f.type === 'boolean' ? [now !== true] : f.enum ? f.enum.filter((v) => v !== now) : f.type === 'integer' || f.type === 'number' ? [f.minimum ?? 0, f.maximum].filter((v) => v !== undefined && v !== now) : timeEdges(f).filter((v) => v !== now);
      const value = candidates.find((v) => judge(scene, write, body, { [key]: { ...target.data, [f.name]: v } }).first === index);
      if (value === undefined) continue;
      await scene.setLater(target, { [f.name]: value });
      return `the ${target.resource.name}'s ${f.name} set to ${JSON.stringify(value)}`;
    }
  }
  // 1d. A member of the request's first item the guard reads (`item.quantity`), sent with a value at the edge of its shape.
  const items = guard.each !== undefined && body ? body[guard.each] : undefined;
  if (Array.isArray(items) && items[0] !== null && typeof items[0] === 'object') {
    const field = scene.resource.fields.find((f) => f.name === guard.each);
    const read = new Set([...guard.expr.source.matchAll(/\bitem\s*\.\s*(\w+)/g)].map((m) => m[1] as string));
    for (const m of (field ? itemFields(field) : []).filter((x) => read.has(x.name) && x.type !== 'ref')) {
      const now = (items[0] as Data)[m.name];
      const candidates: unknown[] = m.type === 'boolean' ? [now !== true] : m.enum ? m.enum.filter((v) => v !== now) : m.type === 'integer' || m.type === 'number' ? [m.maximum, m.minimum ?? 0].filter((v) => v !== undefined && v !== now) : [];
      const at = (v: unknown) => ({ ...body, [guard.each as string]: [{ ...(items[0] as Data), [m.name]: v }, ...items.slice(1)] });
      const value = candidates.find((v) => judge(scene, write, at(v)).first === index);
      if (value === undefined || !body) continue;
      body[guard.each as string] = at(value)[guard.each as string];
      return `the first ${guard.each} item's ${m.name} set to ${JSON.stringify(value)}`;
    }
  }
  // 1c. An optional field of the request the guard reads, sent with a value of its own (a coupon code no coupon has).
  if (body) {
    for (const name of new Set([...guard.expr.source.matchAll(/\brequest\.(\w+)/g)].map((m) => m[1] as string))) {
      const f = (write.requestFields ?? scene.resource.fields).find((x) => x.name === name);
      if (!f || f.required || body[name] !== undefined || f.type === 'ref') continue;
      const value = (await scene.data.validBody(scene.resource, { only: [name], ...(scene.as ? { as: scene.as } : {}) }))[name];
      if (value === undefined || judge(scene, write, { ...body, [name]: value }).first !== index) continue;
      body[name] = value;
      return `the request's ${name} set to ${JSON.stringify(value)}`;
    }
  }
  // 1. A record the guard reads, walked to a state in which the guard fails.
  for (const [field, target] of scene.targets) {
    if (!readsRef(guard.expr, field)) continue;
    const machine = machineOf(ctx, target.resource);
    if (!machine) continue;
    const failing = machine.states.filter((s) => s !== target.data[machine.field] && judge(scene, write, body, { [field]: { ...target.data, [machine.field]: s } }).first === index);
    const route = routeFrom(machine, String(target.data[machine.field] ?? machine.initial), (s) => failing.includes(s));
    if (!route) continue;
    await scene.walk(target, failing);
    return `the ${field} walked to '${String(target.data[machine.field])}'`;
  }
  // 2. A write that changes a record the guard reads, made on a sibling sharing that record.
  for (const [field, target] of scene.targets) {
    if (!readsRef(guard.expr, field)) continue;
    for (const other of domain.writes(scene.resource)) {
      const effects = other.rules.effects.filter((e) => e.ref === field && e.increment.length);
      if (!effects.length) continue;
      let simulated = { ...target.data };
      let times = 0;
      for (let k = 1; k <= 3 && !times; k++) {
        for (const e of effects) for (const inc of e.increment) simulated = { ...simulated, [inc.field]: (typeof simulated[inc.field] === 'number' ? (simulated[inc.field] as number) : 0) + inc.by };
        if (judge(scene, write, body, { [field]: simulated }).first === index) times = k;
      }
      if (!times) continue;
      for (let k = 0; k < times; k++) {
        const sibling = await scene.sibling(field);
        if (other.kind === 'create') continue;
        const from = fromStates(ctx, scene.resource, other);
        if (from) await scene.walk(sibling, from);
        const ex = await scene.fire(other, sibling, await requestFor(scene, other));
        if (ex.response.status < 200 || ex.response.status >= 300) throw new Skip(`not checked: ${writeName(other)} of another ${scene.resource.name} of the same ${field} was refused (${ex.response.status}): ${ex.response.text.slice(0, 200)}`);
      }
      return `${writeName(other)} of ${times} other ${scene.resource.name}${times === 1 ? '' : 's'} of the same ${field}`;
    }
  }
  // 3. One more record of those a count counts.
  const j = judge(scene, write, body);
  for (const name of countsRead(guard.expr)) {
    const c = write.rules.counts.find((x) => x.name === name);
    const target = c && ctx.resource(c.resource);
    if (!c || !target) continue;
    const set: Data = {};
    let states: string[] | undefined;
    const machine = machineOf(ctx, target);
    const writable = scene.data.createFields(target, ctx.version).map((f) => f.name);
    for (const w of c.where) {
      if ('expr' in w) {
        set[w.field] = fromCel(domain.evaluate(scene.resource, w.expr, j.vars, write), target.fields.find((f) => f.name === w.field));
      } else if (machine && w.field === machine.field) {
        states = w.values.filter((v): v is string => typeof v === 'string');
      } else if (writable.includes(w.field)) {
        set[w.field] = w.values[0];
      } else return undefined;
    }
    // Values its create does not carry (a ticket's assignee) are sent by the transitions that require them on the way, or by its update.
    const made = await scene.createSetting(target, set, `a record that count.${name} counts`, states);
    scene.related.push(made);
    return `a ${target.name} counted by count.${name}`;
  }
  // 4. The write itself, repeated on the record while it is allowed (a renewal counter).
  if (scene.subject && selfFields(guard.expr).length && write.kind !== 'create' && write.kind !== 'delete') {
    const t = machineOf(ctx, scene.resource)?.transitions.find((x) => x.name === write.name);
    if (write.kind === 'transition' && (!t || !t.from.includes(t.to))) return undefined;
    const ex = await scene.fire(write, scene.subject, await requestFor(scene, write));
    if (ex.response.status < 200 || ex.response.status >= 300) throw new Skip(`not checked: repeating ${writeName(write)} on the way was refused (${ex.response.status}): ${ex.response.text.slice(0, 200)}`);
    return `${writeName(write)} once more`;
  }
  return undefined;
}

/**
 * A date or date-time well before and well after any run (a call for papers closed long ago,
 * or far off): a guard comparing it with `now` (`now < refs.conference.cfpClosesAt`) fails on
 * one of them. Other strings have no edge the tester can tell.
 */
function timeEdges(f: Field): string[] {
  if (f.type !== 'string') return [];
  if (f.format === 'date-time') return ['2000-01-01T00:00:00.000Z', '2999-12-31T23:59:59.000Z'];
  if (f.format === 'date') return ['2000-01-01', '2999-12-31'];
  return [];
}
