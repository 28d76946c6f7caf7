import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { formatDuration } from '../../spec/units.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'timeout-without-error',
  severity: 'warning',
  part: 'errors',
  message: 'Requests running longer than {request} are answered with {status}, but the errors catalog has no code with status {status}.',
  description: 'A timed-out request is answered with the status of `limits.timeouts` and an error code from the catalog. Add one with that status (`timeout: {status: 504, title: Request timed out}`), or change the status.',
});

export default defineRule({
  name: 'timeout-without-error',
  diagnostics: [missing],
  spec(ctx) {
    const timeouts = ctx.spec.limits.timeouts;
    if (!timeouts || !given(ctx, 'errors') || !given(ctx, 'limits') || ctx.index.errorStatuses.has(timeouts.status)) return;
    ctx.report(missing, { request: formatDuration(timeouts.requestMs), status: timeouts.status }, catalogPointer(ctx), { key: true });
  },
});
