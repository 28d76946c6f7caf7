import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const writable = defineDiagnostic({
  code: 'managed-field-writable',
  severity: 'error',
  part: 'resources',
  message: "'{resource}.{field}' is set by the service ({source}) but is not readOnly: clients would send a value the service overwrites.",
  description: 'A managed field is the service\'s to set; mark it `readOnly: true` so clients are told not to send it (and a value they send is refused, or ignored with `readOnlyFields: ignore` or `either`).',
});

export default defineRule({
  name: 'managed-field-writable',
  diagnostics: [writable],
  field(f, r, ctx, parents) {
    if (!f.managed || f.readOnly || parents.length) return;
    const source = f.managed.kind === 'sequence' ? `a sequence, '${f.managed.template}'` : f.managed.kind === 'expr' ? 'an expression' : f.managed.kind;
    ctx.report(writable, { resource: r.name, field: f.name, source }, f.managed.pointer);
  },
});
