import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { formatDuration } from '../../spec/units.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'rate-limit-without-429',
  severity: 'warning',
  part: 'errors',
  message: 'A rate limit is set ({limit} requests in {window}), but the errors catalog has no code with status 429 to refuse requests over it.',
  description: 'Requests over a rate limit are answered with 429 Too Many Requests (RFC 6585, section 4) and an error code from the catalog. Add one (`rate-limited: {status: 429, title: Too many requests}`).',
});

export default defineRule({
  name: 'rate-limit-without-429',
  diagnostics: [missing],
  spec(ctx) {
    const rate = ctx.spec.limits.rate;
    if (!rate || !given(ctx, 'errors') || !given(ctx, 'limits') || ctx.index.errorStatuses.has(429)) return;
    ctx.report(missing, { limit: rate.limit, window: formatDuration(rate.windowMs) }, catalogPointer(ctx), { key: true });
  },
});

