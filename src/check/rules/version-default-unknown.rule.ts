import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { listOf } from './support.ts';

const unknown = defineDiagnostic({
  code: 'version-default-unknown',
  severity: 'error',
  part: 'versioning',
  message: "The default version is '{version}', which is not a declared version ({versions}).{hint}",
  description: '`default` names the version a request gets when it names none; it must be one of `versions`. Correct the name, or declare the version.',
});

export default defineRule({
  name: 'version-default-unknown',
  diagnostics: [unknown],
  spec(ctx) {
    const { default: name, pointer } = ctx.spec.versioning;
    if (name === undefined || ctx.index.versions.includes(name)) return;
    ctx.report(unknown, { version: name, versions: listOf(ctx.index.versions), hint: didYouMean(name, ctx.index.versions) }, child(pointer, 'default'));
  },
});
