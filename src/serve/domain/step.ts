/**
 * The domain step of one write (src/store/domain.ts): what the spec's rules read and decide,
 * run by the store inside the write's transaction. In rounds:
 *
 *   1. the records the ref fields point to (`refs`), the next number of each managed
 *      sequence (a create), and, for a delete, the records that refer to it
 *   2. the declared counts (their conditions may read `refs`)
 *   3. the decision, in this order: guards (the first false one refuses); what a delete does
 *      to the records referring to it (refuse, cascade — whose referrers are read in turn —
 *      or nullify); effects on the record and on the records its refs point to; managed
 *      fields; the record rules of every record written (the first false one refuses).
 *
 * An expression that errs (it reads an absent member) has no value: a guard or rule without
 * a value holds, an effect without one changes nothing (docs/format.md).
 */
import { celRecord, fromCel, itemFields, toCelFields } from '../../spec/domain/cel.ts';
import { applyManaged } from '../../spec/domain/managed.ts';
import type { Field, Resource, Spec } from '../../spec/model.ts';
import type { DomainDecision, DomainRead, DomainReads, DomainStep, RelatedWrite } from '../../store/domain.ts';
import type { EventMaker } from '../../store/events.ts';
import type { CountQuery, FieldFilter, ScalarValue, StoredRecord } from '../../store/store.ts';
import type { CompiledDomain, CompiledResource, CompiledRule, CompiledWrite } from './compile.ts';
import { idOf } from '../../spec/conventions/ids.ts';

/** What a refused write is answered with: the bound code, the detail, the field it points at. */
export interface Refusal {
  readonly code: string;
  readonly detail: string;
  readonly pointer?: string;
}

/** The request a write serves. */
export interface WriteContext {
  /** Epoch milliseconds of the request: managed time stamps and `now`. */
  readonly now: number;
  readonly principal?: { readonly id: string; readonly scopes: readonly string[] };
  readonly request: Readonly<Record<string, unknown>>;
  /** The fields the request may carry (the resource's, or an action's own). */
  readonly requestFields?: readonly Field[];
  /** The events a related write triggers (part 6), by resource and change. */
  readonly events?: (resource: string, change: 'updated' | 'deleted') => EventMaker | undefined;
}

export type WriteKind = 'create' | 'change' | 'delete';

type Data = Record<string, unknown>;

/** A record's id as its refs hold it: a number for sequence ids (JSON), else the text. */
function idValue(resource: Resource, id: string): ScalarValue {
  return idOf(resource).assigned === 'sequence' && /^[0-9]+$/.test(id) ? Number(id) : id;
}

function refKey(field: string): string {
  return `ref:${field}`;
}

/** The key of a record an item points to: by the record, so that lines naming one product read it once. */
function itemRefKey(resource: string, id: unknown): string {
  return `item:${resource}:${String(id)}`;
}

/** The member fields of an array field's items. */
function itemFieldsOf(c: CompiledResource, field: string): readonly Field[] {
  const f = c.resource.fields.find((x) => x.name === field);
  return f ? itemFields(f) : [];
}

function referrersKey(resource: string, field: string, id: string): string {
  return `referrers:${resource}:${field}:${id}`;
}

