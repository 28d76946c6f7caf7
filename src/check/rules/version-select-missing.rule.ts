import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given, listOf } from './support.ts';

const missing = defineDiagnostic({
  code: 'version-select-missing',
  severity: 'error',
  part: 'versioning',
  message: 'Several versions are declared ({versions}) but `select` does not say how a client chooses one.',
  description: 'With more than one version served, a client must be able to ask for one: by a header (`select: {header: API-Version}`), a query parameter (`select: {query: version}`) or a path prefix (`select: {path: /v{version}}`). Add `select`.',
});

export default defineRule({
  name: 'version-select-missing',
  diagnostics: [missing],
  spec(ctx) {
    const v = ctx.spec.versioning;
    if (given(ctx, 'versioning') && v.versions.length > 1 && !v.select) ctx.report(missing, { versions: listOf(ctx.index.versions) }, v.pointer, { key: true });
  },
});
