import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given, publicRules } from './support.ts';

const both = defineDiagnostic({
  code: 'auth-public-and-required',
  severity: 'warning',
  part: 'authentication',
  message: "'{match}' is listed in `public` and also in `require` (needing {scopes}); public wins, so the scopes are never asked for.",
  description: 'An endpoint listed as public needs no credential, whatever `require` says for it. Remove it from one of the two lists.',
});

export default defineRule({
  name: 'auth-public-and-required',
  diagnostics: [both],
  authRule(rule, ctx) {
    if (!given(ctx, 'authentication') || rule.public || !publicRules(ctx.spec).has(rule.match)) return;
    ctx.report(both, { match: rule.match, scopes: rule.scopes.map((s) => `'${s}'`).join(', ') || 'no scopes' }, rule.pointer, { key: true });
  },
});
