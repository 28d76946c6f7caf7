import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const unknown = defineDiagnostic({
  code: 'state-resource-unknown',
  severity: 'error',
  part: 'states',
  message: "States are declared for '{resource}', which is not a resource (resources: {resources}).{hint}",
  description: 'The `states` part is keyed by the resource whose records have states; each key must name a resource of the `resources` part. Correct the name, or declare the resource.',
});

export default defineRule({
  name: 'state-resource-unknown',
  diagnostics: [unknown],
  stateMachine(machine, ctx) {
    if (ctx.index.resources.has(machine.resource)) return;
    ctx.report(unknown, {
      resource: machine.resource, resources: listOf(ctx.index.resources.keys()), hint: didYouMean(machine.resource, ctx.index.resources.keys()),
    }, machine.pointer, { key: true });
  },
});
