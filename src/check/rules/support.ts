/**
 * Helpers the rules share. Look-ups that would be rebuilt per node are memoized per model
 * object (WeakMap), so a rule stays linear in the size of the spec.
 */
import { formatNames } from 'ajv-formats/dist/formats.js';
import {
  STANDARD_OPERATIONS, type AuthRule, type Endpoint, type Field, type FieldType, type Shape, type Spec, type StateMachine, type Transition,
} from '../../spec/model.ts';
import type { PartName } from '../../spec/parts.ts';
import { child } from '../../spec/pointer.ts';
import type { Rule, RuleContext } from '../rule.ts';

/** Whether a part is stated with content (gaps and `none` are reported by part status, not by rules). */
export function given(ctx: RuleContext, part: PartName): boolean {
  return ctx.spec.parts[part].statement === 'given';
}

/** Operations that address one record, so their path needs `{id}`. */
export const ITEM_OPERATIONS: ReadonlySet<Endpoint['operation']> = new Set(['read', 'update', 'replace', 'delete', 'transition']);

export const STANDARD_OPERATION_NAMES: readonly string[] = STANDARD_OPERATIONS;

/** The string formats a field may name: those of ajv-formats, which the service validates with. */
export const FORMAT_NAMES: readonly string[] = formatNames;

export function memo<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = make(key);
      cache.set(key, value);
    }
    return value;
  };
}

/** The names of a machine's transitions. */
export const transitionNames = memo((machine: StateMachine): ReadonlySet<string> => new Set(machine.transitions.map((t) => t.name)));

/** The names of a machine's states. */
export const stateNames = memo((machine: StateMachine): ReadonlySet<string> => new Set(machine.states));

/** The resources that have at least one endpoint. */
export const endpointResources = memo((spec: Spec): ReadonlySet<string> => new Set(spec.endpoints.map((e) => e.resource)));

/** Whether the error catalog has a code answered with this status. */
export function hasErrorStatus(ctx: RuleContext, status: number): boolean {
  return ctx.index.errorStatuses.has(status);
}

/** A field's name as a path inside its resource: `address.city`, `authors[]`. */
export function fieldLabel(field: Field, parents: readonly Field[]): string {
  if (parents.length === 0) return field.name; // the common case, on a hot path of many rules
  return [...parents.map((p) => p.name), field.name].join('.');
}

/**
 * Calls `visit` on a field and every shape it holds that the walk does not visit itself:
 * its array items (`tags[]`) and the member fields of object items (`lines[].amount`),
 * at any depth. The walk already visits `field.properties`, so those are left out here.
 */
export function eachShape(field: Field, label: string, visit: (shape: Shape, label: string) => void): void {
  const inner = (shape: Shape, name: string, withProperties: boolean): void => {
    visit(shape, name);
    if (shape.items) inner(shape.items, `${name}[]`, true);
    if (withProperties) for (const p of shape.properties ?? []) inner(p, `${name}.${p.name}`, true);
  };
  inner(field, label, false);
}

/** Whether a shape is a field (it has a name, flags and maybe a default), not bare array items. */
export function isField(shape: Shape): shape is Field {
  return 'name' in shape;
}

/** Whether a value is of a field type (a `ref` holds an id: text or a whole number). */
export function valueFits(type: FieldType, value: unknown): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'integer': return typeof value === 'number' && Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'object': return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array': return Array.isArray(value);
    case 'ref': return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
    case 'any': return true;
  }
}

/** Words for a field type in messages. */
export const TYPE_WORDS: Readonly<Record<FieldType | 'null', string>> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  any: 'any value',
  object: 'a map',
  array: 'a list',
  ref: 'an id (text or a whole number)',
  null: 'null',
};

/** A value as it would be written in the spec, for messages. */
export function show(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value);
}

/** A path template with its parameter names blanked: `/loans/{id}` and `/loans/{loanId}` are one route. */
export function routeShape(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}

/** The `{name}` parameters of a path template. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
}

/** Dates of the format are ISO `YYYY-MM-DD`, so they order as text; anything else is not compared. */
export function isIsoDate(value: string | undefined): value is string {
  return value !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/**
 * Whether a node is written in the source, rather than filled in by the loader (a
 * conventional path, a plural taken from the name): the source document has it.
 */
export function written(ctx: RuleContext, pointer: string): boolean {
  return ctx.spec.source.has(pointer);
}

/** The pointer if it is written, else the fallback. */
export function writtenOr(ctx: RuleContext, pointer: string, fallback: string): string {
  return written(ctx, pointer) ? pointer : fallback;
}

/** A machine's transitions by name. */
export const transitionsByName = memo((machine: StateMachine): ReadonlyMap<string, Transition> => new Map(machine.transitions.map((t) => [t.name, t])));

/** The operations each resource has endpoints for. */
export const operationsByResource = memo((spec: Spec): ReadonlyMap<string, ReadonlySet<string>> => {
  const out = new Map<string, Set<string>>();
  for (const e of spec.endpoints) {
    let ops = out.get(e.resource);
    if (!ops) out.set(e.resource, (ops = new Set()));
    ops.add(e.operation);
  }
  return out;
});

/** The `public` rules of the authentication part, by what they match. */
export const publicRules = memo((spec: Spec): ReadonlyMap<string, AuthRule> => new Map(spec.authentication.rules.filter((r) => r.public).map((r) => [r.match, r])));

/** Every endpoint route shape (`/loans/{}`), whatever its method. */
export const endpointRoutes = memo((spec: Spec): ReadonlySet<string> => new Set(spec.endpoints.map((e) => routeShape(e.path))));

/** A list for messages: `'a', 'b'`, or the words for none. */
export function listOf(names: Iterable<string>, none = 'none'): string {
  const all = [...names].map((n) => `'${n}'`);
  return all.length ? all.join(', ') : none;
}

/** Where a missing catalog entry belongs: the catalog, or the errors part when it has none. */
export function catalogPointer(ctx: RuleContext): string {
  return writtenOr(ctx, child(ctx.spec.parts.errors.pointer, 'catalog'), ctx.spec.parts.errors.pointer);
}

/** The position of each version in the declared order (oldest first). */
export const versionOrder = memo((spec: Spec): ReadonlyMap<string, number> => new Map(spec.versioning.versions.map((v, i) => [v.name, i])));

/** Visitors that call `check` on every field (nested shapes included) and every event: the things with since/until. */
export function versionedVisitors(check: (ctx: RuleContext, subject: string, at: { since?: string; until?: string; pointer: string }) => void): Pick<Rule, 'field' | 'event'> {
  return {
    field(field, resource, ctx, parents) {
      eachShape(field, fieldLabel(field, parents), (shape, label) => {
        if (isField(shape)) check(ctx, `Field '${label}' of '${resource.name}'`, shape);
      });
    },
    event(event, ctx) {
      check(ctx, `Event '${event.name}'`, event);
    },
  };
}