export function domainStep(spec: Spec, domain: CompiledDomain, c: CompiledResource, kind: WriteKind, rules: CompiledWrite | undefined, w: WriteContext, ownId?: string): DomainStep {
  // The variables of one run of the step (one `read`, which lives as long as the run): built
  // once its refs are read, not again at each later round (counts, then the decision).
  const built = new WeakMap<DomainRead, Record<string, unknown>>();
  return {
    decide(current: StoredRecord | undefined, data: Data | undefined, read: DomainRead): DomainDecision {
      const self: Data = kind === 'delete' ? { ...(current?.data ?? {}) } : { ...(data ?? {}) };
      const id = current?.id ?? ownId;
      const more = firstReads(c, kind, rules, self, read, id);
      // Only a write that states guards, counts or effects reads the variables (a plain create with managed fields does not).
      let vars = built.get(read) ?? {};
      if (rules && !built.has(read)) built.set(read, (vars = variables(spec, c, rules, w, self, current, id)));
      if (more) {
        // Counts whose conditions do not read refs are read with the refs: one round fewer. Only
        // beside records, after which they were read before too: an adapter that locks what it
        // reads (PostgreSQL) keeps its order of locks; with referrers or sequences to read, the
        // counts still come in the round after them.
        const counts = rules && !rules.countsReadRefs && !more.lists && !more.sequences ? countReads(domain, rules, vars, read) : undefined;
        return { more: counts ? { ...more, ...counts } : more };
      }
      if (rules) {
        if (rules.uses.has('refs') && vars.refs === undefined) vars.refs = refsOf(spec, c, rules, read);
        const counts = countReads(domain, rules, vars, read);
        if (counts) return { more: counts };
        vars.count = Object.fromEntries(rules.counts.map((n) => [n.name, BigInt(read.counts.get(`count:${n.name}`) ?? 0)]));
        for (const g of rules.guards) {
          if (!g.each) {
            if (g.program.run(vars) === false) return { refuse: refusal(g.error, g.message ?? `Refused: ${g.program.source} does not hold.`) };
            continue;
          }
          const items = self[g.each.field];
          if (!Array.isArray(items)) continue;
          for (const [i, item] of items.entries()) {
            if (!item || typeof item !== 'object') continue;
            const itemRefs: Record<string, unknown> = {};
            for (const [member, target] of g.each.refs) {
              const value = (item as Data)[member];
              const record = value === undefined || value === null ? undefined : read.records.get(itemRefKey(target.name, value));
              if (record) itemRefs[member] = celRecord(spec, target, record.id, record.data);
            }
            const itemVars = { ...vars, item: toCelFields(item as Data, itemFieldsOf(c, g.each.field), spec), itemRefs };
            if (g.program.run(itemVars) === false) return { refuse: { code: g.error, detail: `Item ${i} of ${g.each.field}: ${g.message ?? `refused: ${g.program.source} does not hold.`}`, pointer: `/${g.each.field}/${i}` } };
          }
        }
      }
      const related: RelatedWrite[] = [];
      if (kind === 'delete') {
        const cascade = deletion(domain, c, current as StoredRecord, read, w, related);
        if ('refuse' in cascade || 'more' in cascade) return cascade;
      }
      // Per ref, the record an effect changes and the fields it changes (RelatedWrite `changes`).
      const touched = new Map<string, { resource: CompiledResource; record: StoredRecord; data: Data; changes: Set<string> }>();
      for (const effect of rules?.effects ?? []) {
        let target: Data;
        if (effect.ref === undefined) {
          if (kind === 'delete') continue;
          target = self;
        } else {
          const record = read.records.get(refKey(effect.ref));
          if (!record) continue;
          let entry = touched.get(effect.ref);
          if (!entry) touched.set(effect.ref, (entry = { resource: domain.byResource.get(effect.target.name) as CompiledResource, record, data: { ...record.data }, changes: new Set() }));
          target = entry.data;
          for (const s of effect.set) entry.changes.add(s.field.name);
          for (const inc of effect.increment) entry.changes.add(inc.field.name);
        }
        for (const s of effect.set) {
          const value = s.program.run(vars);
          if (value !== undefined) target[s.field.name] = fromCel(value, s.field);
        }
        for (const inc of effect.increment) {
          const now = target[inc.field.name];
          target[inc.field.name] = (typeof now === 'number' ? now : 0) + inc.by;
        }
      }
      for (const { resource, record, data: changed, changes } of touched.values()) {
        manage(spec, resource, 'change', changed, record.id, w, read);
        for (const f of resource.managedOn.change) changes.add(f.name);
        const broken = firstBroken(spec, resource, changed, record.id, w.now);
        if (broken) return { refuse: broken };
        related.push({ kind: 'update', resource: resource.resource.name, id: record.id, version: record.version, data: changed, changes: [...changes], ...eventsOf(w, resource.resource.name, 'updated') });
      }
      if (kind === 'delete') return { related };
      manage(spec, c, kind, self, id, w, read);
      const broken = firstBroken(spec, c, self, id, w.now);
      if (broken) return { refuse: broken };
      return { data: self, related };
    },
  };
}

function refusal(code: string, detail: string, field?: string): Refusal {
  return { code, detail, ...(field !== undefined ? { pointer: `/${field}` } : {}) };
}

