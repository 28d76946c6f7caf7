/**
 * An OpenAPI schema (3.0's JSON Schema subset, or 3.1's JSON Schema 2020-12) to the fields
 * of the format: one type and its constraints. What a field cannot say (alternatives,
 * negation, maps with free keys, ...) is reported, and what it does say is kept.
 *
 *   3.0                              3.1                               the format
 *   nullable: true                   type: [string, 'null']            nullable: true
 *   exclusiveMinimum: true + minimum exclusiveMinimum: <number>        exclusiveMinimum: <number>
 *   $ref (siblings ignored)          $ref with siblings (they apply)   the target, siblings laid over
 */
import { formatNames } from 'ajv-formats/dist/formats.js';
import type { Field, FieldType, Shape } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defined } from '../../load/normalize/read.ts';
import { IMPORT_CODES } from '../codes.ts';
import { isObject, notCarried, report, resolve, type ImportContext, type Json } from './context.ts';
import { FIELD_IDENT } from '../../spec/format-schema.ts';

/** What the format takes as a field's name (a member a body carries). */
const FIELD_NAME = new RegExp(FIELD_IDENT);

export interface SchemaScope {
  readonly ctx: ImportContext;
  /** Component schema name -> resource name, for the schemas that are resources. */
  readonly resources: ReadonlyMap<string, string>;
}

/** Where a shape is written (its svcspec pointer) and how findings name it. */
interface Place {
  readonly target: string;
  readonly label: string;
  readonly resource: string;
  /** Component schemas being expanded around this one, to stop at a cycle. */
  readonly stack: readonly string[];
}

const KNOWN_FORMATS: ReadonlySet<string> = new Set(formatNames);

/** Keywords read into a field (or deliberately interpreted). */
const HANDLED = new Set([
  '$ref', 'type', 'format', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems', 'items', 'properties', 'required',
  'nullable', 'description', 'default', 'readOnly', 'writeOnly', 'allOf', 'oneOf', 'anyOf', 'additionalProperties',
]);

/** Keywords that constrain values in ways a field cannot say: reported as a warning. */
const INEXPRESSIBLE = new Set([
  'not', 'if', 'then', 'else', 'patternProperties', 'minProperties', 'maxProperties', 'dependentRequired', 'dependentSchemas',
  'dependencies', 'prefixItems', 'contains', 'minContains', 'maxContains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems',
  'discriminator',
]);

const FIELD_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array']);

/** The fields of an object schema (its properties, allOf merged), written under `target`. */
export function objectFields(scope: SchemaScope, node: Json, pointer: string, place: Omit<Place, 'label'> & { label?: string }): Field[] {
  const merged = mergeAllOf(scope, node, pointer);
  const required = new Set(Array.isArray(merged.required) ? merged.required.filter((r): r is string => typeof r === 'string') : []);
  const out: Field[] = [];
  const properties = isObject(merged.properties) ? merged.properties : {};
  for (const [name, value] of Object.entries(properties)) {
    const p = child(pointer, 'properties', name);
    if (!FIELD_NAME.test(name)) {
      report(scope.ctx, IMPORT_CODES.fieldName, { name, schema: place.label ? `field '${place.label}' of '${place.resource}'` : `'${place.resource}'` }, p);
      continue;
    }
    const field = fieldOf(scope, name, value, p, required.has(name), {
      target: child(place.target, name), label: place.label ? `${place.label}.${name}` : name, resource: place.resource, stack: place.stack,
    });
    if (field) out.push(field);
  }
  return out;
}

function fieldOf(scope: SchemaScope, name: string, value: unknown, pointer: string, listed: boolean, place: Place): Field | undefined {
  const r = resolve(scope.ctx, value, pointer);
  if (!r) return undefined;
  const shape = shapeOf(scope, value, pointer, place);
  if (!shape) return undefined;
  const node = mergeAllOf(scope, r.node, r.pointer);
  const readOnly = node.readOnly === true;
  const writeOnly = node.writeOnly === true;
  return defined({
    ...shape,
    name,
    description: typeof node.description === 'string' ? node.description : undefined,
    // OpenAPI: a readOnly property listed as required is required in responses only; the format's
    // `required` is what a client must send, so it does not carry over (OAS 3.0.3 §4.7.25.3).
    required: listed && !readOnly,
    readOnly,
    writeOnly,
    default: 'default' in node ? node.default : undefined,
    hasDefault: 'default' in node,
  });
}

