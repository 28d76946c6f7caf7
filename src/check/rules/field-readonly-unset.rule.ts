import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Spec } from '../../spec/model.ts';
import { defineRule } from '../rule.ts';
import { effectTarget, writePlaces } from './domain-support.ts';
import { memo } from './support.ts';

const unset = defineDiagnostic({
  code: 'field-readonly-unset',
  severity: 'info',
  part: 'resources',
  message: "'{resource}.{field}' is read-only and nothing sets it: it stays absent (no `managed` source, no `default`, no effect sets it, and it is neither the id nor the state).",
  description: 'Clients may not send a read-only field, so only the service can fill it, and the spec does not say how. svcspec invents no value: the reference leaves it absent. Give it a source where the domain has one (`managed: created-at`, an effect of a transition, a `default`), or say in its description what fills it.',
});

/** `resource.field` of every field an effect sets or increments. */
const effectFields = memo((spec: Spec): ReadonlySet<string> => {
  const out = new Set<string>();
  for (const w of writePlaces(spec)) {
    for (const e of w.rules.effects) {
      const target = effectTarget(spec, w.resource, e);
      if (!target) continue;
      for (const s of e.set) out.add(`${target.name}.${s.field}`);
      for (const inc of e.increment) out.add(`${target.name}.${inc.field}`);
    }
  }
  return out;
});

export default defineRule({
  name: 'field-readonly-unset',
  diagnostics: [unset],
  field(f, r, ctx, parents) {
    if (parents.length || !f.readOnly || f.managed || f.hasDefault) return;
    if (f.name === (r.id?.field ?? 'id') || f.name === ctx.index.machines.get(r.name)?.field) return;
    if (effectFields(ctx.spec).has(`${r.name}.${f.name}`)) return;
    ctx.report(unset, { resource: r.name, field: f.name }, f.pointer, { key: true });
  },
});
