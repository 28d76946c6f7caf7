import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const retired = defineDiagnostic({
  code: 'version-default-retired',
  severity: 'error',
  part: 'versioning',
  message: "The default version '{version}' is retired, so every request that names no version would be refused with 410.",
  description: 'A retired version is no longer served; as the default it would turn away every client that does not name a version. Make a current version the default.',
});

export default defineRule({
  name: 'version-default-retired',
  diagnostics: [retired],
  spec(ctx) {
    const { default: name, pointer, versions } = ctx.spec.versioning;
    if (name !== undefined && versions.find((v) => v.name === name)?.status === 'retired') ctx.report(retired, { version: name }, child(pointer, 'default'));
  },
});
