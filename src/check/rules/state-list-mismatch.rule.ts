import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const mismatch = defineDiagnostic({
  code: 'state-list-mismatch',
  severity: 'error',
  part: 'states',
  message: "The states of '{resource}' differ from the enum of its state field '{field}': {difference}.",
  description: "When both a `states` list and the state field's `enum` are given they must hold the same values, or the field would accept a value that is no state, or refuse a state. Keep one list (the field's enum), or make them equal.",
});

export default defineRule({
  name: 'state-list-mismatch',
  diagnostics: [mismatch],
  stateMachine(machine, ctx) {
    const field = ctx.index.fields.get(machine.resource)?.get(machine.field);
    if (!field?.enum) return;
    const values = new Set(field.enum.map(String));
    const states = new Set(machine.states);
    const onlyStates = machine.states.filter((s) => !values.has(s));
    const onlyEnum = [...values].filter((v) => !states.has(v));
    if (onlyStates.length === 0 && onlyEnum.length === 0) return;
    const difference = [
      onlyStates.length ? `${listOf(onlyStates)} only in the states list` : '',
      onlyEnum.length ? `${listOf(onlyEnum)} only in the enum` : '',
    ].filter(Boolean).join('; ');
    ctx.report(mismatch, { resource: machine.resource, field: field.name, difference }, child(machine.pointer, 'states'));
  },
});
