/**
 * Request bodies against the resource's field definitions (part 2). Validators are compiled
 * once per resource and request kind, with Ajv, on their first use; the messages are ours
 * (violations.ts). The strict reading throughout:
 *   - no type coercion: "12.5" is text, not a number;
 *   - unknown members are refused (never silently stripped), readOnly ones too, with a
 *     message saying the service sets them; writeOnly ones are accepted;
 *   - the state field is refused on every request but a transition's, naming the transitions;
 *   - a `ref` holds the id of a record that exists (checked against the store);
 *   - `limits.fields` caps strings and lists that set no maxLength / maxItems of their own;
 *   - every failing member is listed (allErrors), each with its JSON pointer.
 *
 * Request kinds:
 *   create    the writable fields, the required ones present (and the id, for client ids)
 *   replace   the same, without the id (it is in the path)
 *   update    a JSON merge patch (RFC 7396): every member optional, null removes an optional
 *             one; `whole` then checks the merged record (a nested required member removed)
 *   fields    only the listed fields; all required for a transition, else as declared
 *
 * Versions (part 9): the service compiles one set per version, from that version's view of
 * the resource (src/serve/versioning), so a field of another version is refused (saying
 * whose it is; nested ones as unknown members) and never required. compileValidators also takes a version by name (`since`/`until`, at
 * every depth); without one, every field of the resource it is given is in.
 */
import { aNoun } from '../spec/units.ts';
import type { Ajv, ValidateFunction } from 'ajv';
import type { Field, Resource, Shape, Spec } from '../spec/model.ts';
import type { Store } from '../store/store.ts';
import { holdsRef, missingRefs, refsIn, refType, type RefUse, type Visible } from './refs.ts';
import type { ServeContext } from './context.ts';
import { HttpError, type FieldViolation } from './errors.ts';
import { isObject, unseenDropped, viewOf } from './representation.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { outsideVersion, resourceAt } from '../spec/conventions/versions.ts';
import { notAnObject, violationsDetail, violationsOf } from './violations.ts';
import { validPattern } from '../spec/pattern.ts';
import { ajvModules } from '../spec/ajv.ts';


type Schema = Record<string, unknown>;
type Mode = 'full' | 'partial';

export interface BodyValidator {
  /** Shape violations (types, bounds, unknown and refused members); [] when the body is fine. */
  check(body: unknown): FieldViolation[];
  /** The refs the body holds (values of the right type only), to look up in the store. */
  refs(body: Record<string, unknown>): RefUse[];
  /** A request that may come without a body (a fields list that requires nothing). */
  readonly optionalBody: boolean;
}

export type FieldsRequired = 'all' | 'declared' | 'none';

export interface ResourceValidators {
  readonly create: BodyValidator;
  readonly replace: BodyValidator;
  /** The merge patch itself. */
  readonly update: BodyValidator;
  /** The writable part of a record after a merge patch. */
  readonly whole: BodyValidator;
  /** Only the named fields (memoized; call it at start-up). `create` also takes a client-assigned id. */
  fields(names: readonly string[], required: FieldsRequired, kind?: 'create' | 'other'): BodyValidator;
  /** The fields of the resource in this version, in declared order. */
  readonly declared: readonly Field[];
}

export interface CompileOptions {
  /** A version name; fields outside it (`since`/`until`) are left out. Undefined: every field. */
  readonly version?: string;
}