/** A schema as a shape, or undefined (reported) when the format cannot describe it at all. */
export function shapeOf(scope: SchemaScope, value: unknown, pointer: string, place: Place): Shape | undefined {
  const { ctx } = scope;
  const subject = `Field '${place.label}' of '${place.resource}'`;
  const r = resolve(ctx, value, pointer);
  if (!r) return undefined;
  const component = r.component;
  if (component !== undefined && place.stack.includes(component)) {
    report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: `a recursive reference to ${component}`, done: 'the nested object is written without its fields' }, pointer);
    return { type: 'object', pointer: place.target };
  }
  const stack = component !== undefined ? [...place.stack, component] : place.stack;
  const node = mergeAllOf(scope, r.node, r.pointer);
  const at = r.pointer;
  keywords(ctx, node, at, subject);

  const typed = typeOf(ctx, node, at, subject);
  if (!typed) return undefined;
  const { type } = typed;
  let nullable = typed.nullable;
  if (node.nullable === true) {
    if (ctx.version === '3.0') nullable = true;
    else report(ctx, IMPORT_CODES.nullableIgnored, { subject }, child(at, 'nullable'));
  }
  let values: unknown[] | undefined = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined;
  if (values?.includes(null)) {
    values = values.filter((v) => v !== null);
    if (nullable) values = values.length ? values : undefined;
  }
  let format = typeof node.format === 'string' ? node.format : undefined;
  if (format !== undefined && !KNOWN_FORMATS.has(format)) {
    report(ctx, IMPORT_CODES.formatUnknown, { subject, format }, child(at, 'format'));
    format = undefined;
  }
  const n = (k: string) => (typeof node[k] === 'number' ? (node[k] as number) : undefined);
  let minimum = n('minimum');
  let maximum = n('maximum');
  let exclusiveMinimum = n('exclusiveMinimum');
  let exclusiveMaximum = n('exclusiveMaximum');
  // OpenAPI 3.0 (JSON Schema draft 4/5): a boolean that makes minimum/maximum exclusive.
  if (node.exclusiveMinimum === true && minimum !== undefined) [exclusiveMinimum, minimum] = [minimum, undefined];
  if (node.exclusiveMaximum === true && maximum !== undefined) [exclusiveMaximum, maximum] = [maximum, undefined];

  let items: Shape | undefined;
  if (type === 'array' && node.items !== undefined && typeof node.items !== 'boolean') {
    items = shapeOf(scope, node.items, child(at, 'items'), { ...place, target: child(place.target, 'items'), label: `${place.label}[]`, stack });
  }
  let properties: Field[] | undefined;
  if (type === 'object') {
    const target = component !== undefined ? scope.resources.get(component) : undefined;
    if (target !== undefined && place.stack.length > 0) {
      report(ctx, IMPORT_CODES.embeddedRecord, { field: place.label, resource: place.resource, target, ref: `#/components/schemas/${component}` }, pointer);
    }
    if (isObject(node.additionalProperties)) {
      report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: 'additionalProperties (a map with free keys)', done: 'only its named properties are kept' }, child(at, 'additionalProperties'));
    }
    const fields = objectFields(scope, node, at, { target: child(place.target, 'properties'), label: place.label, resource: place.resource, stack });
    properties = fields.length ? fields : undefined;
  }
  return defined({
    type,
    format,
    enum: values,
    minimum, maximum, exclusiveMinimum, exclusiveMaximum,
    multipleOf: n('multipleOf'),
    minLength: n('minLength'), maxLength: n('maxLength'),
    pattern: typeof node.pattern === 'string' ? node.pattern : undefined,
    minItems: n('minItems'), maxItems: n('maxItems'),
    uniqueItems: node.uniqueItems === true ? true : undefined,
    items,
    properties,
    nullable: nullable || undefined,
    pointer: place.target,
  });
}

