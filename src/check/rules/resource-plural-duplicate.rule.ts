import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Resource } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { writtenOr } from './support.ts';

const duplicate = defineDiagnostic({
  code: 'resource-plural-duplicate',
  severity: 'error',
  part: 'resources',
  message: "Resources '{first}' and '{resource}' share the plural '{plural}', so both would live under /{plural}.",
  description: "A resource's plural is its collection name and path segment; two resources with the same plural would answer the same paths. Give one of them another `plural` (without one, the plural is the resource name).",
});

export default defineRule({
  name: 'resource-plural-duplicate',
  diagnostics: [duplicate],
  spec(ctx) {
    const seen = new Map<string, Resource>();
    for (const resource of ctx.spec.resources) {
      const first = seen.get(resource.plural);
      if (!first) {
        seen.set(resource.plural, resource);
        continue;
      }
      const at = writtenOr(ctx, child(resource.pointer, 'plural'), resource.pointer);
      ctx.report(duplicate, { first: first.name, resource: resource.name, plural: resource.plural }, at, { key: at === resource.pointer });
    }
  },
});
