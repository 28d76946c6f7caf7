import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { given, listOf } from './support.ts';

const undeclared = defineDiagnostic({
  code: 'auth-scope-undeclared',
  severity: 'error',
  part: 'authentication',
  message: "{where} needs scope '{scope}', which is not declared under `scopes` ({scopes}).{hint}",
  description: 'Scopes named in `default` and `require` must be declared under `scopes`, with what each allows, so that clients know what to ask for. Correct the name, or declare the scope.',
});

function check(ctx: RuleContext, where: string, scopes: readonly string[], pointer: string): void {
  scopes.forEach((scope, i) => {
    if (ctx.index.scopes.has(scope)) return;
    ctx.report(undeclared, { where, scope, scopes: listOf(ctx.index.scopes), hint: didYouMean(scope, ctx.index.scopes) }, child(pointer, i));
  });
}

export default defineRule({
  name: 'auth-scope-undeclared',
  diagnostics: [undeclared],
  spec(ctx) {
    if (!given(ctx, 'authentication')) return;
    check(ctx, 'The default', ctx.spec.authentication.defaultScopes, child(ctx.spec.parts.authentication.pointer, 'default', 'scopes'));
  },
  authRule(rule, ctx) {
    if (given(ctx, 'authentication')) check(ctx, `'${rule.match}'`, rule.scopes, rule.pointer);
  },
});
