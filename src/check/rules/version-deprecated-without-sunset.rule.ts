import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const open = defineDiagnostic({
  code: 'version-deprecated-without-sunset',
  severity: 'warning',
  part: 'versioning',
  message: "Version '{version}' is deprecated but has no sunset date, so clients cannot know until when it is served.",
  description: 'A deprecated version is answered with a Sunset header (RFC 8594) telling clients when it stops being served. Add `sunset: YYYY-MM-DD`.',
});

export default defineRule({
  name: 'version-deprecated-without-sunset',
  diagnostics: [open],
  version(version, ctx) {
    if (version.status === 'deprecated' && version.sunset === undefined) ctx.report(open, { version: version.name }, child(version.pointer, 'status'));
  },
});
