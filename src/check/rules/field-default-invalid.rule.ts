import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { valueProblems, type RefType } from './default-schema.ts';
import { eachShape, fieldLabel, isField, show } from './support.ts';

const invalid = defineDiagnostic({
  code: 'field-default-invalid',
  severity: 'error',
  part: 'resources',
  message: "The default of field '{field}' of '{resource}' ({value}) does not fit the field: {problems}.",
  description: "A default is stored when a client omits the field, so it must itself be a valid value: of the field's type, among its `enum`, within its bounds and lengths, matching its `pattern` and `format`. Correct the default or the constraints.",
});

/** The type of the id of a referenced resource, so a `ref` default can be checked against it. */
function refType(ctx: RuleContext): RefType {
  return (name) => {
    const target = name === undefined ? undefined : ctx.index.resources.get(name);
    const type = target?.id ? ctx.index.fields.get(target.name)?.get(target.id.field)?.type : undefined;
    return type === 'string' || type === 'integer' ? type : undefined;
  };
}

export default defineRule({
  name: 'field-default-invalid',
  diagnostics: [invalid],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      if (!isField(shape) || !shape.hasDefault) return;
      const problems = valueProblems(shape.default, shape, refType(ctx));
      if (problems) ctx.report(invalid, { field: label, resource: resource.name, value: show(shape.default), problems: problems.join('; ') }, child(shape.pointer, 'default'));
    });
  },
});
