/**
 * CEL (https://cel.dev, the Common Expression Language of Kubernetes validation rules and
 * protovalidate) as the format uses it for domain rules: the variables each kind of rule
 * sees, their types (from the resource's fields), and the conversion of JSON records to
 * CEL values and back. check type-checks with these environments and serve evaluates with
 * the same ones, so a rule that checks is a rule that runs.
 *
 * The evaluator is @marcbachmann/cel-js (no dependencies, 0.3 MB, a type checker with
 * positions); @bufbuild/cel, the other maintained one, costs an installer 11 MB.
 *
 * Types: integer → int (JSON numbers become BigInt), number → double, boolean → bool,
 * string → string, a `format: date-time` string → timestamp (so `self.end > self.start`
 * compares instants, not text; a `date` stays a string: ISO dates order as text), a ref →
 * the id's type (int for sequence ids), object → its fields, array → list.
 * null and absent are alike: a null member is left out, so `has(self.x)` is false for both,
 * and a rule that reads an absent member errs, which counts as holding (docs/format.md).
 *
 * Variables:
 *   self       the record (a record rule, a managed expression: as it would be stored; a
 *              guard or effect: as the write would leave it, before effects)
 *   old        the record before the write (empty on a create)
 *   request    the request body, typed by the fields it may carry
 *   principal  { id, scopes } of the caller (empty when anonymous)
 *   refs       the records the ref fields of `self` point to, by field (`refs.book.available`)
 *   count      the declared counts, by name
 *   now        the time of the request (a timestamp)
 *   item       (a guard with `each`) the array item it is checked on
 *   itemRefs   (a guard with `each`) the records the item's ref members point to, by member
 */
import { createRequire } from 'node:module';
import type { Environment } from '@marcbachmann/cel-js';
import type { Field, Resource, Shape, Spec, WriteRules } from '../model.ts';
import { idOf } from '../conventions/ids.ts';

/**
 * The evaluator is loaded with the first environment (require of an ES module, synchronous
 * since Node 22.12), not with this file: a spec without rules, guards, effects or computed
 * fields never loads it, and serve starts without its 14 modules (issue #20).
 */
let loaded: typeof import('@marcbachmann/cel-js') | undefined;
// In the CLI's bundle a `require` is in scope (scripts/bundle.ts), and esbuild bundles the
// literal require call as a module it evaluates on that first call: one chunk, not 14 files.
const celModule = () =>
  (loaded ??= (typeof require === 'function' ? require('@marcbachmann/cel-js') : createRequire(import.meta.url)('@marcbachmann/cel-js')) as typeof import('@marcbachmann/cel-js'));

export type CelKind = 'record' | 'write';

export type SchemaType = string | { [key: string]: SchemaType };

const TIMESTAMP = 'google.protobuf.Timestamp';

function scalarType(spec: Spec, shape: Shape): string {
  switch (shape.type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'ref': {
      const target = spec.resources.find((r) => r.name === shape.resource);
      return (target ? idOf(target).assigned : undefined) === 'sequence' ? 'int' : 'string';
    }
    case 'string':
      return shape.format === 'date-time' ? TIMESTAMP : 'string';
    default:
      return 'dyn';
  }
}

function shapeType(spec: Spec, shape: Shape): SchemaType {
  if (shape.type === 'object') return shape.properties?.length ? fieldsSchema(spec, shape.properties) : 'map';
  if (shape.type === 'array') {
    const item = shape.items;
    if (!item) return 'list<dyn>';
    if (item.type === 'object' || item.type === 'array') return 'list<map>';
    return `list<${scalarType(spec, item)}>`;
  }
  return scalarType(spec, shape);
}

/** The CEL type of a shape's values, as the environments declare it (`int`, `google.protobuf.Timestamp`, `list<string>`, a map of fields). */
export function celTypeOf(spec: Spec, shape: Shape): SchemaType {
  return shapeType(spec, shape);
}

