/**
 * Part 9 on the wire: a version asked for is one of the spec (else `unknown-version`), a
 * retired one never answers 2xx (`version-retired`), and a deprecated one announces itself
 * with the fields src/spec/conventions/deprecation.ts derives from the spec (RFC 9745,
 * RFC 8594), while a current one sends no Deprecation.
 */
import { deprecationHeaders } from '../../spec/conventions/deprecation.ts';
import type { Spec } from '../../spec/model.ts';
import type { RequestProblem } from '../finding.ts';
import type { Route } from '../route.ts';
import type { Found, Seen } from '../seen.ts';

export function versionProblems(spec: Spec, route: Route): RequestProblem[] {
  if (route.versionAsked === undefined || spec.parts.versioning.statement !== 'given') return [];
  if (!route.version) return [{ part: 'versioning', id: 'version-unknown', situation: 'unknown-version', message: `version '${route.versionAsked}' is not one of the spec (${spec.versioning.versions.map((v) => v.name).join(', ')})`, pointer: spec.versioning.pointer, text: `versioning: versions ${spec.versioning.versions.map((v) => v.name).join(', ')}` }];
  if (route.version.status === 'retired') return [{ part: 'versioning', id: 'version-retired', situation: 'version-retired', message: `version ${route.version.name} is retired`, pointer: route.version.pointer, text: `versioning.${route.version.name}: retired` }];
  return [];
}

/** The deprecation fields of a success answer, against the version it was served in. */
export function deprecationFindings(x: Seen): Found[] {
  const v = x.version;
  if (!v) return [];
  const headers = x.exchange.response.headers;
  const base = { part: 'versioning' as const, ...(x.endpoint ? { endpoint: x.endpoint.id } : {}), pointer: v.pointer };
  const out: Found[] = [];
  if (v.status === 'current' && headers.deprecation !== undefined) out.push({ ...base, id: 'deprecation-on-current', message: `version ${v.name} is current, yet the answer carries Deprecation: ${headers.deprecation}`, text: `versioning.${v.name}: current` });
  for (const [name, want] of Object.entries(deprecationHeaders(v))) {
    const got = headers[name];
    const ok = name === 'link' ? (got ?? '').includes(want.slice(0, want.indexOf('>') + 1)) : got === want;
    if (!ok) out.push({ ...base, id: 'deprecation-fields', message: `version ${v.name} is deprecated: the answer's ${name} is ${got === undefined ? 'absent' : `'${got}'`}, not '${want}'`, text: `versioning.${v.name}: deprecated${v.deprecated ? ` ${v.deprecated}` : ''}${v.sunset ? `, sunset ${v.sunset}` : ''}` });
  }
  return out;
}
