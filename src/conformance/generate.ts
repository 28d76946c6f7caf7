/**
 * Inputs for the tester, generated from the spec's field definitions with fast-check:
 * values that satisfy every declared constraint, and for each constraint a value that
 * breaks it and nothing else. Generation is seeded: the run prints its seed, and `--seed`
 * replays the same inputs (each draw takes the next seed of a counter, so a run is a
 * deterministic sequence).
 *
 * Refs (`type: ref`) are left as a marker here; the data factory (src/conformance/data.ts)
 * creates the referenced record through the API and puts its id in.
 */
import fc from 'fast-check';
import type { Field, Shape } from '../spec/model.ts';

export const REF = Symbol('ref');
export interface RefMarker {
  readonly [REF]: string;
}

export class Draw {
  #next: number;
  readonly seed: number;
  constructor(seed: number) {
    this.seed = seed;
    this.#next = seed;
  }
  one<T>(arb: fc.Arbitrary<T>): T {
    return fc.sample(arb, { seed: this.#next++, numRuns: 1 })[0] as T;
  }
}

const FORMATS: Readonly<Record<string, () => fc.Arbitrary<string>>> = {
  date: () => fc.date({ min: new Date('2000-01-01'), max: new Date('2035-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  'date-time': () => fc.date({ min: new Date('2000-01-01'), max: new Date('2035-12-31'), noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
  email: () => fc.stringMatching(/^[a-z]{3,8}\.[a-z]{2,6}@example\.(com|org|net)$/),
  uuid: () => fc.uuid({ version: 4 }),
  uri: () => fc.stringMatching(/^https:\/\/[a-z]{3,10}\.example\/[a-z0-9]{1,12}$/),
  url: () => fc.stringMatching(/^https:\/\/[a-z]{3,10}\.example\/[a-z0-9]{1,12}$/),
  hostname: () => fc.stringMatching(/^[a-z]{3,10}\.example$/),
  ipv4: () => fc.ipV4(),
  time: () => fc.stringMatching(/^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z$/),
};

/** A value that satisfies the shape (refs as markers). */
export function valueOf(shape: Shape): fc.Arbitrary<unknown> {
  if (shape.enum?.length) return fc.constantFrom(...shape.enum);
  switch (shape.type) {
    case 'string':
      return stringOf(shape);
    case 'integer':
      return integerOf(shape);
    case 'number':
      return numberOf(shape);
    case 'boolean':
      return fc.boolean();
    case 'ref':
      return fc.constant({ [REF]: shape.resource ?? '' } satisfies RefMarker);
    case 'array': {
      const items = shape.items ? valueOf(shape.items) : fc.constant('x');
      const minLength = shape.minItems ?? 0;
      // Refs all point at the one record made for them: more than one would repeat it.
      const maxLength = shape.items?.type === 'ref' ? Math.min(shape.maxItems ?? 1, 1) : Math.min(shape.maxItems ?? minLength + 3, minLength + 3);
      return shape.uniqueItems ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const props = shape.properties ?? [];
      return fc.record(Object.fromEntries(props.filter((p) => !p.readOnly).map((p) => [p.name, valueOf(p)])));
    }
    case 'any':
      // Any JSON value fits; an object of one text member is what such fields hold in practice (metadata, traits).
      return stringOf({ ...shape, type: 'string' }).map((note) => ({ note }));
  }
}

function stringOf(shape: Shape): fc.Arbitrary<string> {
  const minLength = shape.minLength ?? 1;
  const maxLength = Math.max(minLength, Math.min(shape.maxLength ?? minLength + 16, minLength + 16));
  const fits = (s: string) => [...s].length >= (shape.minLength ?? 0) && [...s].length <= (shape.maxLength ?? Infinity);
  if (shape.pattern) return fc.stringMatching(new RegExp(shape.pattern, 'u')).filter(fits);
  const format = shape.format ? FORMATS[shape.format] : undefined;
  if (format) return format().filter(fits);
  // Letters and digits: no test of the implementation should hinge on escaping.
  return fc.string({ minLength, maxLength, unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') });
}

function bounds(shape: Shape): { min: number; max: number } {
  let min = shape.minimum ?? -1_000_000;
  let max = shape.maximum ?? 1_000_000;
  if (shape.exclusiveMinimum !== undefined) min = Math.max(min, shape.exclusiveMinimum + (shape.type === 'integer' ? 1 : Number.EPSILON * 1e6));
  if (shape.exclusiveMaximum !== undefined) max = Math.min(max, shape.exclusiveMaximum - (shape.type === 'integer' ? 1 : Number.EPSILON * 1e6));
  return { min, max };
}

function integerOf(shape: Shape): fc.Arbitrary<number> {
  const { min, max } = bounds(shape);
  const step = shape.multipleOf && Number.isInteger(shape.multipleOf) ? shape.multipleOf : 1;
  return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step);
}

function numberOf(shape: Shape): fc.Arbitrary<number> {
  const { min, max } = bounds(shape);
  if (shape.multipleOf) {
    const step = shape.multipleOf;
    const decimals = (String(step).split('.')[1] ?? '').length;
    return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => Number((k * step).toFixed(decimals)));
  }
  // Two decimals: exact in JSON both ways, so a value read back compares equal.
  return fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((k) => k / 100);
}

/** A value breaking one constraint of a field, for the one-at-a-time refusals. */
export interface Breach {
  readonly constraint: string;
  /** undefined: leave the field out. */
  readonly value?: unknown;
  readonly omit?: boolean;
}

/** Every constraint of a top-level field, each with a value that breaks only it. */
export function breaches(field: Field, draw: Draw): Breach[] {
  const out: Breach[] = [];
  if (field.required && !field.hasDefault) out.push({ constraint: 'required', omit: true });
  // Any value fits a field of type any: no value breaks its type.
  if (field.type !== 'any') out.push({ constraint: `type ${field.type}`, value: wrongType(field) });
  if (field.enum?.length && field.type === 'string') out.push({ constraint: 'enum', value: `${String(field.enum[0])}-not-allowed` });
  if (field.type === 'integer' || field.type === 'number') {
    if (field.minimum !== undefined) out.push({ constraint: 'minimum', value: field.minimum - 1 });
    if (field.maximum !== undefined) out.push({ constraint: 'maximum', value: field.maximum + 1 });
    if (field.exclusiveMinimum !== undefined) out.push({ constraint: 'exclusiveMinimum', value: field.exclusiveMinimum });
    if (field.exclusiveMaximum !== undefined) out.push({ constraint: 'exclusiveMaximum', value: field.exclusiveMaximum });
  }
  if (field.type === 'string' && !field.enum?.length) {
    if (field.minLength !== undefined && field.minLength > 0) out.push({ constraint: 'minLength', value: 'a'.repeat(field.minLength - 1) });
    if (field.maxLength !== undefined) out.push({ constraint: 'maxLength', value: 'a'.repeat(field.maxLength + 1) });
    if (field.pattern) {
      const bad = ['!', 'does not match!', '0', 'a', ''].find((s) => !new RegExp(field.pattern as string, 'u').test(s) && [...s].length >= (field.minLength ?? 0));
      if (bad !== undefined) out.push({ constraint: 'pattern', value: bad });
    }
    if (field.format && FORMATS[field.format] && !field.pattern) out.push({ constraint: `format ${field.format}`, value: 'not valid for the format' });
  }
  if (field.type === 'array' && field.items && field.items.type !== 'ref' && (field.maxItems ?? 0) <= 1000) {
    if (field.maxItems !== undefined) out.push({ constraint: 'maxItems', value: distinctItems(field, field.maxItems + 1, draw) });
    if (field.minItems !== undefined && field.minItems > 0) out.push({ constraint: 'minItems', value: distinctItems(field, field.minItems - 1, draw) });
  }
  return out.filter((b) => b.omit || b.value !== undefined);
}

function wrongType(shape: Shape): unknown {
  switch (shape.type) {
    case 'string':
    case 'ref':
      return 12345;
    case 'integer':
    case 'number':
      return '12';
    case 'boolean':
      return 'yes';
    case 'array':
      return { not: 'a list' };
    case 'object':
      return ['not', 'an', 'object'];
    case 'any':
      return undefined;
  }
}

function distinctItems(field: Field, n: number, draw: Draw): unknown[] | undefined {
  const items = field.items as Shape;
  // Fewer distinct values exist than the breach needs (a small enum): it cannot break only this rule.
  if (field.uniqueItems && (items.enum?.length ?? Infinity) < n) return undefined;
  if (field.uniqueItems && items.type === 'boolean' && n > 2) return undefined;
  const arb = field.uniqueItems ? fc.uniqueArray(valueOf(items), { minLength: n, maxLength: n, selector: (v) => JSON.stringify(v) }) : fc.array(valueOf(items), { minLength: n, maxLength: n });
  try {
    return draw.one(arb) as unknown[];
  } catch {
    return undefined; // fewer distinct values exist than the breach needs (a small enum, say)
  }
}

/** A breach of one constraint deep inside a field's value (a member of an object, an item of an array). */
export interface DeepBreach {
  readonly constraint: string;
  /** The JSON pointer of the violated member from the body's root: `/address/postalCode`, `/authors/0`. */
  readonly pointer: string;
  /** The shape whose constraint it breaks (its place in the spec). */
  readonly shape: Shape;
  /** A member left out (a required one); a merge patch cannot break that rule. */
  readonly omit: boolean;
  /** The field's value with this breach in it, made from a valid value of the field (which it does not change). */
  apply(valid: unknown): unknown;
}

/** How deep the breaches go: far enough for an item's member's item, not without end. */
const MAX_DEPTH = 4;

/**
 * Every constraint inside a top-level field, each broken alone: the members of its objects
 * and the items of its arrays, at every depth (to MAX_DEPTH), and `uniqueItems` on every array
 * (the field's own too). The field's own other constraints are `breaches()`.
 */
export function nestedBreaches(field: Field, draw: Draw): DeepBreach[] {
  const out: DeepBreach[] = [];
  walkShape(field, `/${escape(field.name)}`, 0, draw, out);
  return out;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The breaches inside a shape at a pointer. `wrap` turns a change of a value of this shape into
 * a change of the whole field's value (the identity at the top; each level wraps its own).
 */
function walkShape(shape: Shape, pointer: string, depth: number, draw: Draw, out: DeepBreach[], wrap: (change: (v: unknown) => unknown) => (field: unknown) => unknown = (c) => c): void {
  if (depth >= MAX_DEPTH) return;
  if (shape.type === 'array' && shape.items) {
    const items = shape.items;
    if (shape.uniqueItems && (shape.maxItems ?? 2) >= 2 && items.type !== 'ref' && !(items.type === 'object' && items.properties?.some((p) => p.type === 'ref'))) {
      out.push({ constraint: 'uniqueItems', pointer, shape, omit: false, apply: wrap((v) => {
        const list = Array.isArray(v) && v.length ? v : [draw.one(valueOf(items))];
        return [list[0], list[0], ...list.slice(1)].slice(0, Math.max(2, shape.maxItems ?? Infinity));
      }) });
    }
    if (items.type === 'ref' || (shape.maxItems ?? 1) < 1) return;
    const first = (change: (v: unknown) => unknown) => wrap((v) => {
      const list = Array.isArray(v) && v.length ? [...v] : [draw.one(valueOf(items))];
      list[0] = change(list[0]);
      return list;
    });
    const itemPointer = `${pointer}/0`;
    // The item's own constraints (its type, pattern, enum, bounds, format), each alone.
    const asField: Field = { ...items, name: '0', required: false, readOnly: false, writeOnly: false, hasDefault: false };
    for (const b of breaches(asField, draw)) if (!b.omit) out.push({ constraint: b.constraint, pointer: itemPointer, shape: items, omit: false, apply: first(() => b.value) });
    walkShape(items, itemPointer, depth + 1, draw, out, first);
    return;
  }
  if (shape.type === 'object' && shape.properties) {
    for (const member of shape.properties) {
      if (member.readOnly || member.type === 'ref') continue;
      const memberPointer = `${pointer}/${escape(member.name)}`;
      const at = (change: (v: unknown) => unknown) => wrap((v) => {
        const object = v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Record<string, unknown>) } : {};
        const next = change(object[member.name]);
        if (next === OMIT) delete object[member.name];
        else object[member.name] = next;
        return object;
      });
      for (const b of breaches(member, draw)) out.push({ constraint: b.constraint, pointer: memberPointer, shape: member, omit: b.omit === true, apply: at(() => (b.omit ? OMIT : b.value)) });
      walkShape(member, memberPointer, depth + 1, draw, out, at);
    }
  }
}

const OMIT = Symbol('omit');
