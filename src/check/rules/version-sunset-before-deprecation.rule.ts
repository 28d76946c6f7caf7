import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { isIsoDate } from './support.ts';

const early = defineDiagnostic({
  code: 'version-sunset-before-deprecation',
  severity: 'error',
  part: 'versioning',
  message: "Version '{version}' has its sunset ({sunset}) before its deprecation ({deprecated}).",
  description: 'A version is first deprecated (announced with the Deprecation header, RFC 9745) and later stops being served at its sunset (Sunset header, RFC 8594). The sunset cannot come first. Correct one of the dates.',
});

export default defineRule({
  name: 'version-sunset-before-deprecation',
  diagnostics: [early],
  version(version, ctx) {
    const { sunset, deprecated } = version;
    if (isIsoDate(sunset) && isIsoDate(deprecated) && sunset < deprecated) ctx.report(early, { version: version.name, sunset, deprecated }, child(version.pointer, 'sunset'));
  },
});
