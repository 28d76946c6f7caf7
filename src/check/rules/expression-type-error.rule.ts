/**
 * Every CEL expression of the domain rules (rules, managed values, count conditions, guards,
 * effects), type-checked in the environment serve evaluates it in (src/spec/domain/cel.ts),
 * each finding placed at the character of the expression it concerns.
 */
import { celErrorOf, celTypeOf, type SchemaType } from '../../spec/domain/cel.ts';
import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import type { Field, Resource, Spec } from '../../spec/model.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { exprPlaces, type ExprPlace } from './domain-support.ts';

const syntax = defineDiagnostic({
  code: 'expression-syntax',
  severity: 'error',
  part: 'resources',
  message: 'The CEL expression of {where} does not parse: {reason}.',
  description: 'Rules, guards, count conditions, effects and managed values are CEL expressions (https://cel.dev). The place given is where the parser stopped. Correct the expression; `svcspec serve` refuses to start with it.',
});

const unknownName = defineDiagnostic({
  code: 'expression-unknown-name',
  severity: 'error',
  part: 'resources',
  message: "{where} reads '{name}', but {owner}.{hint}",
  description: 'An expression names a field the record does not have, a variable its place does not offer, or a count that is not declared. The variables are `self`, `now` (rules and managed values), and also `old`, `request`, `principal`, `refs` and `count` (guards, counts and effects); see docs/format.md "Domain rules". Correct the name.',
});

const typeError = defineDiagnostic({
  code: 'expression-type-error',
  severity: 'error',
  part: 'resources',
  message: 'The CEL expression of {where} does not type-check: {reason}.',
  description: 'The operands of an operator or the arguments of a function are of types it does not take (an int compared with a string, a date-time added to a number). Field types map to CEL types as docs/format.md "Domain rules" says: integer is int, number is double, a date-time is a timestamp, a date is a string.',
});

const wrongType = defineDiagnostic({
  code: 'expression-wrong-type',
  severity: 'error',
  part: 'resources',
  message: '{where} gives {actual}, but {expected} is needed.',
  description: 'A rule or a guard must give a bool (true: it holds); a managed value, an effect\'s `set` or a count condition must give a value of its field\'s type. Correct the expression or the field.',
});

/** `google.protobuf.Timestamp` as docs say it. */
function typeName(type: SchemaType): string {
  if (typeof type !== 'string') return 'an object';
  return type === 'google.protobuf.Timestamp' ? 'a timestamp' : type;
}

function fits(actual: string, expected: SchemaType, field: Field): boolean {
  if (actual === 'dyn' || expected === 'dyn' || actual === expected) return true;
  if (actual === 'null') return field.nullable === true;
  if (typeof expected !== 'string') return actual.startsWith('map');
  if (expected === 'double' && actual === 'int') return true;
  // A timestamp is written into a text field as RFC 3339 (a date for `format: date`).
  if (expected === 'string' && actual === 'google.protobuf.Timestamp') return true;
  if (expected.startsWith('list<') && actual.startsWith('list<')) return true;
  if (expected.startsWith('map') && actual.startsWith('map')) return true;
  return false;
}

/** The members a path of the expression has (`refs.member` → the member's fields), or undefined. */
function membersOf(spec: Spec, place: ExprPlace, path: readonly string[]): { owner: string; names: string[] } | undefined {
  const fieldsOf = (r: Resource) => [...r.fields.map((f) => f.name), ...(r.id && !r.fields.some((f) => f.name === r.id?.field) ? [r.id.field] : [])];
  let fields: readonly Field[] | undefined;
  let owner: string;
  let rest: readonly string[];
  const [head, ...tail] = path;
  if (head === 'self' || head === 'old') {
    if (tail.length === 0) return { owner: `'${place.resource.name}' has no field of that name`, names: fieldsOf(place.resource) };
    fields = place.resource.fields;
    owner = `'${place.resource.name}'`;
    rest = tail;
  } else if (head === 'refs' && place.kind === 'write') {
    const refs = place.resource.fields.filter((f) => f.type === 'ref');
    if (tail.length === 0) return { owner: `'${place.resource.name}' has no ref field of that name (refs: ${refs.map((f) => f.name).join(', ') || 'none'})`, names: refs.map((f) => f.name) };
    const target = spec.resources.find((r) => r.name === refs.find((f) => f.name === tail[0])?.resource);
    if (!target) return undefined;
    if (tail.length === 1) return { owner: `'${target.name}' (refs.${tail[0]}) has no field of that name`, names: fieldsOf(target) };
    fields = target.fields;
    owner = `'${target.name}'`;
    rest = tail.slice(1);
  } else if (head === 'request' && place.kind === 'write') {
    if (tail.length === 0) return { owner: 'the request has no field of that name', names: place.requestFields.map((f) => f.name) };
    fields = place.requestFields;
    owner = 'the request';
    rest = tail;
  } else if (head === 'count' && place.kind === 'write' && tail.length === 0) {
    return { owner: `no count of that name is declared here (counts: ${place.counts.join(', ') || 'none'})`, names: [...place.counts] };
  } else if (head === 'principal' && place.kind === 'write' && tail.length === 0) {
    return { owner: 'the principal has only an id and scopes', names: ['id', 'scopes'] };
  } else return undefined;
  // Down through object fields: `self.address.city`.
  for (const name of rest) {
    const f: Field | undefined = fields?.find((x) => x.name === name);
    if (!f?.properties) return undefined;
    fields = f.properties;
    owner = `'${name}'`;
  }
  return { owner: `${owner} has no field of that name`, names: (fields ?? []).map((f) => f.name) };
}

