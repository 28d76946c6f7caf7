import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const unused = defineDiagnostic({
  code: 'event-retry-without-webhooks',
  severity: 'warning',
  part: 'events',
  message: 'A retry policy is given but events are not delivered by webhooks, so there is nothing to retry.',
  description: '`retry` says how failed webhook deliveries are retried; a stream client catches up by reconnecting instead. Add `webhooks`, or remove `retry`.',
});

export default defineRule({
  name: 'event-retry-without-webhooks',
  diagnostics: [unused],
  spec(ctx) {
    const { retry, webhooks } = ctx.spec.events;
    if (retry && !webhooks) ctx.report(unused, {}, retry.pointer, { key: true });
  },
});
