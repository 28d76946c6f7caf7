import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { isIsoDate } from './support.ts';

const early = defineDiagnostic({
  code: 'version-ends-before-release',
  severity: 'error',
  part: 'versioning',
  message: "Version '{version}' is {what} on {date}, before it was released on {released}.",
  description: 'A version is released, then possibly deprecated, then sunset; a deprecation or sunset date before the release date is a mistake. Correct the dates.',
});

export default defineRule({
  name: 'version-ends-before-release',
  diagnostics: [early],
  version(version, ctx) {
    const { released } = version;
    if (!isIsoDate(released)) return;
    for (const key of ['deprecated', 'sunset'] as const) {
      const date = version[key];
      if (isIsoDate(date) && date < released) ctx.report(early, { version: version.name, what: key, date, released }, child(version.pointer, key));
    }
  },
});