/** One Ajv per spec: formats and our keywords added once. */
export function createAjv(): Ajv {
  const { Ajv, addFormats } = ajvModules();
  const ajv = new Ajv({
    allErrors: true,
    verbose: true, // error.parentSchema carries our annotations for the wording
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    unicodeRegExp: true,
    allowUnionTypes: true,
    // 19.99 and 604865.7 are multiples of 0.01, whatever binary floating point says: the
    // quotient (60486569.99999999) is compared with a tolerance of 1e-6, found by the tester.
    multipleOfPrecision: 6,
    strict: true,
    // The schemas are built in code (below), so checking each against Ajv's meta-schema (which
    // compiles the meta-schema, ~100 ms, on first use) finds nothing; strict mode still refuses an unknown keyword.
    validateSchema: false,
    logger: false,
  });
  addFormats(ajv);
  for (const keyword of ['x-label', 'x-accepts', 'x-required', 'x-removable']) ajv.addKeyword({ keyword });
  ajv.addKeyword({
    keyword: 'refused',
    schemaType: 'string',
    errors: true,
    validate: function refused(reason: string) {
      (refused as unknown as { errors: unknown[] }).errors = [{ keyword: 'refused', message: reason, params: { reason } }];
      return false;
    },
  });
  return ajv;
}

export function fieldsIn(spec: Spec, resource: Resource, version: string | undefined): Field[] {
  if (version === undefined) return [...resource.fields];
  return [...resourceAt(spec, resource, version).fields];
}

