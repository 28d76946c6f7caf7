import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Resource } from '../../spec/model.ts';
import { defineRule } from '../rule.ts';

const duplicate = defineDiagnostic({
  code: 'resource-name-case-duplicate',
  severity: 'error',
  part: 'resources',
  message: "Resources '{first}' and '{resource}' differ only in letter case; stores and many clients would take them for one.",
  description: 'Resource names are identifiers in storage (SQL table names are case-insensitive) and in generated clients. Two names that differ only in case cannot be told apart there: rename one.',
});

export default defineRule({
  name: 'resource-name-case-duplicate',
  diagnostics: [duplicate],
  spec(ctx) {
    const seen = new Map<string, Resource>();
    for (const resource of ctx.spec.resources) {
      const key = resource.name.toLowerCase();
      const first = seen.get(key);
      if (first) ctx.report(duplicate, { first: first.name, resource: resource.name }, resource.pointer, { key: true });
      else seen.set(key, resource);
    }
  },
});
