import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const none = defineDiagnostic({
  code: 'version-no-current',
  severity: 'warning',
  part: 'versioning',
  message: 'No version is current: every declared version is deprecated or retired.',
  description: 'A service normally serves one current version that clients should move to. Mark the newest version `status: current`.',
});

export default defineRule({
  name: 'version-no-current',
  diagnostics: [none],
  spec(ctx) {
    const v = ctx.spec.versioning;
    if (given(ctx, 'versioning') && v.versions.length > 0 && !v.versions.some((x) => x.status === 'current')) ctx.report(none, {}, child(v.pointer, 'versions'), { key: true });
  },
});
