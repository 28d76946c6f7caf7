import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const noPrincipal = defineDiagnostic({
  code: 'auth-owned-without-authentication',
  severity: 'error',
  part: 'authentication',
  message: "Records of '{resource}' are owned by the principal that created them, but authentication {state}: there is no principal to own them.",
  description: '`owned: true` limits each record to the authenticated principal that created it, which needs authentication. Describe the authentication part, or drop `owned`.',
});

export default defineRule({
  name: 'auth-owned-without-authentication',
  diagnostics: [noPrincipal],
  resource(resource, ctx) {
    const statement = ctx.spec.parts.authentication.statement;
    if (!resource.owned || statement === 'given') return;
    ctx.report(noPrincipal, { resource: resource.name, state: statement === 'none' ? 'is stated as none' : 'is not given' }, child(resource.pointer, 'owned'));
  },
});
