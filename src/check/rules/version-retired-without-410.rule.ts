import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'version-retired-without-410',
  severity: 'warning',
  part: 'errors',
  message: "Version '{version}' is retired, but the errors catalog has no code with status 410 to answer requests for it.",
  description: 'Requests for a retired version are answered with 410 Gone (RFC 9110, section 15.5.11) and an error code from the catalog. Add one (`version-retired: {status: 410, title: API version retired}`).',
});

export default defineRule({
  name: 'version-retired-without-410',
  diagnostics: [missing],
  spec(ctx) {
    if (!given(ctx, 'errors') || !given(ctx, 'versioning') || ctx.index.errorStatuses.has(410)) return;
    const retired = ctx.spec.versioning.versions.find((v) => v.status === 'retired');
    if (retired) ctx.report(missing, { version: retired.name }, catalogPointer(ctx), { key: true });
  },
});
