/**
 * The response header fields of a version (part 9), computed once at start-up.
 *
 * A deprecated version's Deprecation, Sunset and Link fields are the format's convention
 * (src/spec/conventions/deprecation.ts), shared with export and the tester.
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
