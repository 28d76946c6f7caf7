/** What every piece of the OpenAPI export reads: the spec cut to one version, and the components being built. */
import type { Diagnostic } from '../../spec/diagnostics.ts';
import type { ErrorShape, Resource, Spec, StateMachine, Version } from '../../spec/model.ts';
import type { PageSettings } from '../../spec/conventions/pagination.ts';
import type { RatePolicyFields } from '../../spec/conventions/rate.ts';
import type { JsonSchema, SchemaContext } from '../schema.ts';

export interface Components {
  readonly schemas: Record<string, JsonSchema>;
  readonly parameters: Record<string, JsonSchema>;
  readonly headers: Record<string, JsonSchema>;
  /** Error responses alike across operations, written once (responses.ts). */
  readonly responses: Record<string, JsonSchema>;
  readonly securitySchemes: Record<string, JsonSchema>;
}

export interface VersionParam {
  readonly in: 'header' | 'query';
  readonly name: string;
}

export interface OpenApiContext {
  readonly spec: Spec;
  readonly schema: SchemaContext;
  /** The resources as the exported version sees them, by name. */
  readonly resources: ReadonlyMap<string, Resource>;
  readonly machines: ReadonlyMap<string, StateMachine>;
  readonly version?: Version;
  readonly fallback?: string;
  readonly versionParam?: VersionParam;
  readonly someRetired: boolean;
  /** Response header fields of a deprecated version (Deprecation, Sunset, Link), lower-case names. */
  readonly deprecation: Readonly<Record<string, string>>;
  readonly policies: ReadonlyMap<string, RatePolicyFields>;
  readonly page: PageSettings;
  readonly pageIsDefault: boolean;
  readonly errorShape: ErrorShape;
  readonly components: Components;
  readonly findings: Diagnostic[];
  /** Component schema names already given, by what they describe. */
  readonly named: Map<string, string>;
}

/** A `$ref` to a component schema, built the first time it is asked for under a name not yet taken. */
export function schemaRef(ctx: OpenApiContext, key: string, base: string, build: () => JsonSchema): JsonSchema {
  let name = ctx.named.get(key);
  if (name === undefined) {
    name = base;
    for (let i = 2; name in ctx.components.schemas; i++) name = `${base}${i}`;
    ctx.named.set(key, name);
    ctx.components.schemas[name] = {};
    ctx.components.schemas[name] = build();
  }
  return { $ref: `#/components/schemas/${name}` };
}
