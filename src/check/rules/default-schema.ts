/**
 * A field's shape as a tiny JSON Schema, to check its `default` with the same validator
 * (Ajv with ajv-formats) the service uses for requests, and Ajv's findings in our words.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { FieldType, Shape } from '../../spec/model.ts';
import { FORMAT_NAMES, TYPE_WORDS } from './support.ts';
import { validPattern } from '../../spec/pattern.ts';
import { ajvModules } from '../../spec/ajv.ts';


let ajv: Ajv | undefined;
/** Compiled validators by schema text: fields of one shape (and a spec checked again) share one. */
const compiled = new Map<string, ValidateFunction>();
/** Past this many, the validators (and Ajv's own cache) start afresh, so a long-running watch does not grow without end. */
const MAX_COMPILED = 500;

function validator(): Ajv {
  if (!ajv) {
    // validateSchema off: the schemas are built here, valid by construction, and checking them
    // compiles Ajv's meta-schema first, the larger part of `check`'s (and serve's) Ajv time.
    const { Ajv, addFormats } = ajvModules();
    ajv = new Ajv({ allErrors: true, strict: false, logger: false, validateSchema: false });
    addFormats(ajv);
  }
  return ajv;
}

type Schema = Record<string, unknown>;

/** How the id of a referenced resource is typed, for `ref` values; undefined when unknown. */
export type RefType = (resource: string | undefined) => 'string' | 'integer' | undefined;

function jsonType(type: FieldType, shape: Shape, refType: RefType): string | string[] {
  if (type === 'any') return ['string', 'number', 'boolean', 'object', 'array', 'null'];
  if (type !== 'ref') return type;
  return refType(shape.resource) ?? ['string', 'integer'];
}

/** The schema of a shape. Constraints other rules find broken (a bad pattern, an unknown format) are left out. */
export function shapeSchema(shape: Shape, refType: RefType): Schema {
  const base = jsonType(shape.type, shape, refType);
  const types = Array.isArray(base) ? base : [base];
  const s: Schema = { type: shape.nullable ? [...types, 'null'] : types.length === 1 ? types[0] : types };
  if (shape.enum) s.enum = shape.nullable && !shape.enum.includes(null) ? [...shape.enum, null] : shape.enum;
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems'] as const) {
    if (shape[key] !== undefined) s[key] = shape[key];
  }
  if (shape.pattern !== undefined && validPattern(shape.pattern)) s.pattern = shape.pattern;
  if (shape.format !== undefined && FORMAT_NAMES.includes(shape.format)) s.format = shape.format;
  if (shape.items) s.items = shapeSchema(shape.items, refType);
  if (shape.properties) {
    s.properties = Object.fromEntries(shape.properties.map((p) => [p.name, shapeSchema(p, refType)]));
    s.required = shape.properties.filter((p) => p.required).map((p) => p.name);
    // Members that are not fields are refused in requests; a default holding one could never be sent.
    s.additionalProperties = false;
  }
  return s;
}

/** What is wrong with a value for a shape, in our words; undefined when it fits. */
export function valueProblems(value: unknown, shape: Shape, refType: RefType): string[] | undefined {
  if (plainlyFits(value, shape)) return undefined;
  const schema = shapeSchema(shape, refType);
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    if (compiled.size >= MAX_COMPILED) {
      compiled.clear();
      ajv = undefined;
    }
    try {
      validate = validator().compile(schema);
    } catch {
      return undefined; // a schema Ajv cannot compile is another rule's finding
    }
    compiled.set(key, validate);
  }
  if (validate(value)) return undefined;
  return (validate.errors ?? []).map(describe);
}

function where(instancePath: string): string {
  if (instancePath === '') return 'it ';
  const path = instancePath.slice(1).split('/').map((t) => (/^\d+$/.test(t) ? `[${t}]` : `.${t.replace(/~1/g, '/').replace(/~0/g, '~')}`)).join('');
  return `'${path.replace(/^\./, '')}' `;
}

