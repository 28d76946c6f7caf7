import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unknown = defineDiagnostic({
  code: 'rule-field-unknown',
  severity: 'error',
  part: 'resources',
  message: "Rule {n} of '{resource}' points its violation at '{field}', which is not one of its fields.{hint}",
  description: "A rule's `field` names the top-level field a violation is reported at (its JSON pointer in the 422 answer). Correct the name, or leave `field` out to point at the record.",
});

export default defineRule({
  name: 'rule-field-unknown',
  diagnostics: [unknown],
  resource(r, ctx) {
    const fields = ctx.index.fields.get(r.name);
    if (!fields) return;
    r.rules.forEach((rule, i) => {
      if (rule.field !== undefined && !fields.has(rule.field)) ctx.report(unknown, { n: i + 1, resource: r.name, field: rule.field, hint: didYouMean(rule.field, fields.keys()) }, child(rule.pointer, 'field'));
    });
  },
});
