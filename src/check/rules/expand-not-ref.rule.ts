import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { refFields } from '../../spec/conventions/expand.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const notRef = defineDiagnostic({
  code: 'expand-not-ref',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' lets callers expand '{field}', which is not a ref field of '{resource}' (its ref fields: {refs}).",
  description: 'Expansion replaces the id a ref field holds by the record it names; a field that holds no ref has nothing to expand. Name ref fields (a `ref`, or an array of refs) only.',
});

const notRead = defineDiagnostic({
  code: 'expand-not-read',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' declares `expand`, but it is a {operation}: only read and list endpoints expand refs.",
  description: 'Expansion shapes what a read or a list answers (`?expand=book`). Other endpoints answer what their operation says. Move `expand` to the read or list endpoint of the resource.',
});

export default defineRule({
  name: 'expand-not-ref',
  diagnostics: [notRef, notRead],
  endpoint(endpoint, ctx) {
    const expand = endpoint.expand;
    if (!expand) return;
    if (endpoint.operation !== 'read' && endpoint.operation !== 'list') {
      ctx.report(notRead, { endpoint: endpoint.id, operation: endpoint.operation }, child(endpoint.pointer, 'expand'), { key: true });
      return;
    }
    const resource = ctx.index.resources.get(endpoint.resource);
    if (!resource) return;
    const refs = refFields(resource).map((f) => f.name);
    expand.fields.forEach((field, i) => {
      if (!refs.includes(field)) ctx.report(notRef, { endpoint: endpoint.id, field, resource: resource.name, refs: listOf(refs) }, child(expand.pointer, i));
    });
  },
});
