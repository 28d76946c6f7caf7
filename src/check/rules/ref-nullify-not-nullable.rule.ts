import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const notNullable = defineDiagnostic({
  code: 'ref-nullify-not-nullable',
  severity: 'error',
  part: 'resources',
  message: "'{resource}.{field}' is set to null when its '{target}' is deleted (`onDelete: nullify`), but it is {why}.",
  description: '`nullify` leaves the referring records without the ref, so the field must be `nullable: true` and not `required`. Make it so, or choose `cascade` or `{ refuse: <code> }`.',
});

export default defineRule({
  name: 'ref-nullify-not-nullable',
  diagnostics: [notNullable],
  field(f, r, ctx) {
    if (f.onDelete?.kind !== 'nullify') return;
    const why = [f.required ? 'required' : '', f.nullable ? '' : 'not nullable'].filter(Boolean).join(' and ');
    if (why) ctx.report(notNullable, { resource: r.name, field: f.name, target: f.resource, why }, f.onDelete.pointer);
  },
});