function fieldsSchema(spec: Spec, fields: readonly Field[]): { [key: string]: SchemaType } {
  const out: { [key: string]: SchemaType } = {};
  for (const f of fields) out[f.name] = shapeType(spec, f);
  return out;
}

/** The record's schema: its fields, and its id field (kept beside the data by the store). */
export function recordSchema(spec: Spec, resource: Resource): { [key: string]: SchemaType } {
  const schema = fieldsSchema(spec, resource.fields);
  const idField = resource.id?.field ?? 'id';
  if (!(idField in schema)) schema[idField] = idOf(resource).assigned === 'sequence' ? 'int' : 'string';
  return schema;
}

/** The resources the ref fields of a resource point to, by field. */
export function refTargets(spec: Spec, resource: Resource): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const f of resource.fields) {
    if (f.type !== 'ref') continue;
    const target = spec.resources.find((r) => r.name === f.resource);
    if (target) out.set(f.name, target);
  }
  return out;
}

export interface EnvOptions {
  /** For a write: the fields its request may carry (the resource's when absent). */
  readonly requestFields?: readonly Field[];
  /** For a write: its rules (the counts' names become `count.<name>`). */
  readonly rules?: WriteRules;
  /** For a guard with `each`: the array field whose items it reads as `item` and `itemRefs`. */
  readonly each?: Field;
}

/** The member fields of the items of an array field (none for items that are not objects). */
export function itemFields(field: Field): readonly Field[] {
  return field.type === 'array' && field.items?.type === 'object' ? (field.items.properties ?? []) : [];
}

/** The resources the ref members of an array field's items point to, by member. */
export function itemRefTargets(spec: Spec, field: Field): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const f of itemFields(field)) {
    if (f.type !== 'ref') continue;
    const target = spec.resources.find((r) => r.name === f.resource);
    if (target) out.set(f.name, target);
  }
  return out;
}

/** What an environment declares: its variables and their types, in order. */
type Declarations = readonly (readonly [name: string, type: SchemaType])[];

function declarations(spec: Spec, resource: Resource, kind: CelKind, options: EnvOptions): Declarations {
  const out: (readonly [string, SchemaType])[] = [['self', recordSchema(spec, resource)], ['now', TIMESTAMP]];
  if (kind === 'record') return out;
  out.push(['old', recordSchema(spec, resource)]);
  const requestFields = options.requestFields ?? resource.fields;
  out.push(['request', requestFields.length ? fieldsSchema(spec, requestFields) : { _: 'dyn' }]);
  out.push(['principal', { id: 'string', scopes: 'list<string>' }]);
  const refs: { [key: string]: SchemaType } = {};
  for (const [field, target] of refTargets(spec, resource)) refs[field] = recordSchema(spec, target);
  out.push(['refs', Object.keys(refs).length ? refs : { _: 'dyn' }]);
  const counts: { [key: string]: SchemaType } = {};
  for (const c of options.rules?.counts ?? []) counts[c.name] = 'int';
  out.push(['count', Object.keys(counts).length ? counts : { _: 'int' }]);
  if (options.each) {
    const members = itemFields(options.each);
    out.push(['item', members.length ? fieldsSchema(spec, members) : { _: 'dyn' }]);
    const itemRefs: { [key: string]: SchemaType } = {};
    for (const [member, target] of itemRefTargets(spec, options.each)) itemRefs[member] = recordSchema(spec, target);
    out.push(['itemRefs', Object.keys(itemRefs).length ? itemRefs : { _: 'dyn' }]);
  }
  return out;
}

/**
 * Environments by what they declare: check type-checks a spec's expressions and serve then
 * evaluates them in the same process (serve's readiness verdict), each building the same
 * environments, a registry of types per resource each (issue #20). An environment is frozen
 * once made and keeps no expression (parsing and checking leave nothing in it), so one made
 * for the same declarations serves both. Past 200, the map starts afresh (serve --watch).
 */
const environments = new Map<string, Environment>();

/**
 * The environment a rule of a resource is checked and evaluated in. `record`: record rules
 * and managed expressions (self, now); `write`: guards, effects and count conditions (all
 * the variables above).
 */
