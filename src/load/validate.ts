/**
 * Structural validation of a raw document against the format's JSON Schema, with Ajv,
 * and the translation of Ajv's errors into our own words (Spectral's users rightly
 * disliked "must NOT have additional properties"). Alternatives (anyOf) are resolved to
 * the branch whose kind fits the value, so a finding speaks of what the author meant.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { didYouMean, diagnostic, type Diagnostic } from '../spec/diagnostics.ts';
import type { SpecSource } from '../spec/model.ts';
import { child, parsePointer } from '../spec/pointer.ts';
import { isPartName } from '../spec/parts.ts';
import { LOAD_CODES } from './codes.ts';
import { validate as generatedValidate } from './format-validator.generated.ts';
import { validationSchema } from './validation-schema.ts';
import { PAGE_MEMBER } from '../spec/format-schema/limits.ts';

type Schema = Record<string, unknown>;

let compiled: { validate: ValidateFunction; schema: Schema } | undefined;

/**
 * The validator: the code `npm run gen` generated from the format schema
 * (src/load/format-validator.generated.ts), so no schema is compiled at run time;
 * test/gen.test.ts keeps it equal to what the schema compiles to.
 */
function validator(): { validate: ValidateFunction; schema: Schema } {
  return (compiled ??= { validate: generatedValidate as unknown as ValidateFunction, schema: validationSchema() });
}

