import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'error-catalog-missing-validation',
  severity: 'warning',
  part: 'errors',
  message: "Endpoints such as '{endpoint}' take a request body, but the errors catalog has no code with status 400 or 422 to refuse an invalid one.",
  description: 'A body that is not valid JSON, or breaks the fields\' constraints, is refused with 400 Bad Request or 422 Unprocessable Content (RFC 9110, sections 15.5.1 and 15.5.21) and an error code from the catalog. Add one (`validation-failed: {status: 422, title: Validation failed}`).',
});

export default defineRule({
  name: 'error-catalog-missing-validation',
  diagnostics: [missing],
  spec(ctx) {
    if (!given(ctx, 'errors') || ctx.index.errorStatuses.has(400) || ctx.index.errorStatuses.has(422)) return;
    const withBody = ctx.spec.endpoints.find((e) => e.request.kind === 'resource' || (e.request.kind === 'fields' && e.request.fields.length > 0));
    if (withBody) ctx.report(missing, { endpoint: withBody.id }, catalogPointer(ctx), { key: true });
  },
});
