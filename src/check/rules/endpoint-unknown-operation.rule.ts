import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import type { Endpoint } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { listOf, STANDARD_OPERATION_NAMES, transitionNames, written } from './support.ts';

const unknown = defineDiagnostic({
  code: 'endpoint-unknown-operation',
  severity: 'error',
  part: 'endpoints',
  message: "'{operation}' is not an operation of '{resource}': neither a standard operation ({standard}) nor one of its transitions ({transitions}).{hint}",
  description: 'An endpoint is named by its operation: create, read, update, replace, delete, list, or the name of a transition of the resource (from the `states` part). Correct the name, or declare the transition.',
});

/** At the `operation:` value when the entry names its operation there, else at the entry's key. */
function at(ctx: RuleContext, endpoint: Endpoint): [string, { key: boolean }] {
  const op = child(endpoint.pointer, 'operation');
  return written(ctx, op) ? [op, { key: false }] : [endpoint.pointer, { key: endpoint.explicit }];
}

export default defineRule({
  name: 'endpoint-unknown-operation',
  diagnostics: [unknown],
  endpoint(endpoint, ctx) {
    if (endpoint.operation !== 'transition' || endpoint.transition === undefined || !ctx.index.resources.has(endpoint.resource)) return;
    const machine = ctx.index.machines.get(endpoint.resource);
    const transitions = machine ? transitionNames(machine) : new Set<string>();
    if (transitions.has(endpoint.transition)) return;
    ctx.report(unknown, {
      operation: endpoint.transition,
      resource: endpoint.resource,
      standard: STANDARD_OPERATION_NAMES.join(', '),
      transitions: listOf(transitions, 'none declared'),
      hint: didYouMean(endpoint.transition, [...STANDARD_OPERATION_NAMES, ...transitions]),
    }, ...at(ctx, endpoint));
  },
});
