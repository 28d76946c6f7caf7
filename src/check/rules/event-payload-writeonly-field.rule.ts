import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const secret = defineDiagnostic({
  code: 'event-payload-writeonly-field',
  severity: 'error',
  part: 'events',
  message: "The payload of event '{event}' lists field '{field}' of '{resource}', which is writeOnly and must never leave the service.",
  description: 'A writeOnly field (a password, a PIN) is accepted from clients and never returned, and events go to subscribers as well. Remove it from the payload.',
});

export default defineRule({
  name: 'event-payload-writeonly-field',
  diagnostics: [secret],
  event(event, ctx) {
    const fields = ctx.index.fields.get(event.trigger.resource);
    if (!fields || event.payload.kind !== 'fields') return;
    event.payload.fields.forEach((name, i) => {
      if (fields.get(name)?.writeOnly) ctx.report(secret, { event: event.name, field: name, resource: event.trigger.resource }, child(event.pointer, 'payload', i));
    });
  },
});
