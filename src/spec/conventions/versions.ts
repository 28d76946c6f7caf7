/**
 * What one version of the API sees of the resources (part 9): the fields whose `since` and
 * `until` include it, at every depth (members of objects, and of objects in lists, too).
 * Versions are ordered as the spec lists them, oldest first (src/check/rules/support.ts
 * `versionOrder`); both bounds are inclusive (docs/format.md: `until: "1"` exists in 1, not 2).
 *
 * A view is the spec's Resource with the invisible fields left out, so the handlers,
 * validators and presenters that read `ctx.resources` serve a version unchanged: a field
 * outside the version is neither accepted (it is an unknown member), required, listed,
 * filtered nor sorted by. Pure: no request, no store.
 *
 * The id field is in every version: it addresses the record. A bound naming an undeclared
 * version (check's error `version-unknown`) is ignored rather than hiding the field.
 */
import type { Field, Resource, Shape, Spec } from '../model.ts';

interface Bounds {
  readonly since?: string;
  readonly until?: string;
}

/** Whether a field (or an event) with these bounds exists in the version at position `at`. */
export function inVersion(order: ReadonlyMap<string, number>, at: number, bounds: Bounds): boolean {
  const since = bounds.since === undefined ? undefined : order.get(bounds.since);
  const until = bounds.until === undefined ? undefined : order.get(bounds.until);
  return (since === undefined || since <= at) && (until === undefined || at <= until);
}

export function versionOrder(spec: Spec): ReadonlyMap<string, number> {
  return new Map(spec.versioning.versions.map((v, i) => [v.name, i]));
}

/**
 * The fields visible in a version, nested ones filtered too. Objects are copied only where
 * something below them is left out, so an untouched field is the spec's own object.
 */
export function fieldsAt(order: ReadonlyMap<string, number>, at: number, fields: readonly Field[], keep?: string): readonly Field[] {
  let changed = false;
  const out: Field[] = [];
  for (const f of fields) {
    if (f.name !== keep && !inVersion(order, at, f)) {
      changed = true;
      continue;
    }
    const g = shapeAt(order, at, f);
    if (g !== f) changed = true;
    out.push(g);
  }
  return changed ? out : fields;
}

function shapeAt<S extends Shape>(order: ReadonlyMap<string, number>, at: number, shape: S): S {
  const properties = shape.properties && fieldsAt(order, at, shape.properties);
  const items = shape.items && shapeAt(order, at, shape.items);
  if (properties === shape.properties && items === shape.items) return shape;
  return { ...shape, ...(properties ? { properties } : {}), ...(items ? { items } : {}) };
}

/** A resource as one version sees it: a new object, its fields those of the version. */
export function resourceAt(spec: Spec, resource: Resource, version: string): Resource {
  const order = versionOrder(spec);
  const at = order.get(version);
  if (at === undefined) throw new Error(`bug: a view of undeclared version '${version}'`);
  return { ...resource, fields: fieldsAt(order, at, resource.fields, resource.id?.field ?? 'id') };
}

/** Why a field is refused in a version it is not part of: `is a field of book in version 2 and later, not in version 1`. */
export function outsideVersion(field: Field, label: string, version: string): string {
  const { since, until } = field;
  const span = since !== undefined && until !== undefined ? (since === until ? `version ${since}` : `versions ${since} to ${until}`)
    : since !== undefined ? `version ${since} and later` : `versions up to ${until}`;
  return `is a field of ${label} in ${span}, not in version ${version}`;
}
