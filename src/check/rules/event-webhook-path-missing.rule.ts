import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const missing = defineDiagnostic({
  code: 'event-webhook-path-missing',
  severity: 'error',
  part: 'events',
  message: 'Webhook subscriptions are managed through the API, but no `path` says where the subscriptions collection is.',
  description: 'With `subscriptions: api`, clients create and remove subscriptions through endpoints under `path` (`/webhooks`). Add the path, or use `subscriptions: config` if the operator configures them.',
});

export default defineRule({
  name: 'event-webhook-path-missing',
  diagnostics: [missing],
  spec(ctx) {
    const webhooks = ctx.spec.events.webhooks;
    if (webhooks?.subscriptions === 'api' && webhooks.path === undefined) ctx.report(missing, {}, child(webhooks.pointer, 'subscriptions'));
  },
});
