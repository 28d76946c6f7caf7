import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given, listOf } from './support.ts';

const missing = defineDiagnostic({
  code: 'version-default-missing',
  severity: 'warning',
  part: 'versioning',
  message: 'Several versions are declared ({versions}) but no default says which one serves a request that names none.',
  description: 'With more than one version, `default` says what a client that does not select a version gets (or write in the description that such requests are refused). Add `default: <version>`.',
});

export default defineRule({
  name: 'version-default-missing',
  diagnostics: [missing],
  spec(ctx) {
    const v = ctx.spec.versioning;
    if (given(ctx, 'versioning') && v.versions.length > 1 && v.default === undefined) ctx.report(missing, { versions: listOf(ctx.index.versions) }, v.pointer, { key: true });
  },
});
