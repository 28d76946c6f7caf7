import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const unknown = defineDiagnostic({
  code: 'event-trigger-unknown-resource',
  severity: 'error',
  part: 'events',
  message: "Event '{event}' is triggered on '{resource}', which is not a resource (resources: {resources}).{hint}",
  description: 'The part of `on` before the dot names the resource whose records trigger the event. Correct the name, or declare the resource.',
});

export default defineRule({
  name: 'event-trigger-unknown-resource',
  diagnostics: [unknown],
  event(event, ctx) {
    const { on, resource } = event.trigger;
    // A trigger without a dot is not of the right form at all (event-trigger-invalid).
    if (!on.includes('.') || resource === '' || ctx.index.resources.has(resource)) return;
    ctx.report(unknown, {
      event: event.name, resource, resources: listOf(ctx.index.resources.keys()), hint: didYouMean(resource, ctx.index.resources.keys()),
    }, event.trigger.pointer);
  },
});
