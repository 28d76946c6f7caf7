import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Operation } from '../../spec/model.ts';
import { defineRule } from '../rule.ts';
import { given, operationsByResource } from './support.ts';

const never = defineDiagnostic({
  code: 'event-trigger-no-endpoint',
  severity: 'warning',
  part: 'events',
  message: "Event '{event}' is emitted when a '{resource}' is {action}, but '{resource}' has no {operations} endpoint, so clients never cause it.",
  description: 'created, updated and deleted events follow the create, update or replace, and delete endpoints of their resource. Without such an endpoint a tester cannot make the event happen. Add the endpoint, or explain in the description what else triggers the event.',
});

const CAUSES: Readonly<Record<'created' | 'updated' | 'deleted', readonly Operation[]>> = {
  created: ['create'],
  updated: ['update', 'replace'],
  deleted: ['delete'],
};

export default defineRule({
  name: 'event-trigger-no-endpoint',
  diagnostics: [never],
  event(event, ctx) {
    const { resource, action } = event.trigger;
    if (action === 'transition' || !given(ctx, 'endpoints') || !ctx.index.resources.has(resource)) return;
    const operations = operationsByResource(ctx.spec).get(resource);
    if (CAUSES[action].some((op) => operations?.has(op))) return;
    ctx.report(never, { event: event.name, resource, action, operations: CAUSES[action].join(' or ') }, event.trigger.pointer);
  },
});
