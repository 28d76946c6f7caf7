/**
 * Whether a JSON value fits the fields of an action's own shape (`response: { fields }`),
 * in the tester's words: every required member there, every member declared, each of its
 * declared type and, where declared, one of its values. Nested objects and lists are
 * checked to their type; the tester does not re-implement every keyword of the format.
 */
import type { Field, Shape } from '../spec/model.ts';
import { fitsType, typeNoun } from '../spec/value-type.ts';
import { isObject } from './expect.ts';

export function shapeProblems(fields: readonly Field[], value: unknown, at = ''): string[] {
  if (!isObject(value)) return [`${at || 'the body'} is not a JSON object`];
  const out: string[] = [];
  for (const f of fields) {
    if (!(f.name in value)) {
      if (f.required) out.push(`${at}/${f.name} is required and absent`);
      continue;
    }
    out.push(...valueProblems(f, value[f.name], `${at}/${f.name}`));
  }
  for (const name of Object.keys(value)) if (!fields.some((f) => f.name === name)) out.push(`${at}/${name} is not declared`);
  return out;
}

function valueProblems(s: Shape, v: unknown, at: string): string[] {
  // Any value is null too (JSON Schema's `{}`).
  if (v === null) return s.nullable || s.type === 'any' ? [] : [`${at} is null, which it does not allow`];
  if (!fitsType(s, v)) return [`${at} is ${JSON.stringify(v)}, not ${typeNoun(s)}`];
  if (s.enum && !s.enum.includes(v)) return [`${at} is ${JSON.stringify(v)}, not one of ${s.enum.map((x) => JSON.stringify(x)).join(', ')}`];
  if (s.type === 'object' && s.properties) return shapeProblems(s.properties, v, at);
  if (s.type === 'array' && s.items && Array.isArray(v)) return v.flatMap((item, i) => valueProblems(s.items as Shape, item, `${at}/${i}`));
  return [];
}

/**
 * A value as a service answers it: the writeOnly members of nested objects (and of objects in
 * lists) left out, since they are accepted and never returned at any depth (format.md, `writeOnly`).
 */
export function asAnswered(s: Shape, v: unknown): unknown {
  if (s.type === 'object' && s.properties && isObject(v)) {
    const hidden = new Set(s.properties.filter((f) => f.writeOnly).map((f) => f.name));
    return Object.fromEntries(Object.entries(v).filter(([k]) => !hidden.has(k)).map(([k, x]) => {
      const f = s.properties!.find((p) => p.name === k);
      return [k, f ? asAnswered(f, x) : x];
    }));
  }
  if (s.type === 'array' && s.items && Array.isArray(v)) return v.map((item) => asAnswered(s.items!, item));
  return v;
}
