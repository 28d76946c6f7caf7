import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const duplicate = defineDiagnostic({
  code: 'error-shape-member-duplicate',
  severity: 'error',
  part: 'errors',
  message: "The error body member '{member}' carries both the {first} and the {role}.",
  description: 'Each piece of an error (code, title, status, detail, errors, ...) needs a member of its own in a custom error shape; one member cannot hold two of them. Give each role its own member name.',
});

export default defineRule({
  name: 'error-shape-member-duplicate',
  diagnostics: [duplicate],
  spec(ctx) {
    const shape = ctx.spec.errors.shape;
    if (shape?.kind !== 'custom') return;
    const seen = new Map<string, string>();
    for (const [role, member] of Object.entries(shape.members)) {
      if (member === undefined) continue;
      const first = seen.get(member);
      if (first === undefined) seen.set(member, role);
      else ctx.report(duplicate, { member, first, role }, child(shape.pointer, 'members', role));
    }
  },
});
