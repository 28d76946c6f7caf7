import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { formatSize } from '../../spec/units.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'body-limit-without-413',
  severity: 'warning',
  part: 'errors',
  message: 'Request bodies are limited to {size}, but the errors catalog has no code with status 413 to refuse larger ones.',
  description: 'A body over `limits.body.maxSize` is answered with 413 Content Too Large (RFC 9110, section 15.5.14) and an error code from the catalog. Add one (`payload-too-large: {status: 413, title: Request body too large}`).',
});

export default defineRule({
  name: 'body-limit-without-413',
  diagnostics: [missing],
  spec(ctx) {
    const body = ctx.spec.limits.body;
    if (!body || !given(ctx, 'errors') || !given(ctx, 'limits') || ctx.index.errorStatuses.has(413)) return;
    ctx.report(missing, { size: formatSize(body.maxBytes) }, catalogPointer(ctx), { key: true });
  },
});
