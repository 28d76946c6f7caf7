import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const invalid = defineDiagnostic({
  code: 'resource-ownership-invalid',
  severity: 'error',
  part: 'resources',
  message: "Resource '{resource}' {why}.",
  description: '`perOwner: one` limits each owner to one record, so it needs `owned: true`. `visibility: { parent: <field> }` makes a record visible as its parent is: `<field>` must be a ref field of the resource, to an owned resource, and the resource itself not owned (it takes its parent\'s owner).',
});

export default defineRule({
  name: 'resource-ownership-invalid',
  diagnostics: [invalid],
  resource(resource, ctx) {
    if (resource.perOwner === 'one' && !resource.owned) {
      ctx.report(invalid, { resource: resource.name, why: 'allows one record per owner (perOwner: one), but is not owned: true, so its records have no owner' }, child(resource.pointer, 'perOwner'));
    }
    const v = resource.visibility;
    if (!v) return;
    const field = resource.fields.find((f) => f.name === v.field);
    const parent = field?.type === 'ref' && field.resource ? ctx.index.resources.get(field.resource) : undefined;
    const why = field?.type !== 'ref'
      ? `follows the visibility of the parent named by '${v.field}', which is not a ref field of it`
      : resource.owned
        ? 'is owned: true and also follows its parent\'s visibility; say one'
        : parent && !parent.owned
          ? `follows the visibility of its ${parent.name}, but ${parent.name} is not owned, so every caller sees it anyway`
          : undefined;
    if (why) ctx.report(invalid, { resource: resource.name, why }, child(v.pointer, 'parent'));
  },
});
