import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { listOf, transitionNames } from './support.ts';

const unknown = defineDiagnostic({
  code: 'event-trigger-unknown-transition',
  severity: 'error',
  part: 'events',
  message: "Event '{event}' is triggered on '{on}', but '{action}' is neither created, updated, deleted nor a transition of '{resource}' ({transitions}).{hint}",
  description: 'After the dot, `on` names what happens to a record: `created`, `updated`, `deleted`, or the name of one of its transitions (from the `states` part). Correct the name, or declare the transition.',
});

const ACTIONS = ['created', 'updated', 'deleted'];

export default defineRule({
  name: 'event-trigger-unknown-transition',
  diagnostics: [unknown],
  event(event, ctx) {
    const { on, resource, action, transition } = event.trigger;
    if (action !== 'transition' || !transition || !ctx.index.resources.has(resource)) return;
    const machine = ctx.index.machines.get(resource);
    const names = machine ? transitionNames(machine) : new Set<string>();
    if (names.has(transition)) return;
    ctx.report(unknown, {
      event: event.name, on, action: transition, resource, transitions: listOf(names, 'it has none'), hint: didYouMean(transition, [...ACTIONS, ...names]),
    }, event.trigger.pointer);
  },
});