export function compileValidators(spec: Spec, ajv: Ajv, resource: Resource, options: CompileOptions = {}): ResourceValidators {
  const declared = fieldsIn(spec, resource, options.version);
  const otherVersions = otherVersionFields(resource, declared, options.version);
  const id = idOf(resource);
  const machine = spec.states.find((m) => m.resource === resource.name);
  const limits = spec.limits.fields;
  const label = resource.name;

  const transitions = spec.endpoints.filter((e) => e.resource === resource.name && e.operation === 'transition').map((e) => `${e.method} ${e.path}`);
  const stateReason = `is the state of the ${resource.name}; it changes only through its transitions${transitions.length ? ` (${transitions.join(', ')})` : ', and none is served'}`;
  const refusals = (kind: 'create' | 'other'): Map<string, string> => {
    const m = new Map<string, string>();
    if (machine) m.set(machine.field, stateReason);
    if (id.assigned !== 'client') m.set(id.field, 'is assigned by the service; do not send it');
    else if (kind === 'other') m.set(id.field, "is the record's id, given in the path; it cannot be changed");
    return m;
  };

  const shapeOf = (s: Shape, mode: Mode): Schema => shapeSchema(s, mode, { spec, limits, ajv });
  const hasRefs = declared.some(holdsRef);
  const compile = (schema: Schema, optionalBody = false, drop?: ReadonlySet<string>): BodyValidator => {
    // Compiled on first use: start-up pays for no validator, each kind of request for its
    // own once (Ajv's code generation was a third of `serve`'s time to its first answer).
    let compiled: ValidateFunction | undefined;
    const validate = (body: unknown): boolean => (compiled ??= ajv.compile(schema))(body) as boolean;
    // `unknownFields: ignore`: a member the resource does not declare at all is dropped, not
    // refused (OpenAPI's reading of a schema that allows more); a declared one a body may not
    // carry (read-only, the state, not in an endpoint's list) is still this body's to refuse.
    const known = resource.unknownFields === 'ignore' && isObject(schema.properties)
      ? new Set([...Object.keys(schema.properties), ...declared.map((f) => f.name), id.field, ...(machine ? [machine.field] : []), ...otherVersions.keys()])
      : undefined;
    return {
      optionalBody,
      check(body) {
        if (!isObject(body)) return optionalBody && body === undefined ? [] : [notAnObject(body, aNoun(label))];
        // `readOnlyFields: ignore`: what the service sets itself is dropped, not refused (the body is this request's own).
        if (drop) for (const name of drop) delete body[name];
        if (known) for (const name of Object.keys(body)) if (!known.has(name)) delete body[name];
        return validate(body) ? [] : violationsOf(compiled!.errors ?? []);
      },
      refs: hasRefs ? (body) => refsIn(spec, declared, body) : () => [],
    };
  };

  const resourceSchema = (mode: Mode, refused: Map<string, string>, allowId: boolean, writableOnly = false): Schema => {
    const members = declared.filter((f) => !(writableOnly && (f.readOnly || refused.has(f.name))));
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const f of members) {
      const reason = refused.get(f.name) ?? (f.readOnly && !(allowId && f.name === id.field) ? 'is set by the service; do not send it' : undefined);
      if (reason) {
        properties[f.name] = { refused: reason };
        continue;
      }
      properties[f.name] = memberSchema(f, mode, shapeOf);
      const isClientId = allowId && f.name === id.field;
      if (mode === 'full' && (f.required || isClientId)) required.push(f.name);
    }
    // The state (or a service-assigned id) the fields do not declare is still refused in its own words.
    if (!writableOnly) for (const [name, reason] of refused) if (!(name in properties) && !(allowId && name === id.field)) properties[name] = { refused: reason };
    // So is a field of other versions: unknown here, but said to be another version's.
    if (!writableOnly) for (const [name, reason] of otherVersions) if (!(name in properties)) properties[name] = { refused: reason };
    if (allowId && !members.some((f) => f.name === id.field)) {
      // A client-assigned id the fields do not declare: text or a whole number, required.
      properties[id.field] = { type: id.type, ...(id.type === 'string' ? { minLength: 1 } : {}) };
      required.push(id.field);
    }
    // `unknownFields: keep`: an open record, members the fields do not declare stored as sent.
    return { type: 'object', 'x-label': label, properties, required, additionalProperties: resource.unknownFields === 'keep' };
  };

  /** With `readOnlyFields: ignore` (or `either`, which the reference serves as ignore), the members a request's schema would refuse as the service's own. */
  const ignored = (refused: Map<string, string>, allowId: boolean): ReadonlySet<string> | undefined => {
    if (resource.readOnlyFields === 'refuse') return undefined;
    const names = new Set(refused.keys());
    for (const f of declared) if (f.readOnly && !(allowId && f.name === id.field)) names.add(f.name);
    return names;
  };

  const clientId = id.assigned === 'client';
  const create = compile(resourceSchema('full', refusals('create'), clientId), false, ignored(refusals('create'), clientId));
  const replace = compile(resourceSchema('full', refusals('other'), false), false, ignored(refusals('other'), false));
  const update = compile(resourceSchema('partial', refusals('other'), false), false, ignored(refusals('other'), false));
  const whole = ignoringUnseen(compile(resourceSchema('full', refusals('other'), false, true)), resource);

  const memo = new Map<string, BodyValidator>();
  const fields = (names: readonly string[], required: FieldsRequired, kind: 'create' | 'other' = 'other'): BodyValidator => {
    const key = `${kind}\u0000${required}\u0000${names.join('\u0000')}`;
    const known = memo.get(key);
    if (known) return known;
    const refused = refusals(kind);
    const properties: Record<string, Schema> = {};
    const req: string[] = [];
    const accepts: string[] = [];
    if (kind === 'create' && clientId && !names.includes(id.field)) names = [id.field, ...names];
    for (const name of names) {
      const f = declared.find((d) => d.name === name);
      if (!f) continue; // check reports it (transition-requires-unknown-field)
      accepts.push(name);
      // The endpoint names the field explicitly, so a readOnly one is accepted here; the state and the id never.
      const reason = refused.get(name);
      if (reason) {
        properties[name] = { refused: reason };
        continue;
      }
      properties[name] = memberSchema(f, required === 'none' ? 'partial' : 'full', shapeOf);
      const isClientId = kind === 'create' && clientId && name === id.field;
      if (required === 'all' || isClientId || (required === 'declared' && f.required)) req.push(name);
    }
    const schema = { type: 'object', 'x-label': label, 'x-accepts': accepts, properties, required: req, additionalProperties: false };
    // `readOnlyFields: ignore`: what the service sets itself, and the endpoint does not name, is dropped here too.
    const own = resource.readOnlyFields !== 'refuse' ? new Set([...refused.keys(), ...declared.filter((f) => f.readOnly && !names.includes(f.name)).map((f) => f.name)]) : undefined;
    const v = compile(schema, req.length === 0, own);
    memo.set(key, v);
    return v;
  };

  return { create, replace, update, whole, fields, declared };
}

