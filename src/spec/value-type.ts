/**
 * Whether a JSON value has the type a shape declares: the one reading of the format's types
 * that the tester (src/conformance/shape.ts) and the proxy (src/proxy/parts/values.ts) both
 * judge answers by. A ref holds an id (text or an integer), or, where it was expanded
 * (`?expand=`), the embedded record.
 */
import type { Shape } from './model.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function fitsType(s: Shape, v: unknown, expanded = false): boolean {
  const type = typeof v;
  switch (s.type) {
    case 'string':
      return type === 'string';
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return type === 'number';
    case 'boolean':
      return type === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    case 'any':
      return true;
    default:
      return type === 'string' || Number.isInteger(v) || (expanded && isObject(v));
  }
}

/** How a value of the wrong type is named in a finding: "an id", "an integer", "a string". */
export function typeNoun(s: Shape): string {
  return s.type === 'ref' ? 'an id' : s.type === 'any' ? 'any value' : `a${/^[aeiou]/.test(s.type) ? 'n' : ''} ${s.type}`;
}
