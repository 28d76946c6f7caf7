/**
 * JSON Schema 2020-12 (the dialect of OpenAPI 3.1 and of AsyncAPI 3.0's default schema
 * format) from the fields of part 2, in three directions, each saying what the reference
 * service does (src/serve/validation.ts for requests, src/serve/representation.ts for
 * responses):
 *
 *   read    a record as a response shows it: writeOnly fields never; a member is required
 *           when the service always has a value for it (a default, or required and
 *           writable), in every version (no since/until)
 *   write   a create or replace body: readOnly fields left out (the service refuses them),
 *           unknown members refused (additionalProperties: false), required as declared
 *   patch   a JSON merge patch (RFC 7396): nothing required; null removes an optional
 *           member, so optional members also take null
 *
 * `nullable` becomes a type array (`["string", "null"]`), with null added to an enum. A
 * `ref` is the id type of the resource it names (an integer for sequence ids, a UUID
 * string for uuid ids), with a description and `x-svcspec-ref`. `limits.fields` caps
 * strings and lists of request bodies that set no maxLength / maxItems of their own, as
 * the service does.
 * A pattern that is not a valid ECMA-262 `u` regular expression constrains nothing in the
 * service (check reports it), so it is left out here too.
 */
import type { Field, Limits, Resource, Shape, Spec } from '../spec/model.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { validPattern } from '../spec/pattern.ts';

export type JsonSchema = Record<string, unknown>;
export type Direction = 'read' | 'write' | 'patch';

export interface SchemaContext {
  readonly spec: Spec;
  /** The spec's resources (refs name them). */
  readonly resources: readonly Resource[];
  readonly limits?: Limits['fields'];
}

export function schemaContext(spec: Spec, resources: readonly Resource[]): SchemaContext {
  return { spec, resources, ...(spec.limits.fields ? { limits: spec.limits.fields } : {}) };
}

/** The schema of the value an id holds: what the API shows (representation.ts idOf). */
export function idSchema(resource: Resource, c: SchemaContext): JsonSchema {
  const rule = idOf(resource);
  const declared = resource.fields.find((f) => f.name === rule.field);
  const base: JsonSchema = declared ? shapeSchema(declared, 'read', c) : {};
  base.type = rule.type;
  if (rule.assigned === 'uuid') base.format = 'uuid';
  if (rule.type === 'integer') {
    delete base.format;
    delete base.pattern;
  }
  return base;
}

/** The schema of one field (or nested member), with its annotations. */
export function fieldSchema(f: Field, dir: Direction, c: SchemaContext): JsonSchema {
  const out = shapeSchema(f, dir, c);
  if (f.description !== undefined) out.description = f.description;
  if (f.hasDefault && dir !== 'patch') out.default = f.default;
  if (dir === 'read' && f.readOnly) out.readOnly = true;
  if (dir !== 'read' && f.writeOnly) out.writeOnly = true;
  // RFC 7396 §2: in a merge patch, null removes an optional member.
  if (dir === 'patch' && !f.nullable && !f.required) return withNull(out);
  return out;
}

/** Whether the service always has a value for the field in a record it shows. */
export function alwaysPresent(f: Field): boolean {
  if (f.writeOnly || f.since !== undefined || f.until !== undefined) return false;
  return f.hasDefault || (f.required && !f.readOnly);
}

/** The members of an object in a direction: `properties` and `required`. */
export function members(fields: readonly Field[], dir: Direction, c: SchemaContext): { properties: Record<string, JsonSchema>; required: string[] } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const f of fields) {
    if (dir === 'read' ? f.writeOnly : f.readOnly) continue;
    properties[f.name] = fieldSchema(f, dir, c);
    if (dir === 'read' ? alwaysPresent(f) : dir === 'write' && f.required) required.push(f.name);
  }
  return { properties, required };
}

export function shapeSchema(s: Shape, dir: Direction, c: SchemaContext): JsonSchema {
  let out: JsonSchema;
  switch (s.type) {
    case 'string':
      out = { type: 'string', ...stringKeywords(s, dir, c) };
      break;
    case 'integer':
    case 'number':
      out = { type: s.type };
      for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const) if (s[k] !== undefined) out[k] = s[k];
      break;
    case 'boolean':
      out = { type: 'boolean' };
      break;
    case 'any':
      // JSON Schema's empty schema: any value (null included, so nullable adds nothing).
      out = {};
      break;
    case 'ref': {
      const target = c.resources.find((r) => r.name === s.resource);
      out = target ? { ...idSchema(target, c), description: `The id of a ${target.name}.` } : { type: ['string', 'integer'] };
      delete out.readOnly;
      if (s.resource !== undefined) out['x-svcspec-ref'] = s.resource;
      break;
    }
    case 'array': {
      const maxItems = s.maxItems ?? (dir === 'read' ? undefined : c.limits?.maxArrayItems);
      out = {
        type: 'array',
        // A list is replaced whole, even in a merge patch: its items are written in full.
        items: s.items ? shapeSchema(s.items, dir === 'patch' ? 'write' : dir, c) : {},
        ...(s.minItems !== undefined ? { minItems: s.minItems } : {}),
        ...(maxItems !== undefined ? { maxItems } : {}),
        ...(s.uniqueItems ? { uniqueItems: true } : {}),
      };
      break;
    }
    case 'object': {
      out = { type: 'object' };
      if (s.properties) {
        const m = members(s.properties, dir, c);
        out.properties = m.properties;
        if (m.required.length) out.required = m.required;
        // The service refuses members an object does not declare; a response may carry
        // members a field no longer declares (written before the spec changed), so it stays open.
        if (dir !== 'read') out.additionalProperties = false;
      }
      break;
    }
  }
  if (Array.isArray(s.enum) && s.type !== 'object' && s.type !== 'array') out.enum = [...s.enum];
  return s.nullable ? withNull(out) : out;
}

function stringKeywords(s: Shape, dir: Direction, c: SchemaContext): JsonSchema {
  const out: JsonSchema = {};
  if (s.format !== undefined) out.format = s.format;
  if (s.minLength !== undefined) out.minLength = s.minLength;
  // limits.fields bounds what clients send (validation.ts); a response shows what was accepted.
  const maxLength = s.maxLength ?? (dir === 'read' ? undefined : c.limits?.maxStringLength);
  if (maxLength !== undefined) out.maxLength = maxLength;
  if (s.pattern !== undefined && validPattern(s.pattern)) out.pattern = s.pattern;
  return out;
}

/** A record's schema inside its envelope (src/spec/conventions/envelope.ts): `{"<member>": record}`, nothing beside it. */
export function enveloped(member: string, record: JsonSchema): JsonSchema {
  return { type: 'object', properties: { [member]: record }, required: [member], additionalProperties: false };
}

export function withNull(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (type === undefined) return schema;
  const out: JsonSchema = { ...schema, type: Array.isArray(type) ? [...new Set([...type, 'null'])] : [type, 'null'] };
  if (Array.isArray(schema.enum)) out.enum = [...new Set([...schema.enum, null])];
  return out;
}

/** `readingList` -> `ReadingList`, `order-line` -> `OrderLine`: a component name (^[a-zA-Z0-9._-]+$). */
export function pascal(name: string): string {
  return name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('') || 'X';
}