function typeWords(type: unknown): string {
  return String(type).split(',').map((t) => TYPE_WORDS[t as keyof typeof TYPE_WORDS] ?? t).join(' or ');
}

function describe(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  const at = where(error.instancePath);
  switch (error.keyword) {
    case 'type': return `${at}must be ${typeWords(p.type)}`;
    case 'enum': return `${at}must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minimum': return `${at}must be at least ${String(p.limit)}`;
    case 'maximum': return `${at}must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum': return `${at}must be greater than ${String(p.limit)}`;
    case 'exclusiveMaximum': return `${at}must be less than ${String(p.limit)}`;
    case 'multipleOf': return `${at}must be a multiple of ${String(p.multipleOf)}`;
    case 'minLength': return `${at}must be at least ${String(p.limit)} characters long`;
    case 'maxLength': return `${at}must be at most ${String(p.limit)} characters long`;
    case 'pattern': return `${at}must match the pattern ${String(p.pattern)}`;
    case 'format': return `${at}must be a valid ${String(p.format)}`;
    case 'minItems': return `${at}must hold at least ${String(p.limit)} items`;
    case 'maxItems': return `${at}must hold at most ${String(p.limit)} items`;
    case 'uniqueItems': return `${at}must not repeat items (items ${String(p.j)} and ${String(p.i)} are equal)`;
    case 'required': return `${at}must hold the required member '${String(p.missingProperty)}'`;
    case 'additionalProperties': return `${at}holds '${String(p.additionalProperty)}', which is not one of its fields`;
    default: return `${at}is not allowed (${error.keyword})`;
  }
}

/**
 * Whether a value plainly fits its shape, read without Ajv: the common default (a string,
 * a number, a boolean, within its bounds, enum and pattern; a list of such, the empty list
 * included). Anything else — a format, a multipleOf, an object, a ref, unique items among
 * two or more, or a value that does not fit — goes to Ajv, which words the problem. Serve
 * checks every spec it starts, and the first default that needs Ajv costs its instance and
 * a compiled validator, a tenth of the readiness verdict (issue #20).
 */
function plainlyFits(value: unknown, shape: Shape): boolean {
  if (value === null) return shape.nullable === true;
  if (shape.format !== undefined || shape.multipleOf !== undefined) return false;
  if (shape.type === 'array') {
    if (!Array.isArray(value) || shape.enum || shape.pattern !== undefined) return false;
    // Ajv's uniqueItems compares items deeply; one item or none is unique whatever it holds.
    if (shape.uniqueItems === true && value.length > 1) return false;
    if ((shape.minItems !== undefined && value.length < shape.minItems) || (shape.maxItems !== undefined && value.length > shape.maxItems)) return false;
    const items = shape.items;
    // Without `items` the schema says nothing of them (shapeSchema).
    return items === undefined || value.every((item) => plainlyFits(item, items));
  }
  // As Ajv reads a pattern: a regular expression with the u flag, unanchored.
  if (shape.pattern !== undefined && (typeof value !== 'string' || !validPattern(shape.pattern) || !new RegExp(shape.pattern, 'u').test(value))) return false;
  if (shape.enum && !shape.enum.includes(value as never)) return false;
  switch (shape.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'string': {
      if (typeof value !== 'string') return false;
      // Ajv counts characters as code points, as [...value] does.
      const length = shape.minLength !== undefined || shape.maxLength !== undefined ? [...value].length : 0;
      return (shape.minLength === undefined || length >= shape.minLength) && (shape.maxLength === undefined || length <= shape.maxLength);
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value) || (shape.type === 'integer' && !Number.isInteger(value))) return false;
      return (shape.minimum === undefined || value >= shape.minimum) && (shape.maximum === undefined || value <= shape.maximum)
        && (shape.exclusiveMinimum === undefined || value > shape.exclusiveMinimum) && (shape.exclusiveMaximum === undefined || value < shape.exclusiveMaximum);
    }
    default:
      return false;
  }
}
