import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Version } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { isIsoDate } from './support.ts';

const order = defineDiagnostic({
  code: 'version-release-order',
  severity: 'warning',
  part: 'versioning',
  message: "Version '{version}' was released on {released}, before version '{previous}' ({previousReleased}) that is listed ahead of it; versions are listed oldest first.",
  description: 'The order of `versions` is their age, oldest first: `since` and `until` of fields and events rely on it. List the versions in the order of their release, or correct the dates.',
});

export default defineRule({
  name: 'version-release-order',
  diagnostics: [order],
  spec(ctx) {
    let previous: (Version & { released: string }) | undefined;
    for (const version of ctx.spec.versioning.versions) {
      const { released } = version;
      if (!isIsoDate(released)) continue;
      if (previous && released < previous.released) {
        ctx.report(order, { version: version.name, released, previous: previous.name, previousReleased: previous.released }, child(version.pointer, 'released'));
      }
      if (!previous || released > previous.released) previous = { ...version, released };
    }
  },
});
