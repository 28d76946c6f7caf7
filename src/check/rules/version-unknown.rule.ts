import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { listOf, versionedVisitors, versionOrder } from './support.ts';

const unknown = defineDiagnostic({
  code: 'version-unknown',
  severity: 'error',
  part: 'versioning',
  message: "{subject} names version '{version}' in `{key}`, which is not a declared version ({versions}).{hint}",
  description: '`since` and `until` of fields and events name versions of the versioning part. Correct the name, or declare the version.',
});

function check(ctx: RuleContext, subject: string, at: { since?: string; until?: string; pointer: string }): void {
  // While versioning is a gap, the missing part is the finding; `none` says there are no versions to name.
  if (ctx.spec.parts.versioning.statement === 'gap') return;
  for (const key of ['since', 'until'] as const) {
    const version = at[key];
    if (version === undefined || versionOrder(ctx.spec).has(version)) continue;
    ctx.report(unknown, {
      subject, version, key, versions: listOf(ctx.index.versions, 'none'), hint: didYouMean(version, ctx.index.versions),
    }, child(at.pointer, key));
  }
}

export default defineRule({
  name: 'version-unknown',
  diagnostics: [unknown],
  ...versionedVisitors(check),
});
