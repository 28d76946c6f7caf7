/**
 * Whether a JSON value fits a field of the spec: its type, and the constraints the format
 * declares (enum, bounds, lengths, pattern, items). A request is held to all of them; a
 * response to its type and enum (what it sends must be a value the spec allows).
 * Formats (email, date-time, …) are left to the service: the proxy reports only what
 * it can state for certain.
 */
import type { Field, Shape } from '../../spec/model.ts';
import { fitsType, typeNoun } from '../../spec/value-type.ts';

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface ValueProblem {
  readonly at: string;
  readonly message: string;
  readonly pointer: string;
  readonly text: string;
}

/** No problem: shared, never added to (callers spread it). */
const NONE: readonly ValueProblem[] = Object.freeze([]);

const patterns = new Map<string, RegExp | null>();
function compiled(pattern: string): RegExp | null {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    patterns.set(pattern, re);
  }
  return re;
}

/** Type first; the constraints only with `full` (a request's value). Refs accept an id, or an embedded record where `expanded`. */
export function valueProblems(s: Shape, v: unknown, at: string, label: string, full: boolean, expanded = false, patch = false): readonly ValueProblem[] {
  const p = (message: string, text: string) => [{ at, message: `${at} ${message}`, pointer: s.pointer, text: `${label}: ${text}` }];
  // Any value is null too (JSON Schema's `{}`).
  if (v === null) return s.nullable || s.type === 'any' ? [] : p('is null, which it does not allow', 'not nullable');
  if (!fitsType(s, v, expanded)) return p(`is ${JSON.stringify(v)?.slice(0, 60)}, not ${typeNoun(s)}`, `type ${s.type}`);
  if (s.enum && !s.enum.some((e) => e === v)) return p(`is ${JSON.stringify(v)}, not one of ${s.enum.map((x) => JSON.stringify(x)).join(', ')}`, `enum [${s.enum.join(', ')}]`);
  // An answer's scalar of the right type (most of what the proxy sees): nothing more to ask, nothing made.
  if (!full && s.type !== 'object' && s.type !== 'array') return NONE;
  const out: ValueProblem[] = [];
  if (full) {
    if (typeof v === 'number') {
      if (s.minimum !== undefined && v < s.minimum) out.push(...p(`is ${v}, below the minimum ${s.minimum}`, `minimum ${s.minimum}`));
      if (s.maximum !== undefined && v > s.maximum) out.push(...p(`is ${v}, above the maximum ${s.maximum}`, `maximum ${s.maximum}`));
      if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) out.push(...p(`is ${v}, not above ${s.exclusiveMinimum}`, `exclusiveMinimum ${s.exclusiveMinimum}`));
      if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) out.push(...p(`is ${v}, not below ${s.exclusiveMaximum}`, `exclusiveMaximum ${s.exclusiveMaximum}`));
    }
    if (typeof v === 'string') {
      const length = [...v].length;
      if (s.minLength !== undefined && length < s.minLength) out.push(...p(`has ${length} characters, fewer than ${s.minLength}`, `minLength ${s.minLength}`));
      if (s.maxLength !== undefined && length > s.maxLength) out.push(...p(`has ${length} characters, more than ${s.maxLength}`, `maxLength ${s.maxLength}`));
      const re = s.pattern === undefined ? null : compiled(s.pattern);
      if (re && !re.test(v)) out.push(...p(`does not match the pattern ${s.pattern}`, `pattern ${s.pattern}`));
    }
    if (Array.isArray(v)) {
      if (s.minItems !== undefined && v.length < s.minItems) out.push(...p(`has ${v.length} items, fewer than ${s.minItems}`, `minItems ${s.minItems}`));
      if (s.maxItems !== undefined && v.length > s.maxItems) out.push(...p(`has ${v.length} items, more than ${s.maxItems}`, `maxItems ${s.maxItems}`));
      if (s.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) out.push(...p('repeats an item', 'uniqueItems'));
    }
  }
  if (s.type === 'object' && s.properties && isObject(v)) out.push(...objectProblems(s.properties, v, at, label, full, { required: full && !patch, undeclared: full, patch }));
  if (s.type === 'array' && s.items && Array.isArray(v)) v.forEach((item, i) => out.push(...valueProblems(s.items as Shape, item, `${at}/${i}`, label, full)));
  return out;
}

/** The members of an object against declared fields: each declared one's value; required ones present, undeclared ones absent, where asked. */
/**
 * `patch`: a merge patch (RFC 7396 §2), at any depth: null removes a member that is not
 * required (a required one cannot be removed: the reference refuses it), and an object is
 * merged into the one it changes, so its own required members need not be sent.
 */
