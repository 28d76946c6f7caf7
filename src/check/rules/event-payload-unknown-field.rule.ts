import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unknown = defineDiagnostic({
  code: 'event-payload-unknown-field',
  severity: 'error',
  part: 'events',
  message: "The payload of event '{event}' lists field '{field}', which is not a field of '{resource}'.{hint}",
  description: "A payload list names fields of the record that triggered the event (the resource before the dot in `on`). Correct the name, or use `payload: resource` for the whole record.",
});

export default defineRule({
  name: 'event-payload-unknown-field',
  diagnostics: [unknown],
  event(event, ctx) {
    const fields = ctx.index.fields.get(event.trigger.resource);
    if (!fields || event.payload.kind !== 'fields') return;
    event.payload.fields.forEach((name, i) => {
      if (!fields.has(name)) ctx.report(unknown, { event: event.name, field: name, resource: event.trigger.resource, hint: didYouMean(name, fields.keys()) }, child(event.pointer, 'payload', i));
    });
  },
});
