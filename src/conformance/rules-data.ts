/**
 * The spec's domain rules as the tester reads them (issue #14): CEL evaluated locally in the
 * environments every stage shares (src/spec/domain/cel.ts), the record a create would store
 * (defaults, managed values), and what generated data must respect so that a faithful
 * implementation never refuses it: record rules hold, values under a uniqueness are not
 * reused, and refs that a guard reads point at records of their own for which the guards
 * hold. Nothing here reads the reference service.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { celEnvironment, celRecord, refsReadBy, toCelFields } from '../spec/domain/cel.ts';
import { applyManaged } from '../spec/domain/managed.ts';
import type { Endpoint, Expr, Field, Guard, Resource, Spec, StateMachine, Transition, UniqueRule, WriteRules } from '../spec/model.ts';

type Data = Record<string, unknown>;

/** How many generated candidates the tester tries before it says a rule could not be met ("not checked"). */
export const CANDIDATE_TRIES = 40;

/** A write that may carry guards and effects: a create, an update, a transition, an action, a delete. */
export interface DomainWrite {
  readonly kind: 'create' | 'update' | 'transition' | 'action' | 'delete';
  /** The transition's name, or the action endpoint's id. */
  readonly name?: string;
  readonly rules: WriteRules;
  readonly endpoint?: Endpoint;
  readonly requestFields?: readonly Field[];
}

export class DomainRules {
  readonly spec: Spec;
  readonly #envs = new Map<string, Environment>();
  readonly #programs = new Map<string, ((vars: Data) => unknown) | null>();
  /** The values already used under each uniqueness, by resource and rule name. */
  readonly #used = new Map<string, Set<string>>();

  constructor(spec: Spec) {
    this.spec = spec;
  }

