import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unknown = defineDiagnostic({
  code: 'transition-requires-unknown-field',
  severity: 'error',
  part: 'states',
  message: "Transition '{transition}' of '{resource}' requires field '{field}', which is not one of its fields.{hint}",
  description: "`requires` lists the fields a transition's request must carry; each must be a top-level field of the resource. Correct the name, or add the field.",
});

export default defineRule({
  name: 'transition-requires-unknown-field',
  diagnostics: [unknown],
  transition(t, machine, ctx) {
    const fields = ctx.index.fields.get(machine.resource);
    if (!fields) return;
    t.requires.forEach((name, i) => {
      if (!fields.has(name)) ctx.report(unknown, { transition: t.name, resource: machine.resource, field: name, hint: didYouMean(name, fields.keys()) }, child(t.pointer, 'requires', i));
    });
  },
});
