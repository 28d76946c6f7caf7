import { formatSequence } from '../../spec/domain/managed.ts';
import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const mismatch = defineDiagnostic({
  code: 'managed-sequence-pattern-mismatch',
  severity: 'error',
  part: 'resources',
  message: "'{resource}.{field}' is numbered '{template}', whose first value '{first}' does not match the field's pattern {pattern}.",
  description: 'A `{ sequence: "LIB-{n:8}" }` field is filled from a counter; every value it gives must be valid for the field, or every create is refused. Align the template and the pattern.',
});

export default defineRule({
  name: 'managed-sequence-pattern-mismatch',
  diagnostics: [mismatch],
  field(f, r, ctx) {
    if (f.managed?.kind !== 'sequence' || f.pattern === undefined) return;
    let re: RegExp;
    try {
      re = new RegExp(f.pattern, 'u');
    } catch {
      return; // field-pattern-invalid says so
    }
    const first = formatSequence(f.managed.template, 1);
    if (!re.test(first)) ctx.report(mismatch, { resource: r.name, field: f.name, template: f.managed.template, first, pattern: f.pattern }, child(f.managed.pointer, 'sequence'));
  },
});
