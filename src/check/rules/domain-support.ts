/**
 * What the domain rules (unique, rules, managed fields, guards, counts, effects, ref
 * deletion) of a spec are, listed once per check for the rules that read them: every write
 * that states guards or effects, every CEL expression with the environment it is checked
 * in (src/spec/domain/cel.ts, the one serve evaluates with) and what its value must be.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { celEnvironment } from '../../spec/domain/cel.ts';
import type { Effect, Expr, Field, Resource, Spec, WriteRules } from '../../spec/model.ts';
import type { PartName } from '../../spec/parts.ts';
import { memo } from './support.ts';

/** A write that states counts, guards or effects: a create, a delete, a transition, an action. */
export interface WritePlace {
  readonly resource: Resource;
  readonly rules: WriteRules;
  readonly part: PartName;
  /** `creating a loan`, `transition 'approve' of 'loan'`, `action 'loan.remind'`. */
  readonly label: string;
  /** An action's own request fields (the resource's otherwise). */
  readonly requestFields?: readonly Field[];
}

export const writePlaces = memo((spec: Spec): readonly WritePlace[] => {
  const out: WritePlace[] = [];
  for (const r of spec.resources) {
    if (r.onCreate) out.push({ resource: r, rules: r.onCreate, part: 'resources', label: `creating a '${r.name}'` });
    if (r.onUpdate) out.push({ resource: r, rules: r.onUpdate, part: 'resources', label: `updating a '${r.name}'` });
    if (r.onDelete) out.push({ resource: r, rules: r.onDelete, part: 'resources', label: `deleting a '${r.name}'` });
  }
  for (const m of spec.states) {
    const r = spec.resources.find((x) => x.name === m.resource);
    if (!r) continue;
    for (const t of m.transitions) if (t.rules) out.push({ resource: r, rules: t.rules, part: 'states', label: `transition '${t.name}' of '${r.name}'` });
  }
  for (const e of spec.endpoints) {
    const r = spec.resources.find((x) => x.name === e.resource);
    if (!r || !e.action?.rules) continue;
    out.push({ resource: r, rules: e.action.rules, part: 'endpoints', label: `action '${e.id}'`, ...(e.request.kind === 'shape' ? { requestFields: e.request.fields } : {}) });
  }
  return out;
});

/** The resource an effect changes: the record's own, or the one its `ref` field points to. */
export function effectTarget(spec: Spec, resource: Resource, effect: Effect): Resource | undefined {
  if (effect.ref === undefined) return resource;
  const field = resource.fields.find((f) => f.name === effect.ref);
  return field?.type === 'ref' ? spec.resources.find((r) => r.name === field.resource) : undefined;
}

/** What an expression's value must be: a condition (bool), a value of a field, or anything (its field is unknown). */
export type Expected = { readonly kind: 'condition' } | { readonly kind: 'any' } | { readonly kind: 'value'; readonly field: Field; readonly resource: Resource };

export interface ExprPlace {
  readonly expr: Expr;
  readonly resource: Resource;
  readonly part: PartName;
  /** `rule 1 of 'book'`, `guard 2 of transition 'approve' of 'loan'`. */
  readonly label: string;
  readonly expected: Expected;
  /** The environment it is checked in (one per resource and write, built on first use). */
  readonly env: () => Environment;
  /** The fields `request` has, for naming an unknown one. */
  readonly requestFields: readonly Field[];
  /** The names `count` has. */
  readonly counts: readonly string[];
  readonly kind: 'record' | 'write';
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

export const exprPlaces = memo((spec: Spec): readonly ExprPlace[] => {
  const out: ExprPlace[] = [];
  for (const r of spec.resources) {
    const env = lazy(() => celEnvironment(spec, r, 'record'));
    const base = { resource: r, part: 'resources' as const, env, requestFields: [], counts: [], kind: 'record' as const };
    r.rules.forEach((rule, i) => out.push({ ...base, expr: rule.expr, label: `rule ${i + 1} of '${r.name}'`, expected: { kind: 'condition' } }));
    for (const f of r.fields) {
      if (f.managed?.kind === 'expr') out.push({ ...base, expr: f.managed.expr, label: `the managed value of '${r.name}.${f.name}'`, expected: { kind: 'value', field: f, resource: r } });
    }
  }
  for (const w of writePlaces(spec)) {
    const env = lazy(() => celEnvironment(spec, w.resource, 'write', { rules: w.rules, ...(w.requestFields ? { requestFields: w.requestFields } : {}) }));
    const base = { resource: w.resource, part: w.part, env, requestFields: w.requestFields ?? w.resource.fields, counts: w.rules.counts.map((c) => c.name), kind: 'write' as const };
    for (const c of w.rules.counts) {
      const counted = spec.resources.find((r) => r.name === c.resource);
      for (const cond of c.where) {
        if (!('expr' in cond)) continue;
        const field = counted?.fields.find((f) => f.name === cond.field);
        out.push({ ...base, expr: cond.expr, label: `count '${c.name}' of ${w.label} (where '${cond.field}')`, expected: field && counted ? { kind: 'value', field, resource: counted } : { kind: 'any' } });
      }
    }
    w.rules.guards.forEach((g, i) => {
      // A guard on each item of an array field sees `item` and `itemRefs` too (an unknown or non-array field is guard-each-not-array's finding).
      const each = g.each !== undefined ? w.resource.fields.find((f) => f.name === g.each && f.type === 'array') : undefined;
      const itemEnv = each ? lazy(() => celEnvironment(spec, w.resource, 'write', { rules: w.rules, ...(w.requestFields ? { requestFields: w.requestFields } : {}), each })) : env;
      out.push({ ...base, env: itemEnv, expr: g.expr, label: `guard ${i + 1} of ${w.label}${each ? ` (each '${each.name}')` : ''}`, expected: { kind: 'condition' } });
    });
    w.rules.effects.forEach((e, i) => {
      const target = effectTarget(spec, w.resource, e);
      for (const s of e.set) {
        const field = target?.fields.find((f) => f.name === s.field);
        // An unknown target or field is effect-field-unknown's finding; the expression is still checked.
        out.push({ ...base, expr: s.expr, label: `effect ${i + 1} of ${w.label} (set '${s.field}')`, expected: field && target ? { kind: 'value', field, resource: target } : { kind: 'any' } });
      }
    });
  }
  return out;
});