/** The one type of a schema and whether null is allowed, or undefined (reported) when there is no one type. */
function typeOf(ctx: ImportContext, node: Json, at: string, subject: string): { type: FieldType; nullable: boolean } | undefined {
  let types: string[] = Array.isArray(node.type) ? node.type.filter((t): t is string => typeof t === 'string') : typeof node.type === 'string' ? [node.type] : [];
  const nullable = types.includes('null');
  types = types.filter((t) => t !== 'null');
  if (types.length === 0) {
    const alternatives = Array.isArray(node.oneOf) ? 'oneOf' : Array.isArray(node.anyOf) ? 'anyOf' : undefined;
    if (alternatives) return alternativesType(ctx, node, alternatives, at, subject, nullable);
    const inferred = inferType(node);
    if (inferred) return { type: inferred, nullable };
    if (nullable) {
      report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: 'only null', done: 'the field is left out' }, at);
      return undefined;
    }
    // No type: any JSON value, which the format says as `type: any` (a bag of metadata, traits).
    return { type: 'any', nullable: false };
  }
  if (types.length > 1) {
    report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: `several types (${types.join(', ')})`, done: 'the field is written as any (any value): no type of it is checked' }, child(at, 'type'));
    return { type: 'any', nullable: false };
  }
  if (!FIELD_TYPES.has(types[0])) return undefined;
  for (const k of ['oneOf', 'anyOf']) {
    if (Array.isArray(node[k])) report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: k, done: `its type, ${types[0]}, is kept and the alternatives are left out` }, child(at, k));
  }
  return { type: types[0] as FieldType, nullable };
}

/** oneOf/anyOf without a type: one type when every alternative has it, else nothing. */
function alternativesType(ctx: ImportContext, node: Json, key: 'oneOf' | 'anyOf', at: string, subject: string, nullable: boolean): { type: FieldType; nullable: boolean } | undefined {
  const found = new Set<string>();
  let withNull = nullable;
  (node[key] as unknown[]).forEach((alt, i) => {
    const r = resolve(ctx, alt, child(at, key, i));
    const types = !r ? [] : Array.isArray(r.node.type) ? r.node.type : typeof r.node.type === 'string' ? [r.node.type] : [inferType(r.node) ?? 'any'];
    for (const t of types) (t === 'null' ? (withNull = true) : found.add(String(t)));
  });
  if (found.size === 1 && FIELD_TYPES.has([...found][0])) {
    const type = [...found][0] as FieldType;
    report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: key, done: `every alternative is ${type}, so the field is ${type} without the alternatives' constraints` }, child(at, key));
    return { type, nullable: withNull };
  }
  report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: `${key} of ${[...found].join(', ') || 'several schemas'}`, done: 'the field is written as any (any value): no type of it is checked' }, child(at, key));
  return { type: 'any', nullable: false };
}

/** A type the keywords fix without saying it: properties make an object, items an array, an enum of strings a string. */
function inferType(node: Json): FieldType | undefined {
  if (isObject(node.properties) || Array.isArray(node.required)) return 'object';
  if (node.items !== undefined) return 'array';
  const values: unknown[] | undefined = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined;
  const kinds = new Set((values ?? []).filter((v) => v !== null).map((v) => (Number.isInteger(v) ? 'integer' : typeof v)));
  if (kinds.size === 1) {
    const kind = [...kinds][0];
    if (kind === 'string' || kind === 'integer' || kind === 'number' || kind === 'boolean') return kind;
  }
  return undefined;
}

/** Reports keywords a field cannot say, and counts the annotations it does not carry. */
function keywords(ctx: ImportContext, node: Json, at: string, subject: string): void {
  for (const key of Object.keys(node)) {
    if (HANDLED.has(key)) continue;
    if (INEXPRESSIBLE.has(key)) report(ctx, IMPORT_CODES.schemaInexpressible, { subject, keyword: key, done: 'the keyword is left out, the rest kept' }, child(at, key));
    else notCarried(ctx, key.startsWith('x-') ? 'x- extensions' : key, child(at, key));
  }
}

/**
 * allOf: every subschema applies, so their properties and required lists are united and
 * their other keywords laid over each other (the schema's own keywords last).
 */
export function mergeAllOf(scope: SchemaScope, node: Json, pointer: string): Json {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...own } = node;
  let out: Json = {};
  (allOf as unknown[]).forEach((sub, i) => {
    const r = resolve(scope.ctx, sub, child(pointer, 'allOf', i));
    if (r) out = combine(out, mergeAllOf(scope, r.node, r.pointer));
  });
  return combine(out, own);
}

function combine(a: Json, b: Json): Json {
  const out: Json = { ...a, ...b };
  if (isObject(a.properties) || isObject(b.properties)) out.properties = { ...(isObject(a.properties) ? a.properties : {}), ...(isObject(b.properties) ? b.properties : {}) };
  if (Array.isArray(a.required) || Array.isArray(b.required)) out.required = [...new Set([...(Array.isArray(a.required) ? a.required : []), ...(Array.isArray(b.required) ? b.required : [])])];
  if (a.type !== undefined && b.type === undefined) out.type = a.type;
  return out;
}
