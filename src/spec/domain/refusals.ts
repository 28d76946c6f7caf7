/**
 * The domain rules an endpoint's write answers to, and so the catalog codes it can be refused
 * with (docs/format.md, "Domain rules: when each error of the catalog happens"): the export
 * lists them among the endpoint's error responses and `doc` in its errors, as the reference
 * service raises them (src/serve/domain).
 *
 *   a write of the record (create, update, replace, their bulk forms)   its uniques and record rules
 *   a transition, an action that states effects                          the uniques that read what it
 *                                                                        changes (the state, a field it
 *                                                                        sets) and the record rules
 *   any write with guards                                               each guard's error
 *   effects on the records refs point to                                those records' rules
 *   a delete                                                            every `onDelete: {refuse}` of a
 *                                                                        ref to the resource
 */
import type { Endpoint, Resource, Spec, StateMachine, WriteRules } from '../model.ts';
import { performedByReference } from '../conventions/endpoints.ts';

/** The guards, counts and effects that come with an endpoint's write: a create's, an update's, a delete's, a transition's, an action's. */
export function writeRulesOf(e: Endpoint, r: Resource, machine: StateMachine | undefined): WriteRules | undefined {
  switch (e.operation) {
    case 'create':
    case 'bulk-create':
      return r.onCreate;
    case 'update':
    case 'replace':
    case 'bulk-update':
      return r.onUpdate;
    case 'delete':
    case 'bulk-delete':
      return r.onDelete;
    case 'transition':
      return machine?.transitions.find((t) => t.name === e.transition)?.rules;
    case 'action':
      return e.action?.rules;
    default:
      return undefined;
  }
}

const WRITES_RECORD: ReadonlySet<string> = new Set(['create', 'update', 'replace', 'bulk-create', 'bulk-update']);

/** The catalog codes the spec's domain rules can refuse this endpoint's request with, in the order they are met. */
export function domainRefusals(spec: Spec, endpoint: Endpoint): string[] {
  const resource = spec.resources.find((r) => r.name === endpoint.resource);
  if (!resource) return [];
  const machine = spec.states.find((m) => m.resource === resource.name);
  const rules = writeRulesOf(endpoint, resource, machine);
  const out = new Set<string>();
  for (const g of rules?.guards ?? []) out.add(g.error);
  // The caller's one record replaced before it exists is created (`PUT /me`): the create's guards answer it then.
  if (endpoint.operation === 'replace' && endpoint.select === 'caller' && resource.perOwner === 'one') for (const g of resource.onCreate?.guards ?? []) out.add(g.error);
  const changes = changedFields(endpoint, rules, machine);
  if (changes !== undefined) {
    for (const u of resource.unique) if (changes === 'all' || [...u.fields, ...u.where.map((w) => w.field)].some((f) => changes.has(f))) out.add(u.error);
    for (const rule of resource.rules) out.add(rule.error);
  }
  for (const effect of rules?.effects ?? []) {
    if (effect.ref === undefined) continue;
    const target = spec.resources.find((r) => r.name === resource.fields.find((f) => f.name === effect.ref)?.resource);
    for (const rule of target?.rules ?? []) out.add(rule.error);
  }
  if (endpoint.operation === 'delete' || endpoint.operation === 'bulk-delete') for (const code of deleteRefusals(spec, resource.name)) out.add(code);
  return [...out];
}

/**
 * The `onDelete: {refuse}` codes a delete of a resource's record can answer: of the refs to
 * it, and of the refs to the records a cascade deletes with it, at any depth (an author's
 * books cascade; a book on loan refuses).
 */
function deleteRefusals(spec: Spec, resource: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(resource)) return out;
  seen.add(resource);
  for (const r of spec.resources) {
    for (const f of r.fields) {
      if (f.resource !== resource) continue;
      if (f.onDelete?.kind === 'refuse') out.add(f.onDelete.error);
      else if (f.onDelete?.kind === 'cascade') for (const code of deleteRefusals(spec, r.name, seen)) out.add(code);
    }
  }
  return out;
}

/** What a write changes of the record itself: every field, the fields a transition or effects name, or nothing (undefined). */
function changedFields(endpoint: Endpoint, rules: WriteRules | undefined, machine: StateMachine | undefined): 'all' | Set<string> | undefined {
  if (WRITES_RECORD.has(endpoint.operation)) return 'all';
  if (endpoint.operation !== 'transition' && !performedByReference(endpoint)) return undefined;
  const fields = new Set<string>();
  if (endpoint.operation === 'transition' && machine) {
    fields.add(machine.field);
    for (const name of machine.transitions.find((t) => t.name === endpoint.transition)?.requires ?? []) fields.add(name);
  }
  for (const effect of rules?.effects ?? []) {
    if (effect.ref !== undefined) continue;
    for (const s of effect.set) fields.add(s.field);
    for (const i of effect.increment) fields.add(i.field);
  }
  return fields;
}