/** The fields of the resource outside this version (top level), each with the reason it is refused. */
function otherVersionFields(resource: Resource, declared: readonly Field[], version: string | undefined): Map<string, string> {
  const view = viewOf(resource);
  const all = view?.base.fields ?? resource.fields;
  const name = view?.version ?? version;
  const out = new Map<string, string>();
  if (name === undefined || all.length === declared.length) return out;
  for (const f of all) if (!declared.some((d) => d.name === f.name)) out.set(f.name, outsideVersion(f, resource.name, name));
  return out;
}

/**
 * A merged record holds the members of every version; nested ones of another version are
 * not this version's to judge (its view's objects do not declare them), so they are left
 * out before the check. Top-level ones never reach it (only the version's fields are).
 */
function ignoringUnseen(validator: BodyValidator, resource: Resource): BodyValidator {
  const drop = unseenDropped(resource);
  if (!drop) return validator;
  return { ...validator, check: (body) => validator.check(isObject(body) ? drop(body) : body) };
}

interface ShapeContext {
  readonly spec: Spec;
  readonly limits: Spec['limits']['fields'];
  readonly ajv: Ajv;
}

/** A member of an object: its shape, nullable as declared, and in a merge patch removable with null. */
function memberSchema(f: Field, mode: Mode, shapeOf: (s: Shape, mode: Mode) => Schema): Schema {
  const schema = shapeOf(f, mode);
  if (mode !== 'partial' || f.nullable) return schema;
  if (f.required) return { ...schema, 'x-required': true };
  // RFC 7396 §2: null removes the member.
  return { ...withNull(schema), 'x-removable': true };
}

function withNull(schema: Schema): Schema {
  const type = schema.type;
  // A schema of no type (any value) takes null already.
  if (type === undefined) return schema;
  const out: Schema = { ...schema, type: Array.isArray(type) ? [...new Set([...type, 'null'])] : [type, 'null'] };
  if (Array.isArray(schema.enum)) out.enum = [...new Set([...schema.enum, null])];
  return out;
}

/** The JSON Schema of a shape; keywords only where they apply to its type (a mismatch is check's finding). */
function shapeSchema(s: Shape, mode: Mode, c: ShapeContext): Schema {
  let out: Schema;
  switch (s.type) {
    case 'string':
      out = { type: 'string', ...stringKeywords(s, c) };
      break;
    case 'integer':
    case 'number':
      out = { type: s.type, ...numberKeywords(s) };
      break;
    case 'boolean':
      out = { type: 'boolean' };
      break;
    case 'any':
      // Any value, null included (a nullable adds nothing); an enum still holds (below).
      out = {};
      break;
    case 'ref':
      out = { type: refType(c.spec, s.resource) };
      break;
    case 'array':
      out = {
        type: 'array',
        // A list is replaced whole, even in a merge patch: its items are checked in full.
        ...(s.items ? { items: shapeSchema(s.items, 'full', c) } : {}),
        ...(s.minItems !== undefined ? { minItems: s.minItems } : {}),
        ...(s.maxItems !== undefined ? { maxItems: s.maxItems } : c.limits?.maxArrayItems !== undefined ? { maxItems: c.limits.maxArrayItems } : {}),
        ...(s.uniqueItems ? { uniqueItems: true } : {}),
      };
      break;
    case 'object': {
      const properties: Record<string, Schema> = {};
      const required: string[] = [];
      for (const p of s.properties ?? []) {
        properties[p.name] = p.readOnly ? { refused: 'is set by the service; do not send it' } : memberSchema(p, mode, (x, m) => shapeSchema(x, m, c));
        if (mode === 'full' && p.required && !p.readOnly) required.push(p.name);
      }
      const tokens = s.pointer.split('/');
      const label = tokens.at(-1) === 'items' ? `an item of '${tokens.at(-2)}'` : `'${tokens.at(-1)}'`;
      out = { type: 'object', 'x-label': label, properties, required, additionalProperties: s.properties === undefined };
      break;
    }
  }
  if (Array.isArray(s.enum) && s.type !== 'object' && s.type !== 'array') out.enum = [...s.enum];
  return s.nullable ? withNull(out) : out;
}

