import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const undated = defineDiagnostic({
  code: 'version-deprecated-without-date',
  severity: 'warning',
  part: 'versioning',
  message: "Version '{version}' is deprecated but has no `deprecated` date, so its responses carry no Deprecation header.",
  description: 'A deprecated version is answered with `Deprecation: @<seconds>` (RFC 9745, section 2), whose value is the date of the deprecation; svcspec does not invent one. Without it, clients learn of the deprecation only from the Sunset header and the deprecation link, if those are given. Add `deprecated: YYYY-MM-DD`.',
});

export default defineRule({
  name: 'version-deprecated-without-date',
  diagnostics: [undated],
  version(version, ctx) {
    if (version.status === 'deprecated' && version.deprecated === undefined) ctx.report(undated, { version: version.name }, child(version.pointer, 'status'));
  },
});
