/**
 * Part 9: versioning. Each live version answers; an unknown version is refused with
 * unknown-version; a deprecated one carries `Deprecation` (RFC 9745) and, when the spec
 * gives a sunset, `Sunset` (RFC 8594); a retired one answers 410 (version-retired);
 * fields appear only in the versions their since/until allow.
 */
import { statusAs } from './errors.ts';
import { isPlain } from '../../spec/conventions/paths.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError, expectSuccess, isObject } from '../expect.ts';
import { checkDeprecationFields } from './versioning-headers.ts';

export async function checkVersioning(ctx: TestContext, data: DataFactory): Promise<void> {
  const v = ctx.spec.versioning;
  if (!v.select || v.versions.length === 0) {
    ctx.skip('versioning', 'versioning', 'versions are selected as declared', 'the spec declares no versions, or no way to select one', { kind: 'not-applicable' });
    return;
  }
  const probe = ctx.spec.endpoints.find((e) => e.operation === 'list' && isPlain(e) && ctx.may(ctx.main, e)) ?? ctx.spec.endpoints.find((e) => e.operation === 'list' && isPlain(e));
  if (!probe) {
    ctx.skip('versioning', 'versioning', 'versions are selected as declared', 'no list endpoint to ask in each version', { kind: 'not-applicable' });
    return;
  }
  const as = ctx.principalFor(probe) ?? null;
  for (const version of v.versions) {
    const rule = { pointer: version.pointer, text: `version ${version.name}: ${version.status}` };
    if (version.status === 'retired') {
      await ctx.check('versioning', `${version.name}.retired`, `version ${version.name} is retired: ${statusAs(ctx, 'version-retired')}`, rule, async () => {
        expectError(ctx, await ctx.call('GET', probe.path, { as, version: version.name }), 'version-retired');
      });
      continue;
    }
    await ctx.check('versioning', `${version.name}.answers`, `version ${version.name} answers${version.status === 'deprecated' ? ', with Deprecation and Sunset' : ''}`, rule, async () => {
      const ex = await ctx.call('GET', probe.path, { as, version: version.name });
      expectSuccess(probe, ex);
      if (version.status !== 'deprecated') return;
      if (version.deprecated && !ex.response.headers.deprecation) throw new Failure('a deprecated version answers without Deprecation (RFC 9745)', ex);
      if (version.sunset && !ex.response.headers.sunset) throw new Failure('a deprecated version with a sunset answers without Sunset (RFC 8594)', ex);
      if (version.sunset && Date.parse(ex.response.headers.sunset ?? '') !== Date.parse(`${version.sunset}T00:00:00Z`)) throw new Failure(`Sunset is '${ex.response.headers.sunset}', not ${version.sunset}`, ex);
    });
  }
  await ctx.check('versioning', 'unknown', 'an unknown version is refused (unknown-version)', { pointer: v.pointer, text: 'the versions of the spec' }, async () => {
    expectError(ctx, await ctx.call('GET', probe.path, { as, version: 'svcspec-no-such-version' }), 'unknown-version');
  });
  await checkDeprecationFields(ctx, probe);
  await checkFieldsPerVersion(ctx, data);
}

async function checkFieldsPerVersion(ctx: TestContext, data: DataFactory): Promise<void> {
  const live = ctx.spec.versioning.versions.filter((v) => v.status !== 'retired');
  for (const resource of ctx.spec.resources) {
    const versioned = resource.fields.filter((f) => f.since !== undefined || f.until !== undefined);
    const read = ctx.endpoint(resource.name, 'read');
    if (!versioned.length || !read || !ctx.endpoint(resource.name, 'create')) continue;
    await ctx.check('versioning', `${resource.name}.fields`, `${resource.name}: ${versioned.map((f) => f.name).join(', ')} appear only in their versions`, { pointer: versioned[0].pointer, text: `${versioned[0].name}: since ${versioned[0].since ?? '-'} until ${versioned[0].until ?? '-'}` }, async () => {
      // Any record shows its fields per version: of a scarce create, the run's first one.
      const made = (data.scarce(resource) ? data.firstMade(resource) : undefined) ?? (await data.create(resource));
      for (const version of live) {
        const ex = await ctx.call('GET', data.itemPath(read, made.id), { as: ctx.principalFor(read) ?? null, version: version.name });
        expectSuccess(read, ex);
        const visible = new Set(ctx.fieldsOf(resource, version.name).map((f) => f.name));
        for (const f of versioned) {
          if (!visible.has(f.name) && isObject(ex.response.json) && f.name in ex.response.json) throw new Failure(`'${f.name}' appears in version ${version.name}, outside its versions`, ex);
        }
      }
      if (!live.length) throw new Skip('no live version');
    });
  }
}