export function validateStructure(data: unknown, source: SpecSource): Diagnostic[] {
  const { validate, schema } = validator();
  if (validate(data)) return [];
  const errors = resolveAlternatives(validate.errors ?? [], schema);
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const error of errors) {
    const d = translate(error, source);
    if (!d) continue;
    const key = `${d.code}|${d.pointer}|${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // A finding inside a part is that part's (check lists it there, and the part is not complete).
    const part = d.part ?? parsePointer(d.pointer ?? '')[0];
    out.push(d.part === undefined && part !== undefined && isPartName(part) ? { ...d, part } : d);
  }
  return out;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function resolveRef(branch: Schema, root: Schema): Schema {
  const ref = branch.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return branch;
  let node: unknown = root;
  for (const token of ref.slice(2).split('/')) node = (node as Schema)[token];
  return node as Schema;
}

function fits(branch: Schema, value: unknown, root: Schema): boolean {
  const b = resolveRef(branch, root);
  if (Array.isArray(b.enum)) return b.enum.some((e) => jsonType(e) === jsonType(value) || (typeof e === 'string' && typeof value === 'string'));
  if (b.type === undefined) return true;
  const types = Array.isArray(b.type) ? b.type : [b.type];
  const t = jsonType(value);
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

function describeBranch(branch: Schema, root: Schema): string {
  const b = resolveRef(branch, root);
  if (Array.isArray(b.enum)) return b.enum.map((e) => `'${String(e)}'`).join(' or ');
  const types = Array.isArray(b.type) ? b.type : [b.type ?? 'a value'];
  return types.map(article).join(' or ');
}

/**
 * Among alternatives that are all maps (`rate: { none: … }` or `rate: { limit, … }`), the
 * ones that know some key of the value; where none does, the one with the most keys (so a
 * misspelled key is reported as unknown in the branch the author most likely meant).
 */
function byKeys(branches: Schema[], fitting: number[], value: unknown, root: Schema): number[] {
  if (fitting.length < 2 || value === null || typeof value !== 'object' || Array.isArray(value)) return fitting;
  const keysOf = (i: number) => Object.keys((resolveRef(branches[i], root).properties as Schema | undefined) ?? {});
  if (fitting.some((i) => resolveRef(branches[i], root).type !== 'object')) return fitting;
  const given = Object.keys(value);
  const knowing = fitting.filter((i) => given.some((k) => keysOf(i).includes(k)));
  if (knowing.length) return knowing;
  return [fitting.reduce((a, b) => (keysOf(b).length > keysOf(a).length ? b : a))];
}

/**
 * Drops the `anyOf` wrappers, the `if` wrappers and the errors of alternatives whose kind
 * does not fit the value. Where no alternative fits, one `type` error names them all.
 */
function resolveAlternatives(errors: ErrorObject[], root: Schema): ErrorObject[] {
  const drop = new Set<ErrorObject>();
  const add: ErrorObject[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') drop.add(error);
    if (error.keyword !== 'anyOf') continue;
    drop.add(error);
    const branches = error.schema as Schema[];
    const fitting = byKeys(branches, branches.map((b, i) => (fits(b, error.data, root) ? i : -1)).filter((i) => i >= 0), error.data, root);
    const sameLevel = errors.filter((e) => e !== error && e.instancePath === error.instancePath && e.schemaPath.startsWith(`${error.schemaPath}/`));
    if (fitting.length === 0) {
      for (const e of sameLevel) drop.add(e);
      add.push({ ...error, keyword: 'type', params: { type: branches.map((b) => describeBranch(b, root)).join(' or '), described: true } });
      continue;
    }
    for (const e of sameLevel) {
      const index = Number(e.schemaPath.slice(error.schemaPath.length + 1).split('/')[0]);
      if (!fitting.includes(index)) drop.add(e);
    }
  }
  return [...errors.filter((e) => !drop.has(e)), ...add];
}

function where(pointer: string): string {
  const tokens = parsePointer(pointer);
  return tokens.length === 0 ? 'the document' : tokens.join('.');
}

function article(type: unknown): string {
  switch (type) {
    case 'object': return 'a map';
    case 'array': return 'a list';
    case 'string': return 'text';
    case 'integer': return 'a whole number';
    case 'number': return 'a number';
    case 'boolean': return 'true or false';
    case 'null': return 'empty';
    default: return String(type);
  }
}

const PATTERN_HINTS: Record<string, string> = {
  '^[0-9]+(ms|s|m|h|d)$': 'must be a duration such as 500ms, 30s, 5m, 1h or 1d',
  '^[0-9]+(B|KB|KiB|MB|MiB)$': 'must be a size such as 512B, 64KiB or 1MiB',
  '^[A-Za-z][A-Za-z0-9_-]*$': 'must start with a letter and hold only letters, digits, - and _',
  '^[A-Za-z_$@][A-Za-z0-9_-]*$': 'must start with a letter, _, $ or @ and hold only letters, digits, - and _',
  '^[a-z0-9][a-z0-9_-]*$': 'must be a lower-case path segment (letters, digits, - and _)',
  '^[a-z][a-z0-9-]*$': 'must be kebab-case (lower-case letters, digits and -)',
  '^/': "must start with '/'",
  '^[1-5][0-9][0-9]$': 'must be an HTTP status code',
  '^[A-Za-z][A-Za-z0-9_.-]*$': 'must start with a letter and hold only letters, digits, ., - and _',
  '^/.*\\{version\\}': "must start with '/' and hold '{version}'",
  [PAGE_MEMBER]: "must be a member's name, or a JSON Pointer to one inside another (RFC 6901: '/meta/next_page', each '/' followed by a name, '~' written '~0' and '/' '~1')",
};

function translate(error: ErrorObject, source: SpecSource): Diagnostic | undefined {
  const p = error.instancePath;
  const at = { pointer: p, location: source.locate(p) };
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys(((error.parentSchema as Schema | undefined)?.properties as Schema | undefined) ?? {});
      const kp = child(p, key);
      return diagnostic(LOAD_CODES.unknownKey, { key, where: where(p), hint: didYouMean(key, known) || (known.length ? ` Known keys here: ${known.join(', ')}.` : '') }, { pointer: kp, location: source.locateKey(kp) });
    }
    case 'required':
      return diagnostic(LOAD_CODES.missingKey, { key: String(params.missingProperty), where: where(p) }, at);
    case 'type': {
      const expected = params.described ? String(params.type) : String(params.type).split(',').map(article).join(' or ');
      return diagnostic(LOAD_CODES.wrongType, { where: where(p), expected, actual: article(jsonType(error.data)) }, at);
    }
    case 'enum':
    case 'const': {
      const allowed = (error.keyword === 'enum' ? (params.allowedValues as unknown[]) : [params.allowedValue]).map(String);
      const value = String(error.data);
      return diagnostic(LOAD_CODES.valueNotAllowed, { where: where(p), allowed: allowed.map((a) => `'${a}'`).join(', '), value, hint: didYouMean(value, allowed) }, at);
    }
    case 'propertyNames':
      return undefined; // reported through the nested `pattern` error with its propertyName
    case 'pattern': {
      const hint = PATTERN_HINTS[String(params.pattern)] ?? `must match ${String(params.pattern)}`;
      if (error.propertyName !== undefined) {
        const kp = child(p, error.propertyName);
        return diagnostic(LOAD_CODES.invalidValue, { where: `The name '${error.propertyName}' in ${where(p)}`, problem: hint }, { pointer: kp, location: source.locateKey(kp) });
      }
      return diagnostic(LOAD_CODES.invalidValue, { where: `${where(p)} ('${String(error.data)}')`, problem: hint }, at);
    }
    case 'format':
      return diagnostic(LOAD_CODES.invalidValue, { where: `${where(p)} ('${String(error.data)}')`, problem: `is not a valid ${String(params.format)}${params.format === 'date' ? ' (YYYY-MM-DD)' : ''}` }, at);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const words = { minimum: 'at least', maximum: 'at most', exclusiveMinimum: 'more than', exclusiveMaximum: 'less than' } as const;
      return diagnostic(LOAD_CODES.invalidValue, { where: where(p), problem: `must be ${words[error.keyword]} ${String(params.limit)}, not ${String(error.data)}` }, at);
    }
    case 'minItems':
      return diagnostic(LOAD_CODES.invalidValue, { where: where(p), problem: `must list at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}` }, at);
    case 'maxItems':
      return diagnostic(LOAD_CODES.invalidValue, { where: where(p), problem: `must list at most ${String(params.limit)} items` }, at);
    case 'minProperties':
    case 'maxProperties':
      return diagnostic(LOAD_CODES.invalidValue, { where: where(p), problem: error.keyword === 'minProperties' ? 'must not be empty' : `must have exactly ${String(params.limit)} key` }, at);
    default:
      return diagnostic(LOAD_CODES.invalidValue, { where: where(p), problem: `breaks the format's '${error.keyword}' rule` }, at);
  }
}
