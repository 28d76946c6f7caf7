/**
 * Every code of the catalog is bound to what raises it: a runtime situation (by its name or
 * `for:`), a domain rule that names it (`unique`, a rule, a guard, `onDelete: { refuse }`),
 * or the implementation alone (`raisedBy: implementation`, prose). A code bound to nothing
 * is one the reference never answers and the tester never provokes.
 */
import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Spec } from '../../spec/model.ts';
import { defineRule } from '../rule.ts';
import { writePlaces } from './domain-support.ts';
import { given, memo } from './support.ts';

const unbound = defineDiagnostic({
  code: 'error-code-unbound',
  severity: 'warning',
  part: 'errors',
  message: "Error '{code}' is bound to nothing that raises it: no runtime situation, uniqueness, rule, guard or delete behaviour names it, so the reference can never produce it and the tester can never provoke it.",
  description: 'Bind the code: name it in the `error` of a `unique`, a rule or a guard, or in an `onDelete: { refuse: <code> }`; or map a runtime situation to it with `for:` (docs/http-errors.md). A code that only the implementation raises, for reasons stated in prose, says so with `raisedBy: implementation`.',
});

/** The codes the domain rules name. */
const domainCodes = memo((spec: Spec): ReadonlySet<string> => {
  const out = new Set<string>();
  for (const r of spec.resources) {
    for (const u of r.unique) out.add(u.error);
    for (const rule of r.rules) out.add(rule.error);
    for (const f of r.fields) if (f.onDelete?.kind === 'refuse') out.add(f.onDelete.error);
  }
  for (const w of writePlaces(spec)) for (const g of w.rules.guards) out.add(g.error);
  return out;
});

export default defineRule({
  name: 'error-code-unbound',
  diagnostics: [unbound],
  errorCode(e, ctx) {
    if (!given(ctx, 'errors') || e.situations.length || e.raisedBy || domainCodes(ctx.spec).has(e.code)) return;
    ctx.report(unbound, { code: e.code }, e.pointer, { key: true });
  },
});
