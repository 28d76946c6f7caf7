/** Look-up tables built once per check, so rules stay linear in the size of the spec. */
import type { Endpoint, ErrorCode, Field, Resource, Spec, StateMachine } from '../spec/model.ts';

export interface SpecIndex {
  readonly resources: ReadonlyMap<string, Resource>;
  /** Top-level fields by resource, then by name. */
  readonly fields: ReadonlyMap<string, ReadonlyMap<string, Field>>;
  readonly machines: ReadonlyMap<string, StateMachine>;
  readonly endpoints: ReadonlyMap<string, Endpoint>;
  readonly errors: ReadonlyMap<string, ErrorCode>;
  readonly errorStatuses: ReadonlySet<number>;
  readonly scopes: ReadonlySet<string>;
  readonly schemes: ReadonlySet<string>;
  /** Version names in declaration order (oldest first). */
  readonly versions: readonly string[];
}

export function indexSpec(spec: Spec): SpecIndex {
  return {
    resources: new Map(spec.resources.map((r) => [r.name, r])),
    fields: new Map(spec.resources.map((r) => [r.name, new Map(r.fields.map((f) => [f.name, f]))])),
    machines: new Map(spec.states.map((m) => [m.resource, m])),
    endpoints: new Map(spec.endpoints.map((e) => [e.id, e])),
    errors: new Map(spec.errors.catalog.map((e) => [e.code, e])),
    errorStatuses: new Set(spec.errors.catalog.map((e) => e.status)),
    scopes: new Set(spec.authentication.scopes.map((s) => s.name)),
    schemes: new Set(spec.authentication.schemes.map((s) => s.name)),
    versions: spec.versioning.versions.map((v) => v.name),
  };
}
