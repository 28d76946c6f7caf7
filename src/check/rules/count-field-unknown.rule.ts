import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { writePlaces } from './domain-support.ts';

const resourceUnknown = defineDiagnostic({
  code: 'count-resource-unknown',
  severity: 'error',
  part: 'resources',
  message: "Count '{name}' of {where} counts '{resource}', which is not a resource.{hint}",
  description: 'A count (`counts: { open: { resource: loan, where: … } }`) counts the records of a declared resource. Correct the name.',
});

const fieldUnknown = defineDiagnostic({
  code: 'count-field-unknown',
  severity: 'error',
  part: 'resources',
  message: "Count '{name}' of {where} tests '{field}', which is not a field of '{resource}'.{hint}",
  description: "The keys of a count's `where` are top-level fields of the counted resource. Correct the name.",
});

export default defineRule({
  name: 'count-field-unknown',
  diagnostics: [resourceUnknown, fieldUnknown],
  spec(ctx) {
    for (const w of writePlaces(ctx.spec)) {
      for (const c of w.rules.counts) {
        const fields = ctx.index.fields.get(c.resource);
        if (!fields) {
          ctx.report(resourceUnknown, { name: c.name, where: w.label, resource: c.resource, hint: didYouMean(c.resource, ctx.index.resources.keys()) }, child(c.pointer, 'resource'), { part: w.part });
          continue;
        }
        const idField = ctx.index.resources.get(c.resource)?.id?.field ?? 'id';
        for (const cond of c.where) {
          if (!fields.has(cond.field) && cond.field !== idField) ctx.report(fieldUnknown, { name: c.name, where: w.label, field: cond.field, resource: c.resource, hint: didYouMean(cond.field, fields.keys()) }, child(c.pointer, 'where', cond.field), { key: true, part: w.part });
        }
      }
    }
  },
});
