import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const readOnly = defineDiagnostic({
  code: 'resource-id-client-readonly',
  severity: 'error',
  part: 'resources',
  message: "Clients assign the id of '{resource}' (assigned: client), but its field '{field}' is readOnly, so a client that sends it is refused.",
  description: 'With `assigned: client` the client sends the id on create; a readOnly field is refused from clients. Remove `readOnly` from the id field, or let the service assign ids (`uuid` or `sequence`).',
});

export default defineRule({
  name: 'resource-id-client-readonly',
  diagnostics: [readOnly],
  resource(resource, ctx) {
    if (resource.id?.assigned !== 'client') return;
    const field = ctx.index.fields.get(resource.name)?.get(resource.id.field);
    if (field?.readOnly) ctx.report(readOnly, { resource: resource.name, field: field.name }, child(field.pointer, 'readOnly'));
  },
});
