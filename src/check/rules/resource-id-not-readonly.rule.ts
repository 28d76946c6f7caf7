import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';

const writable = defineDiagnostic({
  code: 'resource-id-not-readonly',
  severity: 'warning',
  part: 'resources',
  message: "The service assigns the id of '{resource}' ('{assigned}'), but its field '{field}' is not readOnly, as if clients could send it.",
  description: 'With `assigned: uuid` or `sequence` the service sets the id and refuses one from the client. Mark the id field `readOnly: true` so the documents and request schemas say so; or use `assigned: client` if clients choose ids.',
});

export default defineRule({
  name: 'resource-id-not-readonly',
  diagnostics: [writable],
  resource(resource, ctx) {
    if (!resource.id || resource.id.assigned === 'client') return;
    const field = ctx.index.fields.get(resource.name)?.get(resource.id.field);
    if (field && !field.readOnly) ctx.report(writable, { resource: resource.name, assigned: resource.id.assigned, field: field.name }, field.pointer, { key: true });
  },
});
