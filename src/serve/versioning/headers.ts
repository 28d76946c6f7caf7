/**
 * The response header fields of a version (part 9), computed once at start-up.
 *
 * A deprecated version announces itself with what the spec gives, and nothing else:
 *   Deprecation: @<seconds>      RFC 9745 §2: a Structured Field Date (RFC 9651 §3.3.7), the
 *                                moment of `deprecated`; the date is read as 00:00 UTC.
 *   Sunset: <IMF-fixdate>        RFC 8594 §3 (an HTTP-date, RFC 9110 §5.6.7): `sunset`, 00:00
 *                                UTC of that day, when the version stops being served.
 *   Link: <docs>; rel="deprecation"   RFC 9745 §3, to the version's `docs`. No `type`: the
 *                                spec does not say what the page is, and §3 places no
 *                                constraint on it.
 * A missing date is not invented: no `deprecated` date, no Deprecation field (RFC 9745 has no
 * value for "deprecated, date unknown"; check warns: version-deprecated-without-date); no
 * `sunset`, no Sunset field (check warns: version-deprecated-without-sunset).
 *
 * When the version is selected by a header, every response also names the version it was
 * served in, in a header of the same name, and `Vary` on it (RFC 9110 §12.5.5): the same URI
 * has one representation per version, and a cache must not hand one version's to another.
 * For the same reason the entity tags of the other versions carry the version: RFC 9110
 * §8.8.3.3 wants distinct strong tags for the representations of one resource, or a cache
 * revalidating several stored variants (RFC 9111 §4.3.4) could pick the wrong one. The
 * default version's tags are the record's own (`"1a.3"`), so a client that never names a
 * version sees what an unversioned service sends; another version's are `"1a.3@1"`.
 */
import type { Version } from '../../spec/model.ts';

/** `YYYY-MM-DD` as epoch milliseconds at 00:00 UTC; undefined for anything else (check reports it). */
export function dayStart(date: string | undefined): number | undefined {
  const m = date === undefined ? null : /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Date.UTC rolls 2026-02-30 over into March; a day that does not exist is no date.
  return new Date(ms).toISOString().startsWith(date as string) ? ms : undefined;
}

/** The deprecation fields of a version; {} for a version that is not deprecated. */
export function deprecationHeaders(version: Version): Record<string, string> {
  if (version.status !== 'deprecated') return {};
  const out: Record<string, string> = {};
  const deprecated = dayStart(version.deprecated);
  if (deprecated !== undefined) out.deprecation = `@${Math.floor(deprecated / 1000)}`;
  const sunset = dayStart(version.sunset);
  // toUTCString() is the IMF-fixdate of RFC 9110 §5.6.7: `Wed, 30 Jun 2027 00:00:00 GMT`.
  if (sunset !== undefined) out.sunset = new Date(sunset).toUTCString();
  if (version.docs !== undefined) out.link = `<${version.docs}>; rel="deprecation"`;
  return out;
}

/**
 * The piece an entity tag gets in a version: `"<tag>@<version>"`. A version name that is not
 * all etagc characters (RFC 9110 §8.8.3) is percent-encoded.
 */
export function tagSuffix(version: string): string {
  return `@${/^[\x21\x23-\x7e]+$/.test(version) ? version : encodeURIComponent(version)}`;
}

/** The tag as clients of a version see it: the record's tag with the version inside the quotes. */
export function versionedTag(etag: string, suffix: string): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}${suffix}"` : etag;
}

/**
 * If-Match and If-None-Match of a request in a version whose tags carry `suffix`, as the
 * store's tags: the suffix taken off. Any other tag (the default version's, another
 * version's) is given one the store never issues, so it matches nothing here: it was given
 * for another representation. `*` stays.
 */
export function unversionedTags(header: string, suffix: string): string {
  return header.replace(/"([^"]*)"/g, (_, opaque: string) => (opaque.endsWith(suffix) ? `"${opaque.slice(0, -suffix.length)}"` : `"${opaque}@"`));
}