function eventsOf(w: WriteContext, resource: string, change: 'updated' | 'deleted'): { events?: EventMaker } {
  const events = w.events?.(resource, change);
  return events ? { events } : {};
}

/** Round 1: refs, sequences, a delete's referrers; undefined once all are read. */
function firstReads(c: CompiledResource, kind: WriteKind, rules: CompiledWrite | undefined, self: Data, read: DomainRead, id: string | undefined): DomainReads | undefined {
  const records: { key: string; resource: string; id: string }[] = [];
  if (rules) {
    for (const [field, target] of c.refs) {
      if (!rules.refsRead.has(field)) continue;
      const value = self[field];
      if ((typeof value === 'string' || typeof value === 'number') && !read.records.has(refKey(field))) records.push({ key: refKey(field), resource: target.name, id: String(value) });
    }
  }
  // The records the ref members of each checked item point to (an order line's product).
  for (const g of rules?.guards ?? []) {
    if (!g.each) continue;
    const items = self[g.each.field];
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      if (!item || typeof item !== 'object') continue;
      for (const [member, target] of g.each.refs) {
        const value = (item as Data)[member];
        const key = itemRefKey(target.name, value);
        if ((typeof value === 'string' || typeof value === 'number') && !read.records.has(key) && !records.some((r) => r.key === key)) records.push({ key, resource: target.name, id: String(value) });
      }
    }
  }
  const sequences: { key: string; name: string }[] = [];
  if (kind === 'create') {
    for (const m of c.managed) if (m.source.kind === 'sequence' && !read.sequences.has(`seq:${m.field.name}`)) sequences.push({ key: `seq:${m.field.name}`, name: `${c.resource.name}.${m.field.name}` });
  }
  const lists: { key: string; resource: string; query: CountQuery }[] = [];
  if (kind === 'delete' && id !== undefined) {
    for (const r of c.referrers) {
      const key = referrersKey(r.resource.name, r.field.name, id);
      if (!read.lists.has(key)) lists.push({ key, resource: r.resource.name, query: { filter: { [r.field.name]: idValue(c.resource, id) } } });
    }
  }
  if (!records.length && !sequences.length && !lists.length) return undefined;
  return { ...(records.length ? { records } : {}), ...(sequences.length ? { sequences } : {}), ...(lists.length ? { lists } : {}) };
}

/** Round 2: the declared counts, their conditions evaluated now that refs are read. */
function countReads(domain: CompiledDomain, rules: CompiledWrite, vars: Record<string, unknown>, read: DomainRead): DomainReads | undefined {
  const counts: { key: string; resource: string; query: CountQuery }[] = [];
  for (const n of rules.counts) {
    if (read.counts.has(`count:${n.name}`)) continue;
    const target = domain.byResource.get(n.resource)?.resource;
    const filters: FieldFilter[] = n.where.map((cond) => {
      if ('values' in cond) return cond.values.length === 1 ? { field: cond.field, op: 'eq', value: cond.values[0] } : { field: cond.field, op: 'in', value: cond.values };
      const field = target?.fields.find((f) => f.name === cond.field);
      const value = fromCel(cond.program.run(vars), field);
      return { field: cond.field, op: 'eq', value: (value === undefined ? null : value) as ScalarValue };
    });
    counts.push({ key: `count:${n.name}`, resource: n.resource, query: { filters } });
  }
  return counts.length ? { counts } : undefined;
}

/**
 * The variables the write's expressions name (CompiledWrite.uses), but `refs`, which is set
 * once the records are read; `count` once the counts are.
 */
function variables(spec: Spec, c: CompiledResource, rules: CompiledWrite, w: WriteContext, self: Data, current: StoredRecord | undefined, id: string | undefined): Record<string, unknown> {
  const { uses } = rules;
  const vars: Record<string, unknown> = { count: {} };
  if (uses.has('self')) vars.self = celRecord(spec, c.resource, id, self, rules.selfFields);
  if (uses.has('old')) vars.old = current ? celRecord(spec, c.resource, current.id, current.data, rules.oldFields) : {};
  if (uses.has('request')) vars.request = toCelFields(w.request, w.requestFields ?? c.resource.fields, spec);
  if (uses.has('principal')) vars.principal = w.principal ? { id: w.principal.id, scopes: [...w.principal.scopes] } : {};
  if (uses.has('now')) vars.now = new Date(w.now);
  return vars;
}

