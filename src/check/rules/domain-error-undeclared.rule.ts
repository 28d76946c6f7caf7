import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import type { PartName } from '../../spec/parts.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { writePlaces } from './domain-support.ts';
import { given } from './support.ts';

const undeclared = defineDiagnostic({
  code: 'domain-error-undeclared',
  severity: 'error',
  part: 'resources',
  message: "{what} answers with error '{code}', which is not in the errors catalog.{hint}",
  description: 'A `unique`, a rule, a guard or an `onDelete: { refuse }` names the catalog code its refusal is answered with (part 7 gives it its status and title). Without the code in the catalog the reference answers the runtime default `rule-refused` (409) instead. Correct the code, or add it to the catalog.',
});

export default defineRule({
  name: 'domain-error-undeclared',
  diagnostics: [undeclared],
  spec(ctx) {
    if (!given(ctx, 'errors')) return;
    const check = (what: string, code: string, pointer: string, part: PartName) => {
      if (!ctx.index.errors.has(code)) ctx.report(undeclared, { what, code, hint: didYouMean(code, ctx.index.errors.keys()) }, pointer, { part });
    };
    for (const r of ctx.spec.resources) {
      r.unique.forEach((u) => check(`The uniqueness '${u.name}' of '${r.name}'`, u.error, child(u.pointer, 'error'), 'resources'));
      r.rules.forEach((rule, i) => check(`Rule ${i + 1} of '${r.name}'`, rule.error, child(rule.pointer, 'error'), 'resources'));
      for (const f of r.fields) {
        if (f.onDelete?.kind === 'refuse') check(`Deleting the '${f.resource}' that '${r.name}.${f.name}' refers to`, f.onDelete.error, child(f.onDelete.pointer, 'refuse'), 'resources');
      }
    }
    for (const w of writePlaces(ctx.spec)) {
      w.rules.guards.forEach((g, i) => check(`Guard ${i + 1} of ${w.label}`, g.error, child(g.pointer, 'error'), w.part));
    }
  },
});
