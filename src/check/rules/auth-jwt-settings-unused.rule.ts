import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unused = defineDiagnostic({
  code: 'auth-jwt-settings-unused',
  severity: 'warning',
  part: 'authentication',
  message: "Scheme '{scheme}' has `jwt` settings but takes opaque tokens, so the settings are never used.",
  description: '`jwt` (issuer, audience, algorithms, keys) applies only to `tokens: jwt`. Set `tokens: jwt` if the tokens are JWTs, or remove the settings.',
});

export default defineRule({
  name: 'auth-jwt-settings-unused',
  diagnostics: [unused],
  scheme(scheme, ctx) {
    if (scheme.type === 'bearer' && scheme.tokens === 'opaque' && scheme.jwt) ctx.report(unused, { scheme: scheme.name }, child(scheme.pointer, 'jwt'), { key: true });
  },
});
