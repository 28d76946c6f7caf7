import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'conditional-without-412',
  severity: 'warning',
  part: 'errors',
  message: 'Writes honour preconditions (`limits.conditional`), but the errors catalog has no code with status 412 to refuse one that fails.',
  description: 'A write whose If-Match (or If-Unmodified-Since) does not hold is refused with 412 Precondition Failed (RFC 9110, section 13.1.1) and an error code from the catalog. Add one (`precondition-failed: {status: 412, title: Precondition failed}`), or state `writes: false`.',
});

export default defineRule({
  name: 'conditional-without-412',
  diagnostics: [missing],
  spec(ctx) {
    const conditional = ctx.spec.limits.conditional;
    if (!conditional?.writes || !given(ctx, 'errors') || ctx.index.errorStatuses.has(412)) return;
    ctx.report(missing, {}, catalogPointer(ctx), { key: true });
  },
});
