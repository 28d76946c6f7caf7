import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { performedByReference } from '../../spec/conventions/endpoints.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'action-without-501',
  severity: 'warning',
  part: 'errors',
  message: "'{endpoint}' is an action whose behaviour is prose, but the errors catalog has no code with status 501 for a service that does not perform it.",
  description: 'The reference service answers a prose action it has no handler for with 501 Not Implemented (RFC 9110, section 15.6.2), and so may a partial implementation. Add the code to the catalog (`not-implemented: {status: 501, title: Not implemented}`), so the answer has the declared shape and a client knows it.',
});

export default defineRule({
  name: 'action-without-501',
  diagnostics: [missing],
  spec(ctx) {
    if (!given(ctx, 'errors') || ctx.index.errorStatuses.has(501)) return;
    const action = ctx.spec.endpoints.find((e) => e.operation === 'action' && !performedByReference(e));
    if (action) ctx.report(missing, { endpoint: action.id }, catalogPointer(ctx), { key: true });
  },
});
