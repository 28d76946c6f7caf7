import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const missing = defineDiagnostic({
  code: 'endpoint-transition-missing',
  severity: 'warning',
  part: 'endpoints',
  message: "Transition '{transition}' of '{resource}' has no endpoint, so no client can make it happen.",
  description: "A transition is made through its endpoint (`POST /{plural}/{id}/{transition}` by default). Without one, clients cannot perform it and a tester cannot exercise it. Add the transition's name to the resource's endpoints; if the service makes it on its own (a nightly job), say so in its description.",
});

export default defineRule({
  name: 'endpoint-transition-missing',
  diagnostics: [missing],
  transition(t, machine, ctx) {
    // States of an unknown resource are reported as such (state-resource-unknown).
    if (!given(ctx, 'endpoints') || !ctx.index.resources.has(machine.resource) || ctx.index.endpoints.has(`${machine.resource}.${t.name}`)) return;
    ctx.report(missing, { transition: t.name, resource: machine.resource }, t.pointer, { key: true });
  },
});
