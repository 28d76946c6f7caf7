import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { endpointResources, given } from './support.ts';

const unknown = defineDiagnostic({
  code: 'auth-rule-unknown-endpoint',
  severity: 'error',
  part: 'authentication',
  message: "'{match}' in `{list}` {problem}.{hint}",
  description: '`public` entries and `require` keys name an endpoint id (`loan.approve`: resource and operation) or all the endpoints of a resource (`loan.*`). One that matches no endpoint has no effect, and the endpoint meant falls back to the default. Correct the name.',
});

export default defineRule({
  name: 'auth-rule-unknown-endpoint',
  diagnostics: [unknown],
  authRule(rule, ctx) {
    if (!given(ctx, 'authentication') || !given(ctx, 'endpoints')) return;
    const list = rule.public ? 'public' : 'require';
    const report = (problem: string, hint: string) => ctx.report(unknown, { match: rule.match, list, problem, hint }, rule.pointer, { key: !rule.public });
    if (rule.match.endsWith('.*')) {
      const resource = rule.match.slice(0, -2);
      const resources = endpointResources(ctx.spec);
      if (!resources.has(resource)) report(`names resource '${resource}', which has no endpoints`, didYouMean(resource, resources));
    } else if (!ctx.index.endpoints.has(rule.match)) {
      report('is not an endpoint id', didYouMean(rule.match, ctx.index.endpoints.keys()));
    }
  },
});
