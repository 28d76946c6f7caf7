import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const ambiguous = defineDiagnostic({
  code: 'auth-prefix-ambiguous',
  severity: 'error',
  part: 'authentication',
  message: "Scheme '{scheme}' reads `Authorization: {prefix} …`, the word of the basic scheme '{other}': a request's credentials could be either's.",
  description: 'A bearer scheme\'s `prefix` is the word before its token in the Authorization header (RFC 9110 §11.4). `Basic` is the word of a basic scheme (RFC 7617): with both declared, the service could not tell a token from a user-id and password. Choose another word, or drop one scheme.',
});

export default defineRule({
  name: 'auth-prefix-ambiguous',
  diagnostics: [ambiguous],
  scheme(scheme, ctx) {
    if (scheme.type !== 'bearer' || scheme.prefix?.toLowerCase() !== 'basic') return;
    const other = ctx.spec.authentication.schemes.find((s) => s.type === 'basic');
    if (other) ctx.report(ambiguous, { scheme: scheme.name, prefix: scheme.prefix, other: other.name }, child(scheme.pointer, 'prefix'));
  },
});
