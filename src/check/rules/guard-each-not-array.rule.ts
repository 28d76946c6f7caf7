import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { writePlaces } from './domain-support.ts';

const notArray = defineDiagnostic({
  code: 'guard-each-not-array',
  severity: 'error',
  part: 'resources',
  message: "Guard {n} of {where} is checked on each item of '{field}', {what}.{hint}",
  description: "A guard's `each` names a top-level array field of the record written whose items are objects; the guard is checked on every item (`item`, and `itemRefs` for the records its ref members point to). Correct the name, or leave `each` out to check the guard once.",
});

export default defineRule({
  name: 'guard-each-not-array',
  diagnostics: [notArray],
  spec(ctx) {
    for (const w of writePlaces(ctx.spec)) {
      w.rules.guards.forEach((g, i) => {
        if (g.each === undefined) return;
        const field = w.resource.fields.find((f) => f.name === g.each);
        if (field?.type === 'array' && field.items?.type === 'object') return;
        const arrays = w.resource.fields.filter((f) => f.type === 'array').map((f) => f.name);
        const what = !field ? `which is not a field of '${w.resource.name}'` : field.type !== 'array' ? `a field of type ${field.type}, not an array` : 'an array whose items are not objects';
        ctx.report(notArray, { n: i + 1, where: w.label, field: g.each, what, hint: field ? '' : didYouMean(g.each, arrays) }, child(g.pointer, 'each'), { part: w.part });
      });
    }
  },
});
