import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const unknown = defineDiagnostic({
  code: 'rate-override-unknown-endpoint',
  severity: 'error',
  part: 'limits',
  message: "The rate limit is overridden for '{endpoint}', which is not an endpoint id.{hint}",
  description: '`limits.rate.overrides` is keyed by endpoint id (`loan.create`: resource and operation). An override for no endpoint has no effect, and the endpoint meant keeps the main limit. Correct the id.',
});

export default defineRule({
  name: 'rate-override-unknown-endpoint',
  diagnostics: [unknown],
  spec(ctx) {
    if (!given(ctx, 'endpoints')) return;
    for (const override of ctx.spec.limits.rate?.overrides ?? []) {
      if (ctx.index.endpoints.has(override.endpoint)) continue;
      ctx.report(unknown, { endpoint: override.endpoint, hint: didYouMean(override.endpoint, ctx.index.endpoints.keys()) }, override.pointer, { key: true });
    }
  },
});
