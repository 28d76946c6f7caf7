/**
 * Part 9's deprecation fields by their values (src/spec/conventions/deprecation.ts states
 * them): on a deprecated version, `Deprecation` is an RFC 9651 Date (RFC 9745 §2) at the
 * declared `deprecated` day, `Sunset` an IMF-fixdate (RFC 8594 §3, RFC 9110 §5.6.7) at the
 * declared `sunset` day, and `Link` has `rel="deprecation"` to its `docs` (RFC 9745 §3); a
 * version that is not deprecated signals none of them.
 */
import { parseItem } from 'structured-headers';
import { dayStart } from '../../spec/conventions/deprecation.ts';
import type { Endpoint, Version } from '../../spec/model.ts';
import { Failure, type TestContext } from '../context.ts';
import { expectSuccess } from '../expect.ts';
import type { Exchange } from '../http.ts';

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export async function checkDeprecationFields(ctx: TestContext, probe: Endpoint): Promise<void> {
  const as = ctx.principalFor(probe) ?? null;
  for (const version of ctx.spec.versioning.versions.filter((v) => v.status !== 'retired')) {
    const deprecated = version.status === 'deprecated';
    const title = deprecated ? `version ${version.name}: Deprecation, Sunset and the deprecation link parse and agree with the declared dates` : `version ${version.name} (${version.status}) signals no deprecation`;
    await ctx.check('versioning', `${version.name}.deprecation-fields`, title, { pointer: version.pointer, text: `version ${version.name}: ${version.status}${version.deprecated ? `, deprecated ${version.deprecated}` : ''}${version.sunset ? `, sunset ${version.sunset}` : ''}` }, async () => {
      const ex = await ctx.call('GET', probe.path, { as, version: version.name });
      expectSuccess(probe, ex);
      if (deprecated) holdsDates(ex, version);
      else {
        const h = ex.response.headers;
        const said = ['deprecation', 'sunset'].filter((n) => h[n] !== undefined);
        if (/rel="?deprecation"?/i.test(h.link ?? '')) said.push('Link rel="deprecation"');
        if (said.length) throw new Failure(`version ${version.name} is ${version.status}, yet its answer carries ${said.join(', ')}`, ex);
      }
    });
  }
}

function holdsDates(ex: Exchange, version: Version): void {
  const h = ex.response.headers;
  const deprecated = dayStart(version.deprecated);
  if (deprecated !== undefined) {
    if (!h.deprecation) throw new Failure('the deprecated version answers without Deprecation (RFC 9745)', ex);
    let value: unknown;
    try {
      value = parseItem(h.deprecation)[0];
    } catch {
      value = undefined;
    }
    if (!(value instanceof Date)) throw new Failure(`Deprecation '${h.deprecation}' is not a structured field Date (RFC 9745 §2: @<seconds>)`, ex);
    if (value.getTime() !== deprecated) throw new Failure(`Deprecation '${h.deprecation}' is ${value.toISOString()}, not the declared ${version.deprecated} (00:00 UTC)`, ex);
  }
  const sunset = dayStart(version.sunset);
  if (sunset !== undefined) {
    if (!h.sunset) throw new Failure('the deprecated version answers without Sunset (RFC 8594)', ex);
    if (!IMF_FIXDATE.test(h.sunset)) throw new Failure(`Sunset '${h.sunset}' is not an HTTP-date in the IMF-fixdate form (RFC 8594 §3, RFC 9110 §5.6.7)`, ex);
    if (Date.parse(h.sunset) !== sunset) throw new Failure(`Sunset '${h.sunset}' is not the declared ${version.sunset} (00:00 UTC)`, ex);
    if (deprecated !== undefined && sunset < deprecated) throw new Failure('Sunset is before Deprecation', ex);
  }
  if (version.docs !== undefined) {
    const links = (h.link ?? '').split(/,(?=\s*<)/).map((l) => /^\s*<([^>]*)>(.*)$/.exec(l)).filter((m) => m && /;\s*rel="?([^";]*\s)?deprecation(\s[^";]*)?"?/i.test(m[2]));
    if (!links.some((m) => m?.[1] === version.docs)) throw new Failure(`no Link with rel="deprecation" leads to the declared docs ${version.docs} (RFC 9745 §3)`, ex);
  }
}