const VARIABLES = { record: ['self', 'now'], write: ['self', 'old', 'request', 'principal', 'refs', 'count', 'now'] };

function checkOne(place: ExprPlace, ctx: RuleContext): void {
  const { expr } = place;
  const part = { part: place.part };
  let result: { valid: boolean; type?: string; error?: unknown };
  try {
    result = place.env().check(expr.source) as typeof result;
  } catch (error) {
    result = { valid: false, error };
  }
  if (!result.valid) {
    const { message, offset } = celErrorOf(result.error);
    const at = { ...part, ...(offset !== undefined ? { offset } : {}) };
    const key = /^No such key: (.+)$/.exec(message);
    const variable = /^Unknown variable: (.+)$/.exec(message);
    if (variable) {
      const names = VARIABLES[place.kind];
      ctx.report(unknownName, { where: upper(place.label), name: variable[1], owner: `it is not a variable here (variables: ${names.join(', ')})`, hint: didYouMean(variable[1], names) }, expr.pointer, at);
      return;
    }
    if (key && offset !== undefined) {
      const before = /([A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*\.\s*$/.exec(expr.source.slice(0, offset));
      const path = before ? before[1].split('.').map((s) => s.trim()) : [];
      const members = path.length ? membersOf(ctx.spec, place, path) : undefined;
      ctx.report(unknownName, {
        where: upper(place.label),
        name: [...path, key[1]].join('.'),
        owner: members?.owner ?? 'it has no member of that name',
        hint: members ? didYouMean(key[1], members.names) : '',
      }, expr.pointer, at);
      return;
    }
    const parseFailure = /^(Unexpected|Expected|Invalid|Unterminated|Unknown token)/i.test(message);
    ctx.report(parseFailure ? syntax : typeError, { where: place.label, reason: message.replace(/\.$/, '') }, expr.pointer, at);
    return;
  }
  // cel-js checks no field inside has(): a misspelt one there is false for every record, silently.
  for (const m of expr.source.matchAll(/\bhas\(\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)/g)) {
    const path = m[1].split('.').map((x) => x.trim());
    const members = membersOf(ctx.spec, place, path);
    if (!members || members.names.includes(m[2])) continue;
    const offset = (m.index ?? 0) + m[0].lastIndexOf(m[2]);
    ctx.report(unknownName, { where: upper(place.label), name: [...path, m[2]].join('.'), owner: members.owner, hint: didYouMean(m[2], members.names) }, expr.pointer, { ...part, offset });
    return;
  }
  const actual = result.type ?? 'dyn';
  if (place.expected.kind === 'condition') {
    if (actual !== 'bool' && actual !== 'dyn') ctx.report(wrongType, { where: upper(place.label), actual: typeName(actual), expected: 'a bool (true: it holds)' }, expr.pointer, { ...part, offset: 0 });
    return;
  }
  if (place.expected.kind !== 'value') return;
  const { field, resource } = place.expected;
  const expected = celTypeOf(ctx.spec, field);
  if (!fits(actual, expected, field)) {
    ctx.report(wrongType, { where: upper(place.label), actual: typeName(actual), expected: `${typeName(expected)} (the type of '${resource.name}.${field.name}')` }, expr.pointer, { ...part, offset: 0 });
  }
}

function upper(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export default defineRule({
  name: 'expression-type-error',
  diagnostics: [syntax, unknownName, typeError, wrongType],
  spec(ctx) {
    for (const place of exprPlaces(ctx.spec)) checkOne(place, ctx);
  },
});
