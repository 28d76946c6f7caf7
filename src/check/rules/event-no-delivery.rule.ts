import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const undelivered = defineDiagnostic({
  code: 'event-no-delivery',
  severity: 'error',
  part: 'events',
  message: 'The events part lists {count} event(s) but no way to deliver them: neither `webhooks` nor `stream` is given.',
  description: 'Events reach clients by webhooks (signed HTTP callbacks) or by a server-sent event stream. Without either, a builder cannot deliver them and a tester cannot observe them. Add `webhooks` or `stream`.',
});

export default defineRule({
  name: 'event-no-delivery',
  diagnostics: [undelivered],
  spec(ctx) {
    const events = ctx.spec.events;
    if (!given(ctx, 'events') || events.catalog.length === 0 || events.webhooks || events.stream) return;
    ctx.report(undelivered, { count: events.catalog.length }, child(ctx.spec.parts.events.pointer, 'catalog'), { key: true });
  },
});