/** `refs`: the records the ref fields point to, as read (the fields the expressions read of them). */
function refsOf(spec: Spec, c: CompiledResource, rules: CompiledWrite, read: DomainRead): Record<string, unknown> {
  const refs: Record<string, unknown> = {};
  for (const [field, target] of c.refs) {
    const record = read.records.get(refKey(field));
    if (record) refs[field] = celRecord(spec, target, record.id, record.data, rules.refFields.get(field));
  }
  return refs;
}

/** Sets the managed fields a write of this kind sets (src/spec/domain/managed.ts applyManaged). */
function manage(spec: Spec, c: CompiledResource, kind: 'create' | 'change', data: Data, id: string | undefined, w: WriteContext, read: DomainRead): void {
  const fields = c.managedOn[kind];
  if (!fields.length) return;
  applyManaged(fields, kind, data, {
    now: w.now,
    ...(w.principal ? { principal: w.principal.id } : {}),
    sequence: (field) => read.sequences.get(`seq:${field}`),
    evaluate: (f, sofar) => {
      const m = c.managed.find((x) => x.field.name === f.name);
      return m?.program?.run({ self: celRecord(spec, c.resource, id, sofar, m.fields), now: new Date(w.now) });
    },
  });
}

/** The first record rule the data breaks, as a refusal. */
function firstBroken(spec: Spec, c: CompiledResource, data: Data, id: string | undefined, now: number): Refusal | undefined {
  if (!c.rules.length) return undefined;
  const vars = { self: celRecord(spec, c.resource, id, data, c.ruleFields), now: new Date(now) };
  const broken: CompiledRule | undefined = c.rules.find((r) => r.program.run(vars) === false);
  return broken && refusal(broken.error, broken.message ?? `The ${c.resource.name} breaks the rule ${broken.program.source}.`, broken.field);
}

/**
 * What deleting the record does to the records referring to it: a `refuse` referrer with
 * any record refuses; `cascade` removes them (and, in turn, what refers to them); `nullify`
 * sets the field to null. Pushes the related writes; asks for the referrers not read yet.
 */
function deletion(domain: CompiledDomain, root: CompiledResource, record: StoredRecord, read: DomainRead, w: WriteContext, related: RelatedWrite[]): { refuse: Refusal } | { more: DomainReads } | Record<string, never> {
  const queue: { resource: CompiledResource; record: StoredRecord }[] = [{ resource: root, record }];
  const removed = new Set<string>([`${root.resource.name}:${record.id}`]);
  const lists: { key: string; resource: string; query: CountQuery }[] = [];
  const writes: RelatedWrite[] = [];
  while (queue.length) {
    const { resource, record: r } = queue.shift() as { resource: CompiledResource; record: StoredRecord };
    for (const ref of resource.referrers) {
      const key = referrersKey(ref.resource.name, ref.field.name, r.id);
      const found = read.lists.get(key);
      if (!found) {
        lists.push({ key, resource: ref.resource.name, query: { filter: { [ref.field.name]: idValue(resource.resource, r.id) } } });
        continue;
      }
      const referring = found.filter((x) => !removed.has(`${ref.resource.name}:${x.id}`));
      if (!referring.length) continue;
      switch (ref.behaviour.kind) {
        case 'refuse':
          return { refuse: refusal(ref.behaviour.error, `The ${resource.resource.name} '${r.id}' is referred to by ${referring.length} ${ref.resource.name} record${referring.length === 1 ? '' : 's'} (${ref.field.name}); it cannot be deleted while they are.`) };
        case 'cascade':
          for (const x of referring) {
            removed.add(`${ref.resource.name}:${x.id}`);
            writes.push({ kind: 'remove', resource: ref.resource.name, id: x.id, version: x.version, ...eventsOf(w, ref.resource.name, 'deleted') });
            queue.push({ resource: domain.byResource.get(ref.resource.name) as CompiledResource, record: x });
          }
          break;
        case 'nullify':
          for (const x of referring) writes.push({ kind: 'update', resource: ref.resource.name, id: x.id, version: x.version, data: { ...x.data, [ref.field.name]: null }, ...eventsOf(w, ref.resource.name, 'updated') });
          break;
      }
    }
  }
  if (lists.length) return { more: { lists } };
  related.push(...writes);
  return {};
}
