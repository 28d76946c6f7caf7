import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { transitionsByName, written } from './support.ts';

const readOnly = defineDiagnostic({
  code: 'endpoint-request-readonly-field',
  severity: 'error',
  part: 'endpoints',
  message: "The request of endpoint '{endpoint}' carries field '{field}' of '{resource}', which is readOnly: a client that sends it is refused.",
  description: "A readOnly field is set by the service and refused from clients, so it cannot be part of a request (an explicit `request` list, or a transition's `requires`). Remove it from the request, or drop `readOnly` from the field.",
});

export default defineRule({
  name: 'endpoint-request-readonly-field',
  diagnostics: [readOnly],
  endpoint(endpoint, ctx) {
    const fields = ctx.index.fields.get(endpoint.resource);
    if (!fields || endpoint.request.kind !== 'fields') return;
    const listed = child(endpoint.pointer, 'request');
    const explicit = written(ctx, listed);
    const machine = ctx.index.machines.get(endpoint.resource);
    const transition = !explicit && machine && endpoint.transition !== undefined ? transitionsByName(machine).get(endpoint.transition) : undefined;
    endpoint.request.fields.forEach((name, i) => {
      if (!fields.get(name)?.readOnly) return;
      // Taken from the transition's `requires`: point there, where it is written.
      const at = explicit ? child(listed, i) : transition ? child(transition.pointer, 'requires', transition.requires.indexOf(name)) : endpoint.pointer;
      ctx.report(readOnly, { endpoint: endpoint.id, field: name, resource: endpoint.resource }, at);
    });
  },
});