  #env(resource: Resource, write?: DomainWrite, each?: string): Environment {
    const key = `${resource.name}:${write ? `${write.kind}:${write.name ?? ''}` : 'record'}:${each ?? ''}`;
    let env = this.#envs.get(key);
    if (!env) {
      const eachField = each !== undefined ? resource.fields.find((f) => f.name === each) : undefined;
      env = write ? celEnvironment(this.spec, resource, 'write', { rules: write.rules, ...(write.requestFields ? { requestFields: write.requestFields } : {}), ...(eachField ? { each: eachField } : {}) }) : celEnvironment(this.spec, resource, 'record');
      this.#envs.set(key, env);
    }
    return env;
  }

  /**
   * Evaluates an expression of the spec: its value, or undefined when it has none (it reads an
   * absent member: a guard or a rule without a value holds, docs/format.md) or does not parse.
   */
  evaluate(resource: Resource, expr: Expr, vars: Data, write?: DomainWrite, each?: string): unknown {
    const key = `${resource.name}:${write ? `${write.kind}:${write.name ?? ''}` : 'record'}:${expr.pointer}`;
    let run = this.#programs.get(key);
    if (run === undefined) {
      try {
        run = this.#env(resource, write, each).parse(expr.source) as unknown as (vars: Data) => unknown;
      } catch {
        run = null;
      }
      this.#programs.set(key, run);
    }
    if (!run) return undefined;
    try {
      return run(vars);
    } catch {
      return undefined;
    }
  }

  /** A record's data as `self` sees it. */
  self(resource: Resource, data: Data, id?: string): Data {
    return celRecord(this.spec, resource, id, data);
  }

  /**
   * The record a create of this body would store: the body, the declared defaults, and the
   * managed values the service sets on create (a sequence as its first number: only its form
   * is known).
   */
  predictCreate(resource: Resource, body: Data, now: number): Data {
    const record: Data = {};
    for (const f of resource.fields) if (f.hasDefault && body[f.name] === undefined) record[f.name] = f.default;
    Object.assign(record, body);
    const machine = this.spec.states.find((m) => m.resource === resource.name);
    if (machine) record[machine.field] = machine.initial;
    return this.manage(resource, record, 'create', now);
  }

  /** The managed values a write of this kind sets, over a record (a copy). */
  manage(resource: Resource, data: Data, write: 'create' | 'change', now: number, principal?: string): Data {
    const out = { ...data };
    // A sequence's first number: only its form is known to the tester.
    applyManaged(resource.fields, write, out, {
      now,
      ...(principal !== undefined ? { principal } : {}),
      sequence: () => 1,
      evaluate: (f, sofar) => this.evaluate(resource, f.managed.expr, { self: this.self(resource, sofar), now: new Date(now) }),
    });
    return out;
  }

  /** The first record rule the record breaks. */
  brokenRule(resource: Resource, record: Data, now: number, id?: string) {
    const vars = { self: this.self(resource, record, id), now: new Date(now) };
    return resource.rules.find((r) => this.evaluate(resource, r.expr, vars) === false);
  }

  /** The key of a record's values under a uniqueness; undefined when it does not apply (a field absent, a ref not filled yet, outside its `where`). */
  uniqueKey(u: UniqueRule, record: Data): string | undefined {
    const values: unknown[] = [];
    for (const f of u.fields) {
      const v = record[f];
      if (v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v))) return undefined;
      values.push(u.ignoreCase && typeof v === 'string' ? v.toLowerCase() : v);
    }
    for (const w of u.where) if (record[w.field] !== undefined && !w.values.includes(record[w.field] as never)) return undefined;
    return JSON.stringify(values);
  }

  /** Whether the body's values under every uniqueness of the resource are still unused. */
  unused(resource: Resource, record: Data): boolean {
    return resource.unique.every((u) => {
      const key = this.uniqueKey(u, record);
      return key === undefined || !this.#used.get(`${resource.name}:${u.name}`)?.has(key);
    });
  }

  /** Marks the body's values as used. */
  use(resource: Resource, record: Data): void {
    for (const u of resource.unique) {
      const key = this.uniqueKey(u, record);
      if (key === undefined) continue;
      const name = `${resource.name}:${u.name}`;
      if (!this.#used.has(name)) this.#used.set(name, new Set());
      this.#used.get(name)?.add(key);
    }
  }

  /** Every write of a resource that carries rules: its create, delete, transitions and actions. */
  writes(resource: Resource): DomainWrite[] {
    const out: DomainWrite[] = [];
    if (resource.onCreate) out.push({ kind: 'create', rules: resource.onCreate });
    if (resource.onUpdate) out.push({ kind: 'update', rules: resource.onUpdate });
    const machine = this.spec.states.find((m) => m.resource === resource.name);
    for (const t of machine?.transitions ?? []) if (t.rules) out.push({ kind: 'transition', name: t.name, rules: t.rules });
    for (const e of this.spec.endpoints) {
      if (e.resource === resource.name && e.action?.rules) out.push({ kind: 'action', name: e.id, rules: e.action.rules, endpoint: e, ...(e.request.kind === 'shape' ? { requestFields: e.request.fields } : {}) });
    }
    if (resource.onDelete) out.push({ kind: 'delete', rules: resource.onDelete });
    return out;
  }

  /**
   * Whether a ref field needs a referenced record of its own on every create: it is under a
   * uniqueness, or a guard or a count of the resource reads it (a shared record would make
   * the second create break the uniqueness, or exhaust what the guard allows).
   */
  freshRef(resource: Resource, field: string): boolean {
    if (resource.unique.some((u) => u.fields.includes(field))) return true;
    return this.writes(resource).some((w) => w.rules.counts.length > 0 || w.rules.guards.some((g) => readsRef(g.expr, field)) || w.rules.effects.some((e) => e.ref === field));
  }

  /** The guards of the resource's writes that read the record its ref `field` points to. */
  refGuards(resource: Resource, field: string): { write: DomainWrite; guard: Guard }[] {
    return this.writes(resource).flatMap((write) => write.rules.guards.filter((g) => g.each === undefined && readsRef(g.expr, field)).map((guard) => ({ write, guard })));
  }

  /** The guards checked on each item of the array `field` that read the record its ref member `member` points to. */
  itemGuards(resource: Resource, field: string, member: string): { write: DomainWrite; guard: Guard }[] {
    return this.writes(resource).flatMap((write) => write.rules.guards.filter((g) => g.each === field && readsItemRef(g.expr, member)).map((guard) => ({ write, guard })));
  }

  /**
   * Whether a guard checked on each item holds for one item and the records its refs point
   * to (`itemRefs`), the rest of the write as the tester cannot know it (an expression that
   * reads it errs, and holds).
   */
  itemHolds(resource: Resource, write: DomainWrite, guard: Guard, item: Data, itemRefs: Record<string, { resource: Resource; data: Data; id?: string }>, now: number, base: Data = {}): boolean {
    const field = resource.fields.find((f) => f.name === guard.each);
    const members = field?.type === 'array' && field.items?.type === 'object' ? (field.items.properties ?? []) : [];
    const refs: Data = {};
    for (const [k, r] of Object.entries(itemRefs)) refs[k] = this.self(r.resource, r.data, r.id);
    const vars = { self: {}, old: {}, request: {}, principal: {}, refs: {}, count: {}, now: new Date(now), ...base, item: toCelFields(item, members, this.spec), itemRefs: refs };
    return this.evaluate(resource, guard.expr, vars, write, guard.each) !== false;
  }

  /** Whether a record pointed at by the ref member of an item lets every guard on the items hold for that item. */
  friendlyItemTarget(resource: Resource, field: string, member: string, item: Data, target: Data, targetResource: Resource, now: number): boolean {
    return this.itemGuards(resource, field, member).every(({ write, guard }) => this.itemHolds(resource, write, guard, item, { [member]: { resource: targetResource, data: target } }, now));
  }

  /**
   * Whether a record to be referenced through `referrer.field` lets the guards that read it
   * hold, before any related record exists (every count 0): a fresh loan's fresh book must
   * have a copy available, its fresh member room for a loan. `room`: how many related records
   * exist already (a uniqueness check makes a second record of the same refs).
   */
  friendlyTarget(referrer: Resource, field: string, target: Data, targetResource: Resource, now: number, room = 0): boolean {
    return this.refGuards(referrer, field).every(({ write, guard }) => {
      const count = Object.fromEntries(write.rules.counts.map((c) => [c.name, BigInt(room)]));
      const vars = { self: {}, old: {}, request: {}, principal: {}, refs: { [field]: this.self(targetResource, target) }, count, now: new Date(now) };
      return this.evaluate(referrer, guard.expr, vars, write) !== false;
    });
  }

  /**
   * The guards of a resource's create that refuse this body whatever records exist, as the
   * tester can tell: with every count 0 (nothing it made is counted) and the refs unread (a
   * guard that reads them errs, and holds). A coupon code no coupon has is such a body.
   */
  refusingCreateGuards(resource: Resource, body: Data, now: number): Guard[] {
    const rules = resource.onCreate;
    if (!rules?.guards.length) return [];
    const write: DomainWrite = { kind: 'create', rules };
    const vars = this.writeVars(resource, { self: this.predictCreate(resource, body, now), request: body, count: Object.fromEntries(rules.counts.map((c) => [c.name, 0])), now });
    return rules.guards.filter((g) => g.each === undefined && this.evaluate(resource, g.expr, vars, write) === false);
  }

  /**
   * Whether a record in this state may still be updated as far as the state tells: no guard
   * of the resource's updates that reads only the state refuses it (a closed ticket does not
   * change). Other members are absent, so a guard that reads them errs and holds.
   */
  updatableIn(resource: Resource, state: string, now: number): boolean {
    const rules = resource.onUpdate;
    const machine = this.spec.states.find((m) => m.resource === resource.name);
    if (!rules?.guards.length || !machine) return true;
    const write: DomainWrite = { kind: 'update', rules };
    const record = { [machine.field]: state };
    const vars = this.writeVars(resource, { self: record, old: record, now });
    return rules.guards.every((g) => g.each !== undefined || this.evaluate(resource, g.expr, vars, write) !== false);
  }

  /**
   * Whether a create of this record breaks a guard on each item that the items alone decide
   * (`item.quantity <= 10`): the records items point to are unknown here, so a guard that
   * reads them errs and holds.
   */
  itemGuardsRefuse(resource: Resource, record: Data, now: number): boolean {
    const rules = resource.onCreate;
    if (!rules) return false;
    const write: DomainWrite = { kind: 'create', rules };
    return rules.guards.some((g) => {
      const items = g.each !== undefined ? record[g.each] : undefined;
      return Array.isArray(items) && items.some((item) => item !== null && typeof item === 'object' && !this.itemHolds(resource, write, g, item as Data, {}, now));
    });
  }

  /** The variables of a write's guard or effect (src/spec/domain/cel.ts). */
  writeVars(resource: Resource, v: { self: Data; old?: Data; id?: string; request?: Data; requestFields?: readonly Field[]; principal?: string; refs?: Record<string, { resource: Resource; data: Data; id?: string }>; count?: Record<string, number>; now: number }): Data {
    const refs: Data = {};
    for (const [k, r] of Object.entries(v.refs ?? {})) refs[k] = this.self(r.resource, r.data, r.id);
    return {
      self: this.self(resource, v.self, v.id),
      old: v.old ? this.self(resource, v.old, v.id) : {},
      request: toCelFields(v.request ?? {}, v.requestFields ?? resource.fields, this.spec),
      principal: v.principal !== undefined ? { id: v.principal, scopes: [] } : {},
      refs,
      count: Object.fromEntries(Object.entries(v.count ?? {}).map(([k, n]) => [k, BigInt(n)])),
      now: new Date(v.now),
    };
  }
}

