import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const none = defineDiagnostic({
  code: 'auth-no-schemes',
  severity: 'error',
  part: 'authentication',
  message: 'Authentication is given but names no scheme, so no client could authenticate.',
  description: 'The authentication part must list at least one scheme under `schemes` (apiKey, bearer, basic or oauth2) with the header or parameter that carries the credential. If the service has no authentication, write `authentication: {none: <why>}` instead.',
});

export default defineRule({
  name: 'auth-no-schemes',
  diagnostics: [none],
  spec(ctx) {
    if (given(ctx, 'authentication') && ctx.spec.authentication.schemes.length === 0) {
      ctx.report(none, {}, ctx.spec.parts.authentication.pointer, { key: true });
    }
  },
});
