import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const invalid = defineDiagnostic({
  code: 'event-trigger-invalid',
  severity: 'error',
  part: 'events',
  message: "The trigger of event '{event}' ('{on}') is not of the form resource.action, where the action is created, updated, deleted or a transition name.",
  description: '`on` says what makes the service emit the event: `loan.created`, `loan.updated`, `loan.deleted`, or `loan.<transition>` for a transition of the resource. Write it in that form.',
});

export default defineRule({
  name: 'event-trigger-invalid',
  diagnostics: [invalid],
  event(event, ctx) {
    const { on, resource } = event.trigger;
    const dot = on.indexOf('.');
    if (dot > 0 && dot < on.length - 1 && resource !== '') return;
    ctx.report(invalid, { event: event.name, on }, event.trigger.pointer);
  },
});
