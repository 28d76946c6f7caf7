import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const missing = defineDiagnostic({
  code: 'auth-jwt-keys-missing',
  severity: 'error',
  part: 'authentication',
  message: "Scheme '{scheme}' takes JWTs but does not say where the keys that verify them are: set `jwt.jwksUrl` or `jwt.jwksFile`.",
  description: 'A JWT is trusted only when its signature checks out against the issuer\'s public keys. Give the JWKS location: `jwksUrl` (published by the issuer) or `jwksFile` (a file next to the spec), along with the accepted `algorithms`.',
});

export default defineRule({
  name: 'auth-jwt-keys-missing',
  diagnostics: [missing],
  scheme(scheme, ctx) {
    if (scheme.type !== 'bearer' || scheme.tokens !== 'jwt' || scheme.jwt?.jwksUrl || scheme.jwt?.jwksFile) return;
    ctx.report(missing, { scheme: scheme.name }, child(scheme.pointer, scheme.jwt ? 'jwt' : 'tokens'), { key: scheme.jwt !== undefined });
  },
});