export function celEnvironment(spec: Spec, resource: Resource, kind: CelKind, options: EnvOptions = {}): Environment {
  const declared = declarations(spec, resource, kind, options);
  const key = JSON.stringify(declared);
  const kept = environments.get(key);
  if (kept) return kept;
  const env = new (celModule().Environment)({ homogeneousAggregateLiterals: false });
  for (const [name, type] of declared) {
    if (typeof type === 'string') env.registerVariable(name, type);
    else env.registerVariable({ name, schema: type });
  }
  if (environments.size >= 200) environments.clear();
  environments.set(key, env);
  return env;
}

// ---- what an expression reads ---------------------------------------------------

/**
 * The ref fields an expression reads through `refs`: every `refs.<field>` (CEL allows
 * spaces and line breaks around the dot), or all of them (`'*'`) when it uses `refs`
 * another way (`refs["a-b"]`, `refs` passed whole), so that no read a guard needs is ever
 * left out: a record not read makes a guard that reads it hold.
 */
export function refsReadBy(source: string, variable: 'refs' | 'itemRefs' = 'refs'): ReadonlySet<string> {
  const out = new Set<string>();
  const uses = [...source.matchAll(new RegExp(`(?<![\\w.])${variable}(?![\\w])`, 'g'))];
  for (const use of uses) {
    const after = source.slice((use.index ?? 0) + variable.length);
    const member = /^\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(after);
    if (!member) return new Set(['*']);
    out.add(member[1] as string);
  }
  return out;
}

// ---- values ---------------------------------------------------------------------

/** A JSON value of a shape as CEL sees it (see the header); undefined for null and absent. */
export function toCel(value: unknown, shape: Shape | undefined, spec: Spec): unknown {
  if (value === null || value === undefined) return undefined;
  if (!shape) return value;
  switch (shape.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    case 'ref':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    case 'string':
      if (shape.format === 'date-time' && typeof value === 'string') {
        const d = new Date(value);
        return Number.isNaN(d.getTime()) ? value : d;
      }
      return value;
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? toCelFields(value as Record<string, unknown>, shape.properties ?? [], spec) : value;
    case 'array':
      return Array.isArray(value) ? value.filter((v) => v !== null).map((v) => toCel(v, shape.items, spec) ?? v) : value;
    default:
      return value;
  }
}

/** A record's data as CEL sees it: known fields converted, null members left out. */
export function toCelFields(data: Readonly<Record<string, unknown>>, fields: readonly Field[], spec: Spec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = toCel(data[f.name], f, spec);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

/** A record as `self`: its fields (those given: the ones an expression reads) and its id. */
export function celRecord(spec: Spec, resource: Resource, id: string | undefined, data: Readonly<Record<string, unknown>>, fields: readonly Field[] = resource.fields): Record<string, unknown> {
  const out = toCelFields(data, fields, spec);
  const idField = resource.id?.field ?? 'id';
  if (id !== undefined && !(idField in out)) out[idField] = idOf(resource).assigned === 'sequence' && /^[0-9]+$/.test(id) ? BigInt(id) : id;
  return out;
}

/** A CEL value back to JSON for a field of this shape: ints to numbers, timestamps to RFC 3339 (or a date), maps to objects. */
export function fromCel(value: unknown, shape: Shape | undefined): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return shape?.format === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCel(v, shape?.properties?.find((p) => p.name === k))]));
  if (Array.isArray(value)) return value.map((v) => fromCel(v, shape?.items));
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromCel(v, shape?.properties?.find((p) => p.name === k))]));
  }
  return value;
}

// ---- positions ----------------------------------------------------------------------

/** What a CEL error says and where in the expression (0-based offset). */
export function celErrorOf(error: unknown): { readonly message: string; readonly offset?: number } {
  const e = error as { summary?: string; message?: string; range?: { start?: number } };
  const message = e.summary ?? e.message ?? String(error);
  return typeof e.range?.start === 'number' ? { message, offset: e.range.start } : { message };
}
