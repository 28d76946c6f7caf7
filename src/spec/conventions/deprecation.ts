/**
 * The format's deprecation convention (part 9): the response fields of a deprecated version.
 *
 * A deprecated version announces itself with what the spec gives, and nothing else:
 *   Deprecation: @<seconds>      RFC 9745 §2: a Structured Field Date (RFC 9651 §3.3.7), the
 *                                moment of `deprecated`; the date is read as 00:00 UTC.
 *   Sunset: <IMF-fixdate>        RFC 8594 §3 (an HTTP-date, RFC 9110 §5.6.7): `sunset`, 00:00
 *                                UTC of that day, when the version stops being served.
 *   Link: <docs>; rel="deprecation"   RFC 9745 §3, to the version's `docs`.
 * A missing date is not invented (check warns: version-deprecated-without-date,
 * version-deprecated-without-sunset). Serve sends these, export describes them, the tester
 * and the proxy compare against them.
 */
import type { Version } from '../model.ts';

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

