/** Rules of part 3, states: a row per finding, and near misses that must stay silent. */
import { table } from './table.ts';

const machine = (value: Record<string, unknown>) => ({ states: { task: value } });
const status = (value: Record<string, unknown>) => ({ resources: { task: { fields: { status: value } } } });
const STATES = ['open', 'done', 'archived'];
const M = '/states/task';
const STATUS = '/resources/task/fields/status';

table('state-resource-unknown', [
  {
    name: 'states of an undeclared resource',
    patch: { states: { tsk: { field: 'status', states: ['a', 'b'], initial: 'a', transitions: { go: { from: 'a', to: 'b' } } } } },
    expect: ['state-resource-unknown /states/tsk'],
    messages: [/States are declared for 'tsk', which is not a resource \(resources: 'project', 'task'\)\. Did you mean 'task'\?/],
  },
]);

table('state-field-missing', [
  { name: 'no field holds the state', patch: machine({ field: undefined, states: STATES }), expect: [`state-field-missing ${M}`, `field-readonly-unset ${STATUS}`] },
]);

table('state-field-unknown', [
  { name: 'the state field is not a field', patch: machine({ field: 'stats', states: STATES }), expect: [`state-field-unknown ${M}/field`, `field-readonly-unset ${STATUS}`], messages: [/Did you mean 'status'\?/] },
]);

table('state-list-empty', [
  {
    name: 'no enum and no states list',
    patch: status({ enum: undefined }),
    // Said once: the transitions do not each repeat it as an unknown state.
    expect: [`state-list-empty ${STATUS}`],
  },
]);

table('state-field-not-enum', [
  { name: 'states listed, but the field takes any text', patch: { ...machine({ states: STATES }), ...status({ enum: undefined }) }, expect: [`state-field-not-enum ${STATUS}`] },
  { name: 'a states list equal to the enum', patch: machine({ states: ['archived', 'open', 'done'] }), expect: [] },
]);

table('state-list-mismatch', [
  {
    name: 'the states list and the enum differ',
    patch: machine({ states: ['open', 'done', 'closed'] }),
    expect: [`state-list-mismatch ${M}/states`, `transition-unknown-state ${M}/transitions/archive/to`, `state-unreachable ${M}/states/2`],
    messages: [/'closed' only in the states list; 'archived' only in the enum/],
  },
]);

table('state-initial-missing', [
  { name: 'no initial state', patch: machine({ initial: undefined }), expect: [`state-initial-missing ${M}`] },
]);

table('state-initial-unknown', [
  { name: 'the initial state is not a state', patch: machine({ initial: 'opn' }), expect: [`state-initial-unknown ${M}/initial`], messages: [/'opn', which is not one of its states \('open', 'done', 'archived'\)\. Did you mean 'open'\?/] },
]);

table('state-unreachable', [
  { name: 'a state of the enum no transition leads to', patch: status({ enum: [...STATES, 'lost'] }), expect: [`state-unreachable ${STATUS}/enum/3`] },
  { name: 'a state of the states list', patch: { ...machine({ states: [...STATES, 'lost'] }), ...status({ enum: [...STATES, 'lost'] }) }, expect: [`state-unreachable ${M}/states/3`] },
  { name: 'the states before the initial one', patch: machine({ initial: 'done' }), expect: [`state-unreachable ${STATUS}/enum/0`], messages: [/State 'open' of 'task' cannot be reached.*initial state 'done'/] },
]);

table('state-field-writable', [
  { name: 'a state field clients could write', patch: status({ readOnly: undefined }), expect: [`state-field-writable ${STATUS}`] },
]);

table('state-no-transitions', [
  {
    name: 'a machine without transitions',
    patch: machine({ transitions: undefined }),
    // The transition endpoints, the transition event and the states beyond the initial one go with them.
    expect: [
      `state-no-transitions ${M}`,
      'endpoint-unknown-operation /endpoints/task/finish', 'endpoint-unknown-operation /endpoints/task/archive',
      `state-unreachable ${STATUS}/enum/1`, `state-unreachable ${STATUS}/enum/2`,
      'event-trigger-unknown-transition /events/catalog/task.finished/on',
    ],
  },
]);

table('transition-requires-unknown-field', [
  { name: 'a required field that does not exist', patch: machine({ transitions: { finish: { requires: ['nte'] } } }), expect: [`transition-requires-unknown-field ${M}/transitions/finish/requires/0`], messages: [/Did you mean 'note'\?/] },
]);

table('transition-unknown-state', [
  { name: 'a transition to an unknown state', patch: machine({ transitions: { finish: { to: 'dne' } } }), expect: [`transition-unknown-state ${M}/transitions/finish/to`, `state-unreachable ${STATUS}/enum/1`] },
  { name: 'an unknown state in a from list points at the item', patch: machine({ transitions: { archive: { from: ['open', 'dnoe'] } } }), expect: [`transition-unknown-state ${M}/transitions/archive/from/1`] },
]);
