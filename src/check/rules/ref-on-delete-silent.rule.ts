import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Spec } from '../../spec/model.ts';
import { defineRule } from '../rule.ts';
import { memo } from './support.ts';

const silent = defineDiagnostic({
  code: 'ref-on-delete-silent',
  severity: 'info',
  part: 'resources',
  message: "The spec is silent on what deleting a '{target}' does to the '{resource}' records that refer to it ('{field}'): the reference leaves their ref pointing at nothing.",
  description: "A '{target}' can be deleted (it has a delete endpoint) and '{resource}.{field}' refers to it. Say what the delete does with `onDelete` on the ref: `{ refuse: <code> }` (refused while such records exist), `cascade` (they are deleted with it) or `nullify` (the ref is set to null).",
});

/** Resources some endpoint deletes records of. */
const deletable = memo((spec: Spec): ReadonlySet<string> => new Set(spec.endpoints.filter((e) => e.operation === 'delete' || e.operation === 'bulk-delete').map((e) => e.resource)));

export default defineRule({
  name: 'ref-on-delete-silent',
  diagnostics: [silent],
  field(f, r, ctx, parents) {
    if (parents.length || f.type !== 'ref' || f.onDelete || f.resource === undefined) return;
    if (deletable(ctx.spec).has(f.resource)) ctx.report(silent, { target: f.resource, resource: r.name, field: f.name }, f.pointer, { key: true });
  },
});
