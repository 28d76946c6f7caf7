import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unknown = defineDiagnostic({
  code: 'unique-field-unknown',
  severity: 'error',
  part: 'resources',
  message: "The uniqueness '{name}' of '{resource}' {role} '{field}', which is not one of its fields.{hint}",
  description: "A `unique` entry's `fields` (and the fields its `where` tests) are top-level fields of the resource; the store builds a unique index on them. Correct the name, or add the field.",
});

const notScalar = defineDiagnostic({
  code: 'unique-field-not-scalar',
  severity: 'error',
  part: 'resources',
  message: "The uniqueness '{name}' of '{resource}' names '{field}', a field of type {type}: only text, numbers, booleans and refs are compared.",
  description: 'A unique index compares single values; an object, an array or a value of any type has no one value to compare. Name the scalar fields inside it instead, or drop the constraint.',
});

export default defineRule({
  name: 'unique-field-unknown',
  diagnostics: [unknown, notScalar],
  resource(r, ctx) {
    const fields = ctx.index.fields.get(r.name);
    if (!fields) return;
    const idField = r.id?.field ?? 'id';
    for (const u of r.unique) {
      u.fields.forEach((name, i) => {
        const f = fields.get(name);
        if (!f && name !== idField) ctx.report(unknown, { name: u.name, resource: r.name, role: 'names', field: name, hint: didYouMean(name, fields.keys()) }, child(u.pointer, 'fields', i));
        else if (f && (f.type === 'object' || f.type === 'array' || f.type === 'any')) ctx.report(notScalar, { name: u.name, resource: r.name, field: name, type: f.type }, child(u.pointer, 'fields', i));
      });
      for (const w of u.where) {
        if (!fields.has(w.field)) ctx.report(unknown, { name: u.name, resource: r.name, role: 'is limited by', field: w.field, hint: didYouMean(w.field, fields.keys()) }, child(u.pointer, 'where', w.field), { key: true });
      }
    }
  },
});
