import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'auth-without-401',
  severity: 'warning',
  part: 'errors',
  message: "Endpoints such as '{endpoint}' need a credential, but the errors catalog has no code with status 401 to refuse requests without one.",
  description: 'A request to a non-public endpoint without a valid credential is answered with 401 Unauthorized (RFC 9110, section 15.5.2) and an error code from the catalog. Add one (`unauthenticated: {status: 401, title: Authentication required}`).',
});

export default defineRule({
  name: 'auth-without-401',
  diagnostics: [missing],
  spec(ctx) {
    if (!given(ctx, 'errors') || !given(ctx, 'authentication') || ctx.index.errorStatuses.has(401)) return;
    const guarded = ctx.spec.endpoints.find((e) => e.auth && !e.auth.public);
    if (guarded) ctx.report(missing, { endpoint: guarded.id }, catalogPointer(ctx), { key: true });
  },
});
