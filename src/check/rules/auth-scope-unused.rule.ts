import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const unused = defineDiagnostic({
  code: 'auth-scope-unused',
  severity: 'warning',
  part: 'authentication',
  message: "Scope '{scope}' is declared but no endpoint needs it, neither through `default` nor through `require`.",
  description: 'A scope allows what the endpoints that need it do; one that no endpoint needs allows nothing, which usually means a `require` entry is missing. Name it in `require` (or `default`), or remove it.',
});

export default defineRule({
  name: 'auth-scope-unused',
  diagnostics: [unused],
  spec(ctx) {
    if (!given(ctx, 'authentication')) return;
    const auth = ctx.spec.authentication;
    const used = new Set([...auth.defaultScopes, ...auth.rules.flatMap((r) => r.scopes)]);
    for (const scope of auth.scopes) {
      if (!used.has(scope.name)) ctx.report(unused, { scope: scope.name }, scope.pointer, { key: true });
    }
  },
});
