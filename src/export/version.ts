/**
 * Which version of the API a document describes (part 9). An OpenAPI or AsyncAPI document
 * has one `info.version`, and each version of a svcspec spec has its own fields and events,
 * so an export describes one version: the one asked for, else `versioning.default`, else
 * the only one, else the newest that is served (reported: export-version-chosen). Fields
 * and events are cut to that version exactly as the service serves it
 * (src/spec/conventions/versions.ts); what belongs only to other versions is reported.
 */
import type { Diagnostic } from '../spec/diagnostics.ts';
import type { EventDef, Field, Resource, Spec, Version } from '../spec/model.ts';
import { inVersion, resourceAt, versionOrder } from '../spec/conventions/versions.ts';
import { EXPORT_CODES, finding } from './codes.ts';

export interface ExportVersion {
  /** The version described; undefined when the spec declares none (then every field is in). */
  readonly version?: Version;
  /** The resources as the version sees them. */
  readonly resources: readonly Resource[];
  /** The events the version emits. */
  readonly events: readonly EventDef[];
  /** The version a request that names none gets (versioning.default, or the only one). */
  readonly fallback?: string;
  readonly findings: readonly Diagnostic[];
}

/** The versions that are served (not retired), in declared order; [] when the spec has none. */
export function liveVersions(spec: Spec): readonly Version[] {
  if (spec.parts.versioning.statement !== 'given') return [];
  return spec.versioning.versions.filter((v) => v.status !== 'retired');
}

/** Why a version name cannot be exported, or undefined when it can. For the CLI's usage check. */
export function versionRefusal(spec: Spec, name: string): string | undefined {
  const declared = spec.parts.versioning.statement === 'given' ? spec.versioning.versions : [];
  const v = declared.find((x) => x.name === name);
  const live = liveVersions(spec).map((x) => `'${x.name}'`).join(', ');
  if (!declared.length) return `the spec declares no versions; leave out --api-version.`;
  if (!v) return `'${name}' is not a version of the spec; its versions served are ${live || 'none'}.`;
  if (v.status === 'retired') return `version '${name}' is retired: every request in it is answered 410. Versions served: ${live || 'none'}.`;
  return undefined;
}

/**
 * The version an export describes. Throws a RangeError for a name versionRefusal refuses:
 * asking for a version that is not there is the caller's mistake, checked before.
 */
export function exportVersion(spec: Spec, asked: string | undefined, format: string): ExportVersion {
  const findings: Diagnostic[] = [];
  const declared = spec.parts.versioning.statement === 'given' ? spec.versioning.versions : [];
  const live = liveVersions(spec);
  const fallback = spec.versioning.default ?? (declared.length === 1 ? declared[0].name : undefined);
  let version: Version | undefined;
  if (asked !== undefined) {
    const refusal = versionRefusal(spec, asked);
    if (refusal) throw new RangeError(refusal);
    version = declared.find((v) => v.name === asked);
  } else if (declared.length) {
    version = live.find((v) => v.name === fallback);
    if (!version && live.length) {
      version = live.at(-1) as Version;
      findings.push(finding(spec, EXPORT_CODES.versionChosen, { version: version.name, versions: live.map((v) => v.name).join(', ') }, spec.versioning.pointer));
    }
    if (!version) findings.push(finding(spec, EXPORT_CODES.versionNoneLive, {}, spec.versioning.pointer));
  }
  if (!version) return { resources: spec.resources, events: spec.events.catalog, ...(fallback !== undefined ? { fallback } : {}), findings };

  const others = live.filter((v) => v !== version);
  if (others.length) {
    findings.push(finding(spec, EXPORT_CODES.versionOthers, {
      version: version.name, others: others.map((v) => `version ${v.name} (${v.status})`).join(', '),
    }, spec.versioning.pointer));
  }
  const order = versionOrder(spec);
  const at = order.get(version.name) as number;
  const resources = spec.resources.map((r) => resourceAt(spec, r, version.name));
  for (const r of spec.resources) reportHidden(spec, r.name, r.fields, order, at, version.name, findings);
  const events = spec.events.catalog.filter((e) => {
    if (inVersion(order, at, e)) return true;
    if (format === 'AsyncAPI') findings.push(finding(spec, EXPORT_CODES.versionEvent, { event: e.name, version: version.name, span: span(e) }, e.pointer));
    return false;
  });
  return { version, resources, events, ...(fallback !== undefined ? { fallback } : {}), findings };
}

/** Fields (at every depth) outside the version, one finding each. */
function reportHidden(spec: Spec, label: string, fields: readonly Field[], order: ReadonlyMap<string, number>, at: number, version: string, out: Diagnostic[]): void {
  for (const f of fields) {
    if (!inVersion(order, at, f)) {
      out.push(finding(spec, EXPORT_CODES.versionField, { field: f.name, resource: label, version, span: span(f) }, f.pointer));
      continue;
    }
    if (f.properties) reportHidden(spec, `${label}.${f.name}`, f.properties, order, at, version, out);
    if (f.items?.properties) reportHidden(spec, `${label}.${f.name}[]`, f.items.properties, order, at, version, out);
  }
}

function span(b: { readonly since?: string; readonly until?: string }): string {
  if (b.since !== undefined && b.until !== undefined) return b.since === b.until ? `version ${b.since} only` : `versions ${b.since} to ${b.until}`;
  return b.since !== undefined ? `version ${b.since} and later` : `versions up to ${b.until}`;
}

