import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given, publicRules } from './support.ts';

const anonymous = defineDiagnostic({
  code: 'auth-owned-endpoint-public',
  severity: 'warning',
  part: 'authentication',
  message: "Endpoint '{endpoint}' is public, but records of '{resource}' are owned: an anonymous caller owns nothing, so it can see or change no record.",
  description: 'An owned resource shows each principal only its own records. A public endpoint of it has no principal, so it either finds nothing or would have to show everyone\'s records. Require a credential for it (remove it from `public`).',
});

export default defineRule({
  name: 'auth-owned-endpoint-public',
  diagnostics: [anonymous],
  endpoint(endpoint, ctx) {
    if (!given(ctx, 'authentication') || !endpoint.auth?.public || !ctx.index.resources.get(endpoint.resource)?.owned) return;
    const rules = publicRules(ctx.spec);
    const rule = rules.get(endpoint.id) ?? rules.get(`${endpoint.resource}.*`);
    ctx.report(anonymous, { endpoint: endpoint.id, resource: endpoint.resource }, rule?.pointer ?? endpoint.pointer);
  },
});
