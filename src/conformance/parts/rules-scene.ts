/**
 * The records one check of a domain rule works with (a "scene"): a subject record and the
 * records its refs point to, made for the check alone so that what the rule counts and
 * reads is what the tester made; reads of them; the writes that move them (transitions,
 * creates of related records). Shared by the rules-*.ts parts.
 *
 * A step of a setup that a faithful implementation would accept but this one refused makes
 * the check "not checked" (Skip), never failed: the check is about its rule, and the
 * refusal is another check's finding.
 */
import type { Endpoint, Field, Resource, StateMachine, Transition } from '../../spec/model.ts';
import { itemFields } from '../../spec/domain/cel.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectErrorShape, isObject } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { routeFrom, type DomainWrite } from '../rules-data.ts';

export { routeFrom };
import { transitionEndpoint } from './states.ts';
import { idOf } from '../../spec/conventions/ids.ts';

type Data = Record<string, unknown>;

/** How far apart the tester's clock and the implementation's may be when it checks a time stamp (ms). */
export const CLOCK_SKEW_MS = 5_000;

/** The bound error of a rule: the catalog's status for its code, the code, the declared shape. */
export function expectCode(ctx: TestContext, ex: Exchange, code: string): void {
  const entry = ctx.spec.errors.catalog.find((e) => e.code === code);
  const status = entry?.status;
  if (status !== undefined && ex.response.status !== status) {
    const text = ex.response.text;
    throw new Failure(`expected ${status} (${code}), got ${ex.response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, ex);
  }
  const member = ctx.errorShape.members.code;
  const body = ex.response.json;
  if (member && (!isObject(body) || body[member] !== code)) throw new Failure(`the error's '${member}' is ${JSON.stringify(isObject(body) ? body[member] : undefined)}, not '${code}'`, ex);
  expectErrorShape(ctx, ex);
}

/** Whether two ids (a number in one place, its text in another) are the same. */
export function sameId(a: unknown, b: unknown): boolean {
  return a !== undefined && a !== null && b !== undefined && b !== null && String(a) === String(b);
}

export function machineOf(ctx: TestContext, resource: Resource): StateMachine | undefined {
  return ctx.spec.states.find((m) => m.resource === resource.name);
}

/** The record as the implementation reads it now; undefined where the spec has no read. */
export async function readRecord(ctx: TestContext, data: DataFactory, resource: Resource, id: string): Promise<{ data: Data; exchange: Exchange } | undefined> {
  const read = ctx.endpoint(resource.name, 'read');
  if (!read) return undefined;
  const ex = await ctx.call('GET', data.itemPath(read, id), { as: ctx.principalFor(read) ?? null });
  if (ex.response.status !== 200 || !isObject(ex.response.json)) return { data: {}, exchange: ex };
  return { data: ex.response.json, exchange: ex };
}

/** A record of the scene: where it is, and what it was last read as. */
export interface SceneRecord {
  readonly resource: Resource;
  readonly id: string;
  data: Data;
  /** The create that made it, when the scene made it. */
  readonly exchange?: Exchange;
  /** Values its create could not carry, which the transitions that require them send (a ticket's assignee, which `start` sets). */
  wants?: Data;
}

/**
 * The records of one check. `subject` is the record the write under test is about (none yet
 * for a create); `targets` the records its refs point to, by field; `related` everything
 * else made for it (the records a count counts, the siblings whose writes moved a target).
 */
export class Scene {
  readonly ctx: TestContext;
  readonly data: DataFactory;
  readonly resource: Resource;
  readonly as?: Principal;
  readonly targets = new Map<string, SceneRecord>();
  readonly related: SceneRecord[] = [];
  /** The records the ref members of array items point to that the scene made, by itemKey(). */
  readonly items = new Map<string, SceneRecord>();
  subject?: SceneRecord;

  constructor(ctx: TestContext, data: DataFactory, resource: Resource) {
    this.ctx = ctx;
    this.data = data;
    this.resource = resource;
    // The records the previous scene made are done with: of a scarce create, later walks may take them (src/conformance/parking.ts).
    data.parking.openScene();
    const create = data.createEndpointOrUndefined(resource);
    // Whoever makes its records elsewhere (DataFactory.maker): of a resource anyone may read, the principal with most of a per-credential quota left.
    const as = create ? data.maker(resource) : ctx.main;
    if (as) this.as = as;
  }

  /** The ref fields a create of the subject carries. */
  refFields(): Field[] {
    return this.data.createFields(this.resource, this.ctx.version).filter((f) => f.type === 'ref' && f.resource);
  }

  /**
   * A record for each ref of the subject, made for this scene: the guards that read it hold,
   * and its numbers are as small as they allow (a book of one copy: one approval exhausts it).
   * `extra`: refs the create does not carry that a write sends (a transition's required ref).
   */
  async makeTargets(extra: readonly Field[] = []): Promise<void> {
    for (const f of [...this.refFields(), ...extra]) {
      if (this.targets.has(f.name)) continue;
      const target = this.ctx.resource(f.resource as string) as Resource;
      // A scarce target (helpdesk: 5 tickets a minute) that no rule of the subject reads through this ref: the run's shared one serves.
      if (this.data.scarce(target) && !extra.includes(f) && !this.data.domain.freshRef(this.resource, f.name)) {
        const shared = String(await this.data.sharedRef(target, this.as));
        this.targets.set(f.name, { resource: target, id: shared, data: (await this.read(target, shared)) ?? {} });
        continue;
      }
      const small = this.smallest(target, (record) => this.data.domain.friendlyTarget(this.resource, f.name, record, target, this.ctx.now()));
      const id = await this.data.freshTarget(this.resource, f, this.as, { set: small });
      this.targets.set(f.name, { resource: target, id: String(id), data: (await this.read(target, String(id))) ?? {} });
    }
  }

  /** Integer fields of a create set to the smallest values `accept` allows (judged on one drawn body). */
  smallest(resource: Resource, accept: (record: Data) => boolean): Data {
    const set: Data = {};
    let base: Data;
    try {
      base = this.data.domain.predictCreate(resource, {}, this.ctx.now());
    } catch {
      return set;
    }
    for (const f of this.data.createFields(resource, this.ctx.version)) {
      if (f.type !== 'integer' || f.enum || resource.unique.some((u) => u.fields.includes(f.name))) continue;
      const lo = f.minimum ?? (f.exclusiveMinimum !== undefined ? f.exclusiveMinimum + 1 : 0);
      for (const v of [lo, lo + 1, lo + 2]) {
        if (f.maximum !== undefined && v > f.maximum) break;
        if (f.multipleOf && v % f.multipleOf !== 0) continue;
        const record = this.data.domain.predictCreate(resource, { ...base, ...set, [f.name]: v }, this.ctx.now());
        if (accept(record) && !this.data.domain.brokenRule(resource, record, this.ctx.now())) {
          set[f.name] = v;
          break;
        }
      }
    }
    return set;
  }

  /** The ids of the targets, as a create body carries them. */
  refValues(): Data {
    const out: Data = {};
    for (const [field, t] of this.targets) out[field] = idOf(t.resource).assigned === 'sequence' && /^\d+$/.test(t.id) ? Number(t.id) : t.id;
    return out;
  }

  /** A create body of the subject's resource pointing at the scene's targets its create carries (and `set`). */
  async body(set: Data = {}, accept?: (record: Data) => boolean): Promise<Data> {
    const carried = new Set(this.refFields().map((f) => f.name));
    const refs = Object.fromEntries(Object.entries(this.refValues()).filter(([k]) => carried.has(k)));
    const body = await this.data.validBody(this.resource, { ...(this.as ? { as: this.as } : {}), set: { ...refs, ...set }, ...(accept ? { accept } : {}) });
    await this.freshItems(body);
    return body;
  }

  /**
   * Points the first item of each array that guards on each item read at records made for
   * this scene alone (its `items`), so that the scene may change them (take the product off
   * sale) without touching what other checks use.
   */
  async freshItems(body: Data): Promise<void> {
    for (const f of this.resource.fields) {
      const items = body[f.name];
      if (f.type !== 'array' || !Array.isArray(items) || !isObject(items[0])) continue;
      const first = items[0] as Data;
      for (const m of itemFields(f)) {
        const target = m.type === 'ref' ? this.ctx.resource(m.resource ?? '') : undefined;
        if (!target || !this.data.domain.itemGuards(this.resource, f.name, m.name).length) continue;
        const made = await this.data.itemTarget(this.resource, f.name, m.name, target, first, this.as, true);
        first[m.name] = made.id;
        this.items.set(itemKey(f.name, 0, m.name), { resource: target, id: String(made.id), data: made.data });
      }
    }
  }

  /**
   * The subject, made and walked to a state the write starts from. It is friendly to the
   * guards of other resources that read it through their refs (a member a loan may be made
   * for), so that records counted against it can be made.
   */
  async makeSubject(from?: readonly string[]): Promise<SceneRecord> {
    await this.makeTargets();
    // The state is not the body's to choose: a guard of another resource that wants the subject
    // in a later state (a review of a submitted talk) is met by a walk, not by a body, so it
    // holds where some state meets it, or where the record has no states.
    const machine = this.data.machine(this.resource);
    const holds = (record: Data) => this.ctx.spec.resources.every((other) => other.fields.every((f) => f.type !== 'ref' || f.resource !== this.resource.name || this.data.domain.friendlyTarget(other, f.name, record, this.resource, this.ctx.now())));
    const friendly = (record: Data) => holds(record) || (machine !== undefined && machine.states.some((s) => holds({ ...record, [machine.field]: s })));
    const small = this.smallest(this.resource, friendly);
    const made = await this.create(this.resource, await this.body(small, friendly), 'the record under test', () => this.body(small, friendly));
    this.subject = { resource: this.resource, id: made.id, data: made.data };
    if (from) await this.walk(this.subject, from);
    await this.refresh();
    return this.subject;
  }

  /** Creates a record for the scene; a refusal makes the check "not checked". */
  async create(resource: Resource, body: Data, what: string, redraw?: () => Promise<Data>): Promise<SceneRecord> {
    try {
      const made = await this.data.create(resource, { ...(this.as ? { as: this.as } : {}), body, ...(redraw ? { redraw } : {}) });
      return { resource, id: made.id, data: made.body, exchange: made.exchange };
    } catch (error) {
      if (error instanceof Failure) throw new Skip(`not checked: creating ${what} (a ${resource.name}) was refused: ${error.message}`);
      throw error;
    }
  }

  /**
   * Creates a record with `set`, walked to one of `states` when given. Values its create does
   * not carry (a ticket's assignee) are sent by the transitions on the way that require them,
   * and whatever is still not set after the walk by its update where that takes them; where
   * neither does, the check is not checked, saying so.
   */
  async createSetting(resource: Resource, set: Data, what: string, states?: readonly string[]): Promise<SceneRecord> {
    const carried = new Set(this.data.createFields(resource, this.ctx.version).map((f) => f.name));
    const now: Data = {};
    const later: Data = {};
    for (const [k, v] of Object.entries(set)) (carried.has(k) ? now : later)[k] = v;
    const made = await this.create(resource, await this.data.validBody(resource, { ...(this.as ? { as: this.as } : {}), set: now }), what);
    if (Object.keys(later).length) made.wants = later;
    const machine = machineOf(this.ctx, resource);
    if (states && machine && !states.includes(String(made.data[machine.field] ?? machine.initial))) await this.walk(made, states);
    const unset = Object.fromEntries(Object.entries(later).filter(([k, v]) => !sameId(made.data[k], v)));
    if (Object.keys(unset).length) await this.setLater(made, unset);
    return made;
  }

  /** Sets fields of a record that its create does not carry, by its update. */
  async setLater(record: SceneRecord, values: Data): Promise<void> {
    const resource = record.resource;
    const names = Object.keys(values);
    const update = this.ctx.endpoint(resource.name, 'update');
    const writable = new Set(this.data.writable(resource, this.ctx.version).map((f) => f.name));
    const takes = update && (update.request.kind === 'fields' ? names.every((n) => (update.request as { fields: readonly string[] }).fields.includes(n)) : update.request.kind === 'resource' && names.every((n) => writable.has(n)));
    if (!update || !takes) throw new Skip(`not checked: a create of ${resource.name} does not carry ${names.join(', ')}, and neither its update nor a transition on the tester's way sets it`);
    const ex = await this.send(update, record, values);
    if (ex.response.status < 200 || ex.response.status >= 300) throw new Skip(`not checked: setting ${names.join(', ')} of ${resource.name} '${record.id}' by ${update.id} was refused (${ex.response.status}): ${ex.response.text.slice(0, 200)}`);
    record.data = (await this.read(resource, record.id)) ?? { ...record.data, ...values };
  }

  /** Walks a record of the scene to one of the states (by the shortest route from where it is). */
  async walk(record: SceneRecord, states: readonly string[]): Promise<void> {
    const machine = machineOf(this.ctx, record.resource);
    if (!machine) return;
    const now = String(record.data[machine.field] ?? machine.initial);
    const route = routeFrom(machine, now, (s) => states.includes(s));
    if (!route) throw new Skip(`not checked: no transition leads a ${record.resource.name} from '${now}' to ${states.map((s) => `'${s}'`).join(' or ')}`);
    for (const t of route) {
      const ex = await this.transition(record, t);
      if (ex.response.status < 200 || ex.response.status >= 300) throw new Skip(`not checked: on the way to '${t.to}', ${record.resource.name} ${t.name} was refused (${ex.response.status}): ${ex.response.text.slice(0, 200)}`);
    }
    record.data = (await this.read(record.resource, record.id)) ?? { ...record.data, [machine.field]: route.at(-1)?.to ?? now };
  }

  /** Sends a transition of a record of the scene with the fields it requires. */
  async transition(record: SceneRecord, t: Transition, body?: Data): Promise<Exchange> {
    const machine = machineOf(this.ctx, record.resource) as StateMachine;
    const endpoint = transitionEndpoint(this.ctx, machine, t);
    if (!endpoint) throw new Skip(`not checked: the transition ${record.resource.name}.${t.name} has no endpoint`);
    return this.send(endpoint, record, body ?? (await this.requestOf(record.resource, t, record)));
  }

  /**
   * The body a transition requires, of a record of the scene (the subject when none is given):
   * a value the record's create could not carry where it has one (its `wants`), for the
   * subject the scene's target of a ref its create does not carry, else a drawn one.
   */
  async requestOf(resource: Resource, t: Transition, record?: SceneRecord): Promise<Data | undefined> {
    if (!t.requires.length) return undefined;
    const subject = record === undefined || record === this.subject;
    const carried = new Set(this.refFields().map((f) => f.name));
    const given: Data = {};
    const targets = this.refValues();
    for (const name of t.requires) {
      if (record?.wants && name in record.wants) given[name] = record.wants[name];
      else if (subject && resource.name === this.resource.name && !carried.has(name) && name in targets) given[name] = targets[name];
    }
    const rest = t.requires.filter((n) => !(n in given));
    return { ...(rest.length ? await this.data.valuesFor(resource, rest, this.as) : {}), ...given };
  }

  /** Sends a request to an item endpoint of a record of the scene. */
  async send(endpoint: Endpoint, record: SceneRecord, body?: Data): Promise<Exchange> {
    const as = this.ctx.may(this.as, endpoint) ? this.as : this.ctx.principalFor(endpoint);
    const path = this.data.pathFor(endpoint, { id: record.id, body: record.data });
    return this.ctx.call(endpoint.method, path, { ...(body !== undefined ? { body } : {}), as: as ?? null });
  }

  async read(resource: Resource, id: string): Promise<Data | undefined> {
    const r = await readRecord(this.ctx, this.data, resource, id);
    return r && r.exchange.response.status === 200 ? r.data : undefined;
  }

  /** Reads every record of the scene again. */
  async refresh(): Promise<void> {
    for (const r of [...(this.subject ? [this.subject] : []), ...this.targets.values(), ...this.items.values(), ...this.related]) {
      const now = await this.read(r.resource, r.id);
      if (now) r.data = now;
    }
  }

  /**
   * A sibling of the subject: a record of the same resource that shares only the target of
   * `field` (its other refs fresh), so that its writes move that target and nothing else
   * the write under test reads.
   */
  async sibling(field: string, set: Data = {}): Promise<SceneRecord> {
    const target = this.targets.get(field);
    if (!target) throw new Skip(`not checked: the scene has no record for ${field}`);
    const value = idOf(target.resource).assigned === 'sequence' && /^\d+$/.test(target.id) ? Number(target.id) : target.id;
    const body = await this.data.validBody(this.resource, { ...(this.as ? { as: this.as } : {}), set: { [field]: value, ...set } });
    const made = await this.create(this.resource, body, `another ${this.resource.name} of the same ${field}`);
    this.related.push(made);
    return made;
  }

  /** The request of a write, and how to send it (the subject's own, or a create). */
  async fire(write: DomainWrite, record: SceneRecord | undefined, body: Data | undefined): Promise<Exchange> {
    switch (write.kind) {
      case 'create': {
        return this.ctx.call('POST', await this.data.createPath(this.resource, body, this.as), { body, as: this.as ?? null });
      }
      case 'transition': {
        const machine = machineOf(this.ctx, this.resource) as StateMachine;
        const t = machine.transitions.find((x) => x.name === write.name) as Transition;
        return this.transition(record as SceneRecord, t, body);
      }
      case 'action':
        return this.send(write.endpoint as Endpoint, record as SceneRecord, body);
      case 'update': {
        const update = this.ctx.endpoint(this.resource.name, 'update') ?? this.ctx.endpoint(this.resource.name, 'replace');
        if (!update) throw new Skip(`not checked: ${this.resource.name} has no update endpoint`);
        return this.send(update, record as SceneRecord, body);
      }
      case 'delete': {
        const del = this.ctx.endpoint(this.resource.name, 'delete');
        if (!del) throw new Skip(`not checked: ${this.resource.name} has no delete endpoint`);
        return this.send(del, record as SceneRecord);
      }
    }
  }
}

/** The key of the record an item's ref member points to: `lines:0:product`. */
export function itemKey(field: string, index: number, member: string): string {
  return `${field}:${index}:${member}`;
}

/** The name of a write in check ids and titles: create, delete, the transition, the action's entry. */
export function writeName(write: DomainWrite): string {
  if (write.kind === 'action') return write.endpoint?.name ?? write.name ?? 'action';
  return write.kind === 'transition' ? (write.name as string) : write.kind;
}

/** The part a write's checks belong to: a transition is part 3, an action part 4, a create or delete part 2. */
export function partOf(write: DomainWrite): 'resources' | 'states' | 'endpoints' {
  return write.kind === 'transition' ? 'states' : write.kind === 'action' ? 'endpoints' : 'resources';
}

/** The states a write starts from (a transition's `from`); undefined: any. */
export function fromStates(ctx: TestContext, resource: Resource, write: DomainWrite): readonly string[] | undefined {
  if (write.kind !== 'transition') return undefined;
  return machineOf(ctx, resource)?.transitions.find((t) => t.name === write.name)?.from;
}

/** A request body for a write: a transition's required fields, an action's own fields. */
export async function requestFor(scene: Scene, write: DomainWrite): Promise<Data | undefined> {
  if (write.kind === 'transition') {
    const t = machineOf(scene.ctx, scene.resource)?.transitions.find((x) => x.name === write.name) as Transition;
    return scene.requestOf(scene.resource, t);
  }
  if (write.kind === 'update') {
    // The fields its effects read from the request (a comment's body, whose change sets editedAt); else one optional field the guards do not read (a replace carries every required one too).
    const replace = !scene.ctx.endpoint(scene.resource.name, 'update');
    const sent = new Set(write.rules.effects.flatMap((e) => e.set.flatMap((x) => [...x.expr.source.matchAll(/\brequest\s*\.\s*(\w+)/g)].map((m) => m[1] as string))));
    const writable = new Set(scene.data.writable(scene.resource, scene.ctx.version).map((f) => f.name));
    const wanted = [...sent].filter((n) => writable.has(n));
    if (!replace && wanted.length) return scene.data.validBody(scene.resource, { only: wanted, ...(scene.as ? { as: scene.as } : {}) });
    const reads = new Set(write.rules.guards.flatMap((g) => [...g.expr.source.matchAll(/\b(?:self|request)\.(\w+)/g)].map((m) => m[1])));
    const field = scene.data.writable(scene.resource, scene.ctx.version).find((f) => !f.required && f.type !== 'ref' && f.type !== 'array' && f.type !== 'object' && !reads.has(f.name) && !scene.resource.unique.some((u) => u.fields.includes(f.name)));
    if (replace) return scene.data.validBody(scene.resource, { ...(scene.as ? { as: scene.as } : {}), refs: 'shared' });
    return field ? scene.data.validBody(scene.resource, { only: [field.name], ...(scene.as ? { as: scene.as } : {}) }) : {};
  }
  if (write.kind === 'action' && write.endpoint) {
    const e = write.endpoint;
    if (e.request.kind === 'shape') {
      const body: Data = {};
      for (const f of e.request.fields) if (f.required) body[f.name] = (await scene.data.valuesFor({ ...scene.resource, fields: e.request.fields }, [f.name], scene.as))[f.name];
      return body;
    }
    if (e.request.kind === 'fields') return scene.data.valuesFor(scene.resource, e.request.fields, scene.as);
  }
  return undefined;
}
