/**
 * Request-body violations in our words. Ajv finds them; this module says them, the way
 * src/load/validate.ts does for spec documents: a JSON pointer into the body and a short
 * lower-case message ("must be at most 200 characters"), never Ajv's own phrasing.
 *
 * The schemas compiled in validation.ts carry a few annotations for the wording:
 *   x-label     on an object schema: what the object is ("book", "the member 'address'")
 *   x-accepts   on an object schema of a fields-list request: the fields it takes
 *   x-required  on a member schema in a merge patch: a required member, so null is refused
 *   refused     a member that must not be sent, with the reason (readOnly, the state, the id)
 */
import type { ErrorObject } from 'ajv';
import { closest } from '../spec/diagnostics.ts';
import { child } from '../spec/pointer.ts';
import type { FieldViolation } from './errors.ts';

type Schema = Record<string, unknown>;

export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** How a JSON type is named to a client. */
export function typeWords(type: string): string {
  switch (type) {
    case 'object': return 'an object';
    case 'array': return 'a list';
    case 'string': return 'text';
    case 'integer': return 'a whole number';
    case 'number': return 'a number';
    case 'boolean': return 'true or false';
    case 'null': return 'null';
    default: return type;
  }
}

/** What a value is, as a client reads it: text is quoted so "12.5" shows it was text. */
function describeValue(value: unknown): string {
  const kind = jsonKind(value);
  if (kind === 'string') return `text ('${clip(String(value))}')`;
  if (kind === 'integer' || kind === 'number' || kind === 'boolean') return String(value);
  return typeWords(kind);
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  date: 'a date (YYYY-MM-DD)',
  'date-time': 'a date and time with an offset (RFC 3339, e.g. 2026-06-01T12:00:00Z)',
  time: 'a time with an offset (HH:MM:SS+01:00)',
  email: 'an email address',
  uri: 'an absolute URI',
  'uri-reference': 'a URI reference',
  uuid: 'a UUID',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  duration: 'an ISO 8601 duration',
};

const BOUND_WORDS = { minimum: 'at least', maximum: 'at most', exclusiveMinimum: 'more than', exclusiveMaximum: 'less than' } as const;

function plural(n: unknown, one: string, many: string): string {
  return `${String(n)} ${n === 1 ? one : many}`;
}

/** One violation per Ajv error that a client should read; a wrong type hides the rest at its pointer. */
export function violationsOf(errors: readonly ErrorObject[]): FieldViolation[] {
  const wrongType = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const out: FieldViolation[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword !== 'type' && wrongType.has(error.instancePath)) continue;
    const v = translate(error);
    if (!v) continue;
    const key = `${v.pointer}\u0000${v.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

function translate(error: ErrorObject): FieldViolation | undefined {
  const p = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as Schema;
  const at = (message: string) => ({ pointer: p, message });
  switch (error.keyword) {
    case 'refused':
      return at(String(params.reason));
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      return { pointer: child(p, key), message: unknownMember(key, parent) };
    }
    case 'required':
      return { pointer: child(p, String(params.missingProperty)), message: 'is required' };
    case 'type': {
      if (error.data === null && parent['x-required']) return at('is required and cannot be removed (null removes a field in a merge patch)');
      const expected = String(params.type).split(',').filter((t) => t !== 'null').map(typeWords).join(' or ');
      const nullable = String(params.type).split(',').includes('null') && !parent['x-removable'] ? ' or null' : '';
      return at(`must be ${expected}${nullable}, not ${describeValue(error.data)}`);
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).filter((v) => v !== null);
      const near = typeof error.data === 'string' ? closest(error.data, allowed.filter((v): v is string => typeof v === 'string')) : undefined;
      return at(`must be one of ${allowed.map((v) => `'${String(v)}'`).join(', ')}, not ${describeValue(error.data)}${near ? ` (did you mean '${near}'?)` : ''}`);
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at(`must be ${BOUND_WORDS[error.keyword]} ${String(params.limit)}, not ${String(error.data)}`);
    case 'multipleOf':
      return at(`must be a multiple of ${String(params.multipleOf)}, not ${String(error.data)}`);
    case 'minLength':
      return at(Number(params.limit) === 1 ? 'must not be empty' : `must be at least ${plural(params.limit, 'character', 'characters')}`);
    case 'maxLength':
      return at(`must be at most ${plural(params.limit, 'character', 'characters')}`);
    case 'pattern':
      return at(`must match the pattern ${String(params.pattern)}, not '${clip(String(error.data))}'`);
    case 'format':
      return at(`must be ${FORMAT_WORDS[String(params.format)] ?? `a valid ${String(params.format)}`}, not '${clip(String(error.data))}'`);
    case 'minItems':
      return at(`must have at least ${plural(params.limit, 'item', 'items')}`);
    case 'maxItems':
      return at(`must have at most ${plural(params.limit, 'item', 'items')}`);
    case 'uniqueItems':
      return at(`must not repeat an item (items ${Math.min(Number(params.i), Number(params.j))} and ${Math.max(Number(params.i), Number(params.j))} are equal)`);
    case 'false schema':
      return at('is not accepted here');
    default:
      return at(`breaks the '${error.keyword}' rule of the spec`);
  }
}

function unknownMember(key: string, objectSchema: Schema): string {
  const properties = (objectSchema.properties ?? {}) as Record<string, Schema>;
  const known = Object.keys(properties).filter((k) => !('refused' in (properties[k] ?? {})));
  // One edit turns any one- or two-letter name into another: no hint for those.
  const near = key.length > 2 ? closest(key, known) : undefined;
  const hint = near ? ` (did you mean '${near}'?)` : '';
  const accepts = objectSchema['x-accepts'] as readonly string[] | undefined;
  if (accepts) return `is not accepted by this request, which takes ${accepts.length ? accepts.join(', ') : 'no fields'}${hint}`;
  return `is not a field of ${String(objectSchema['x-label'] ?? 'this object')}${hint}`;
}

/** The violation of a body that is not a JSON object at all. */
export function notAnObject(body: unknown, what: string): FieldViolation {
  if (body === undefined) return { pointer: '', message: `the request needs a body: a JSON object with the fields of ${what}` };
  return { pointer: '', message: `the body must be a JSON object with the fields of ${what}, not ${typeWords(jsonKind(body))}` };
}

/** The summary that goes with a list of violations. */
export function violationsDetail(count: number): string {
  return count === 1 ? 'One field of the request is not valid; it is listed with its JSON pointer.' : `${count} fields of the request are not valid; each is listed with its JSON pointer.`;
}