export function objectProblems(fields: readonly Field[], value: Record<string, unknown>, at: string, label: string, full: boolean, ask: { required: boolean; undeclared: boolean; expanded?: ReadonlySet<string>; patch?: boolean }): ValueProblem[] {
  const out: ValueProblem[] = [];
  for (const f of fields) {
    if (!(f.name in value)) {
      if (ask.required && f.required) out.push({ at: `${at}/${f.name}`, message: `${at}/${f.name} is required and absent`, pointer: f.pointer, text: `${label}.${f.name}: required` });
      continue;
    }
    const v = value[f.name];
    if (ask.patch && v === null && !f.required) continue;
    const expanded = ask.expanded?.has(f.name) ?? false;
    // An answer's scalar of its type (most members of most records): passed before its path and label are made.
    if (!full && v !== null && f.type !== 'object' && f.type !== 'array' && fitsType(f, v, expanded) && (!f.enum || f.enum.includes(v as never))) continue;
    const found = valueProblems(f, v, `${at}/${f.name}`, `${label}.${f.name}`, full, expanded, ask.patch);
    if (found.length) out.push(...found);
  }
  if (ask.undeclared) {
    const names = namesOf(fields);
    for (const name of Object.keys(value)) if (!names.has(name)) out.push({ at: `${at}/${name}`, message: `${at}/${name} is not declared`, pointer: '', text: `${label}: no member '${name}'` });
  }
  return out;
}

/** The names of a list of fields, made once per list (the spec's lists live as long as the proxy): every record of every answer is checked against them. */
const declaredNames = new WeakMap<readonly Field[], ReadonlySet<string>>();
function namesOf(fields: readonly Field[]): ReadonlySet<string> {
  let names = declaredNames.get(fields);
  if (!names) declaredNames.set(fields, (names = new Set(fields.map((f) => f.name))));
  return names;
}

/**
 * Whether an answer's object has no problem at all by `objectProblems(fields, value, …,
 * full: false, ask)`: the same reading, compiled once per list of fields into checks that
 * make no path, label or list, since most records of most answers are fine. Where it is
 * false, objectProblems says what is wrong.
 */
export function objectFits(fields: readonly Field[], value: Record<string, unknown>, ask: { required: boolean; undeclared: boolean; expanded?: ReadonlySet<string> }): boolean {
  const members = membersOf(fields);
  const expanded = ask.expanded?.size ? ask.expanded : undefined;
  for (const m of members) {
    // No JSON value is undefined: undefined is absent (a name on the object's prototype reads as present, as `in` has it, and objectProblems says what of it).
    const v = value[m.name];
    if (v === undefined && !(m.name in value)) {
      if (ask.required && m.required) return false;
      continue;
    }
    if (!m.fits(v, expanded?.has(m.name) ?? false)) return false;
  }
  if (ask.undeclared) {
    const names = namesOf(fields);
    for (const name in value) if (!names.has(name)) return false;
  }
  return true;
}

type Fits = (v: unknown, expanded: boolean) => boolean;
interface Member {
  readonly name: string;
  readonly required: boolean;
  readonly fits: Fits;
}

const compiledMembers = new WeakMap<readonly Field[], readonly Member[]>();
function membersOf(fields: readonly Field[]): readonly Member[] {
  let members = compiledMembers.get(fields);
  if (!members) compiledMembers.set(fields, (members = fields.map((f) => ({ name: f.name, required: f.required === true, fits: fitsOf(f) }))));
  return members;
}

/** A value of the shape's type (fitsType), as a check of that type alone. */
function typeOf(s: Shape): Fits {
  switch (s.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'integer':
      return (v) => Number.isInteger(v);
    case 'number':
      return (v) => typeof v === 'number';
    case 'boolean':
      return (v) => typeof v === 'boolean';
    default:
      return (v, expanded) => fitsType(s, v, expanded);
  }
}

/** `valueProblems(s, v, …, full: false, expanded)` finding nothing, as one check: null where nullable, the type, the enum, and an object's members or an array's items alike. */
function fitsOf(s: Shape): Fits {
  const nullable = s.nullable === true || s.type === 'any';
  const values = s.enum;
  const properties = s.type === 'object' && s.properties ? s.properties : undefined;
  const items = s.type === 'array' && s.items ? fitsOf(s.items) : undefined;
  const nested = { required: false, undeclared: false };
  const typed = typeOf(s);
  // A scalar's type, alone (most fields): null is no string, no number, no boolean.
  if (!nullable && !values && !properties && !items) return typed;
  return (v, expanded) => {
    if (v === null) return nullable;
    if (!typed(v, expanded)) return false;
    if (values && !values.some((e) => e === v)) return false;
    if (properties) return objectFits(properties, v as Record<string, unknown>, nested);
    if (items) {
      for (const item of v as unknown[]) if (!items(item, false)) return false;
    }
    return true;
  };
}