function stringKeywords(s: Shape, c: ShapeContext): Schema {
  const out: Schema = {};
  if (s.minLength !== undefined) out.minLength = s.minLength;
  if (s.maxLength !== undefined) out.maxLength = s.maxLength;
  else if (c.limits?.maxStringLength !== undefined) out.maxLength = c.limits.maxStringLength;
  if (s.pattern !== undefined && validPattern(s.pattern)) out.pattern = s.pattern;
  // An unknown format is check's finding (field-format-unknown); it constrains nothing here.
  if (s.format !== undefined && c.ajv.formats[s.format] !== undefined) out.format = s.format;
  return out;
}

function numberKeywords(s: Shape): Schema {
  const out: Schema = {};
  for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const) if (s[k] !== undefined) out[k] = s[k];
  return out;
}

// ---- at run time ----------------------------------------------------------------

/** Validators compiled once per serve context. */
const compiled = new WeakMap<ServeContext, { ajv: Ajv; byResource: Map<string, ResourceValidators> }>();

export function validatorsFor(ctx: ServeContext, resource: Resource): ResourceValidators {
  let entry = compiled.get(ctx);
  if (!entry) compiled.set(ctx, (entry = { ajv: createAjv(), byResource: new Map() }));
  let v = entry.byResource.get(resource.name);
  if (!v) entry.byResource.set(resource.name, (v = compileValidators(ctx.spec, entry.ajv, resource)));
  return v;
}

/**
 * Checks a body and the records its refs name; throws validation-failed listing every
 * violation. Returns the body as an object ({} for an absent optional body).
 */
export async function validateBody(store: Store, validator: BodyValidator, body: unknown, visible?: Visible): Promise<Record<string, unknown>> {
  const violations = validator.check(body);
  const object = isObject(body) ? body : {};
  if (isObject(body)) {
    // Most bodies name no record: no lookups, and no promise to wait for (a create's hot path).
    const refs = validator.refs(object);
    if (refs.length) violations.push(...(await missingRefs(store, refs, violations, visible)));
  }
  if (violations.length) throw validationFailed(violations);
  return object;
}

export function validationFailed(violations: readonly FieldViolation[]): HttpError {
  return new HttpError('validation-failed', { detail: violationsDetail(violations.length), errors: violations });
}

/**
 * A body of an action's own (`request: { fields }` or `response: { fields }`): the fields
 * as declared, required ones present, nothing else. Its refs are looked up like a
 * resource's. Built once per endpoint at start-up, compiled on its first use (as the
 * resources' validators are: Ajv's code generation is most of a start-up's cost).
 */
export function shapeValidator(ctx: ServeContext, fields: readonly Field[], label: string): BodyValidator {
  let entry = compiled.get(ctx);
  if (!entry) compiled.set(ctx, (entry = { ajv: createAjv(), byResource: new Map() }));
  const c: ShapeContext = { spec: ctx.spec, limits: ctx.spec.limits.fields, ajv: entry.ajv };
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const f of fields) {
    properties[f.name] = shapeSchema(f, 'full', c);
    if (f.required) required.push(f.name);
  }
  const ajv = entry.ajv;
  const schema = { type: 'object', 'x-label': label, properties, required, additionalProperties: false };
  let compiledShape: ValidateFunction | undefined;
  const hasRefs = fields.some(holdsRef);
  return {
    optionalBody: required.length === 0,
    check(body) {
      if (!isObject(body)) return required.length === 0 && body === undefined ? [] : [notAnObject(body, label)];
      const validate = (compiledShape ??= ajv.compile(schema));
      return validate(body) ? [] : violationsOf(validate.errors ?? []);
    },
    refs: hasRefs ? (body) => refsIn(ctx.spec, fields, body) : () => [],
  };
}