/** The shortest route of transitions from a state to one of the wanted states (BFS). */
export function routeFrom(machine: StateMachine, from: string, wanted: (state: string) => boolean): Transition[] | undefined {
  const routes = new Map<string, Transition[]>([[from, []]]);
  const queue = [from];
  while (queue.length) {
    const state = queue.shift() as string;
    if (wanted(state)) return routes.get(state);
    for (const t of machine.transitions) {
      if (!t.from.includes(state) || routes.has(t.to)) continue;
      routes.set(t.to, [...(routes.get(state) as Transition[]), t]);
      queue.push(t.to);
    }
  }
  return undefined;
}

/** Whether an expression reads `refs.<field>`. */
export function readsRef(expr: Expr, field: string): boolean {
  const read = refsReadBy(expr.source);
  return read.has(field) || read.has('*');
}

/** Whether an expression reads `itemRefs.<member>`. */
export function readsItemRef(expr: Expr, member: string): boolean {
  const read = refsReadBy(expr.source, 'itemRefs');
  return read.has(member) || read.has('*');
}

/** The count names an expression reads (`count.open`). */
export function countsRead(expr: Expr): string[] {
  return [...expr.source.matchAll(/\bcount\.(\w+)/g)].map((m) => m[1]);
}

/** The fields of `self` an expression reads: `self.name`, or `self["@type"]` for a name CEL cannot write after a dot. */
export function selfFields(expr: Expr): string[] {
  return [...new Set([...expr.source.matchAll(/\bself(?:\s*\.\s*(\w+)|\s*\[\s*(["'])(.*?)\2\s*\])/g)].map((m) => m[1] ?? m[3]))];
}
