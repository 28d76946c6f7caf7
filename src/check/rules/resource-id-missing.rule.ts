import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { written } from './support.ts';

const missing = defineDiagnostic({
  code: 'resource-id-missing',
  severity: 'warning',
  part: 'resources',
  message: "Resource '{resource}' declares no id: it does not say which field identifies a record, nor who assigns it.",
  description: 'Without `id: {field, assigned}` a builder cannot know how records are identified in paths (`/{plural}/{id}`) and refs, nor whether the service or the client assigns ids. Add `id: {field: id, assigned: uuid}` (or `sequence`, or `client`).',
});

export default defineRule({
  name: 'resource-id-missing',
  diagnostics: [missing],
  resource(resource, ctx) {
    // An `id` that is written but incomplete is the loader's finding (a missing or misspelt key).
    if (!resource.id && !written(ctx, child(resource.pointer, 'id'))) ctx.report(missing, { resource: resource.name }, resource.pointer, { key: true });
  },
});
