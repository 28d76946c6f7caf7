import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { StateMachine } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { stateNames, written } from './support.ts';

const unreachable = defineDiagnostic({
  code: 'state-unreachable',
  severity: 'warning',
  part: 'states',
  message: "State '{state}' of '{resource}' cannot be reached: no chain of transitions leads to it from the initial state '{initial}'.",
  description: 'Every state should be reachable from `initial` through transitions; otherwise no record ever enters it and a tester cannot exercise it. Add the transition that leads there, or remove the state.',
});

/** The states reachable from the initial one, by a breadth-first walk over the transitions. */
function reachable(machine: StateMachine): Set<string> {
  const next = new Map<string, string[]>();
  for (const t of machine.transitions) {
    for (const from of t.from) {
      const list = next.get(from);
      if (list) list.push(t.to);
      else next.set(from, [t.to]);
    }
  }
  const seen = new Set([machine.initial]);
  const queue = [machine.initial];
  for (let state = queue.shift(); state !== undefined; state = queue.shift()) {
    for (const to of next.get(state) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}

/** Where a state is declared: the `states` list if written, else the state field's enum. */
function declaredAt(machine: StateMachine, ctx: RuleContext): (state: string, i: number) => string {
  if (written(ctx, child(machine.pointer, 'states'))) return (_state, i) => child(machine.pointer, 'states', i);
  const field = ctx.index.fields.get(machine.resource)?.get(machine.field);
  const enumIndex = new Map((field?.enum ?? []).map((v, i) => [String(v), i]));
  return (state) => {
    const i = enumIndex.get(state);
    return field && i !== undefined ? child(field.pointer, 'enum', i) : machine.pointer;
  };
}

export default defineRule({
  name: 'state-unreachable',
  diagnostics: [unreachable],
  stateMachine(machine, ctx) {
    // An unknown or missing initial state is reported on its own; reachability from it means nothing.
    if (!stateNames(machine).has(machine.initial)) return;
    const seen = reachable(machine);
    const at = declaredAt(machine, ctx);
    machine.states.forEach((state, i) => {
      if (!seen.has(state)) ctx.report(unreachable, { state, resource: machine.resource, initial: machine.initial }, at(state, i));
    });
  },
});
