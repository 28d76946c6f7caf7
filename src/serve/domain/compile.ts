/**
 * Domain rules compiled once, at start-up: every CEL expression of the spec parsed in the
 * environment of its place (src/spec/domain/cel.ts), every write's guards, counts and
 * effects resolved to the resources and fields they name. The per-request work is then
 * evaluation alone (./step.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { Endpoint, Expr, Field, RecordRule, RefDeletion, Resource, Spec, UniqueRule, WriteRules } from '../../spec/model.ts';
import { celEnvironment, celErrorOf, itemRefTargets, refsReadBy, refTargets } from '../../spec/domain/cel.ts';
import { managedFields, setsOn } from '../../spec/domain/managed.ts';
import { SetupError } from '../errors.ts';
import { compileClosure, FALLBACK, type Closure } from './closure.ts';

/** A compiled expression. Evaluation that errs (a member it reads is absent) gives `undefined`. */
export interface Program {
  readonly source: string;
  run(vars: Record<string, unknown>): unknown;
}

export interface CompiledCount {
  readonly name: string;
  readonly resource: string;
  readonly where: readonly ({ readonly field: string; readonly program: Program } | { readonly field: string; readonly values: readonly (string | number | boolean | null)[] })[];
}

export interface CompiledEffect {
  /** The ref field whose record it changes; absent: the record itself. */
  readonly ref?: string;
  /** The resource it changes. */
  readonly target: Resource;
  readonly set: readonly { readonly field: Field; readonly program: Program }[];
  readonly increment: readonly { readonly field: Field; readonly by: number }[];
}

export interface CompiledGuard {
  readonly program: Program;
  readonly error: string;
  readonly message?: string;
  /** A guard checked on each item of an array field, with the records the item's refs point to. */
  readonly each?: { readonly field: string; readonly refs: ReadonlyMap<string, Resource> };
}

export interface CompiledWrite {
  /** The ref fields whose records the write reads (`refs.<field>` in any of its expressions, or an effect's `ref`): no other is read. */
  readonly refsRead: ReadonlySet<string>;
  /**
   * The variables its expressions name (`self`, `old`, `request`, `principal`, `refs`, `now`):
   * a request builds only these. Read from the sources as words not after a dot, so a word in a
   * string literal counts too: more may be built than are read, never fewer.
   */
  readonly uses: ReadonlySet<string>;
  /** Whether a count's condition reads `refs`: if none does, the counts are read with the refs, in one round. */
  readonly countsReadRefs: boolean;
  /**
   * The fields of `self` and `old` its expressions read (`self.member`), which are all a
   * request converts to CEL values; undefined when one reads the record whole (passes it on,
   * indexes it, names it in a string).
   */
  readonly selfFields: readonly Field[] | undefined;
  readonly oldFields: readonly Field[] | undefined;
  /** Likewise per ref field, the fields of its record read (`refs.book.available`); a ref absent here is converted whole. */
  readonly refFields: ReadonlyMap<string, readonly Field[]>;
  readonly counts: readonly CompiledCount[];
  readonly guards: readonly CompiledGuard[];
  readonly effects: readonly CompiledEffect[];
}

export interface CompiledRule {
  readonly program: Program;
  readonly error: string;
  readonly message?: string;
  readonly field?: string;
}

export interface CompiledResource {
  readonly resource: Resource;
  readonly rules: readonly CompiledRule[];
  /** `fields`: those of the record a computed field's expression reads (undefined: all of them). */
  readonly managed: readonly { readonly field: Field; readonly source: NonNullable<Field['managed']>; readonly program?: Program; readonly fields?: readonly Field[] }[];
  /**
   * The managed fields a create, and a change, sets (src/spec/domain/managed.ts setsOn), in
   * field order: a write passes only these to applyManaged, and a change that sets none (a
   * loan's transition: its managed fields are set on create) skips it.
   */
  readonly managedOn: { readonly create: readonly Field[]; readonly change: readonly Field[] };
  /** The fields of the record its rules read (undefined: all of them): the ones converted to CEL values. */
  readonly ruleFields: readonly Field[] | undefined;
  readonly unique: readonly UniqueRule[];
  readonly onCreate?: CompiledWrite;
  readonly onUpdate?: CompiledWrite;
  readonly onDelete?: CompiledWrite;
  readonly transitions: ReadonlyMap<string, CompiledWrite>;
  readonly actions: ReadonlyMap<string, CompiledWrite>;
  /** The ref fields of other resources that point here and say what a delete does to them. */
  readonly referrers: readonly { readonly resource: Resource; readonly field: Field; readonly behaviour: RefDeletion }[];
  /** The resources its ref fields point to, by field. */
  readonly refs: ReadonlyMap<string, Resource>;
}

export interface CompiledDomain {
  readonly byResource: ReadonlyMap<string, CompiledResource>;
}

function program(env: Environment, expr: Expr): Program {
  let parsed: (vars: Record<string, unknown>) => unknown;
  try {
    parsed = env.parse(expr.source) as unknown as (vars: Record<string, unknown>) => unknown;
  } catch (error) {
    throw new SetupError(`the CEL expression at ${expr.pointer} does not parse: ${celErrorOf(error).message} (svcspec check names its place)`);
  }
  const cel = (vars: Record<string, unknown>): unknown => {
    try {
      return parsed(vars);
    } catch {
      // An absent member, a division by zero: the expression has no value (docs/format.md).
      return undefined;
    }
  };
  const closure = closureOf(env, expr.source);
  if (!closure) return { source: expr.source, run: cel };
  return {
    source: expr.source,
    run(vars) {
      const value = closure(vars);
      return value === FALLBACK ? cel(vars) : value;
    },
  };
}

/**
 * The closure of a simple expression (./closure.ts), from a parse of its own, type-checked
 * statically: the evaluator's own parse is left as it was (it type-checks on its first run,
 * in its evaluation mode). SVCSPEC_CEL_CLOSURES=0 turns the fast path off (to measure it).
 */
function closureOf(env: Environment, source: string): Closure | undefined {
  if (process.env.SVCSPEC_CEL_CLOSURES === '0') return undefined;
  const parsed = env.parse(source) as unknown as { check(): { valid: boolean }; ast: unknown };
  if (!parsed.check().valid) return undefined;
  return compileClosure(parsed.ast, (start, end) => {
    const part = env.check(source.slice(start, end));
    return part.valid ? part.type : undefined;
  });
}

/** `.name`, not called: `self.all(…)` is a macro over the record, which reads it whole. */
const MEMBER = String.raw`\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_]|\s*\()`;

/** The fields of a record variable the sources read; undefined when one reads it whole. */
function fieldsRead(sources: readonly string[], variable: string): ReadonlySet<string> | undefined {
  const out = new Set<string>();
  for (const src of sources) {
    for (const use of src.matchAll(new RegExp(`(?<![\\w.])${variable}(?![\\w])`, 'g'))) {
      const member = new RegExp(`^${MEMBER}`).exec(src.slice((use.index ?? 0) + variable.length));
      if (!member) return undefined;
      out.add(member[1] as string);
    }
  }
  return out;
}

/** The fields of a resource by these names; undefined (all of them) for undefined. */
function onlyFields(resource: Resource, names: ReadonlySet<string> | undefined): readonly Field[] | undefined {
  return names && resource.fields.filter((f) => names.has(f.name));
}

/** Per ref field, the fields of its record the sources read (`refs.book.available`); a ref read whole is left out. */
function refFieldsRead(sources: readonly string[], refs: readonly string[]): ReadonlyMap<string, ReadonlySet<string>> {
  const out = new Map<string, Set<string>>(refs.map((r) => [r, new Set<string>()]));
  for (const src of sources) {
    for (const use of src.matchAll(/(?<![\w.])refs(?![\w])/g)) {
      const path = new RegExp(`^${MEMBER}(?:${MEMBER})?`).exec(src.slice((use.index ?? 0) + 'refs'.length));
      // `refs` whole, or `refs.x` not followed by a member: every ref it may name is read whole.
      if (!path?.[2]) {
        if (path) out.delete(path[1] as string);
        else out.clear();
        if (!path) return out;
        continue;
      }
      out.get(path[1] as string)?.add(path[2]);
    }
  }
  return out;
}

/** The variables of a write's expressions that a request builds only when they are named. */
const VARIABLES = ['self', 'old', 'request', 'principal', 'refs', 'now'] as const;

function compileWrite(spec: Spec, resource: Resource, rules: WriteRules, requestFields?: readonly Field[]): CompiledWrite {
  const env = celEnvironment(spec, resource, 'write', { rules, ...(requestFields ? { requestFields } : {}) });
  const refs = refTargets(spec, resource);
  const sources = [...rules.counts.flatMap((c) => c.where.flatMap((w) => ('expr' in w ? [w.expr.source] : []))), ...rules.guards.map((g) => g.expr.source), ...rules.effects.flatMap((e) => e.set.map((x) => x.expr.source))];
  const named = sources.map((src) => refsReadBy(src));
  const refsRead = new Set([...refs.keys()].filter((f) => rules.effects.some((e) => e.ref === f) || named.some((n) => n.has(f) || n.has('*'))));
  const countSources = rules.counts.flatMap((c) => c.where.flatMap((w) => ('expr' in w ? [w.expr.source] : [])));
  return {
    refsRead,
    uses: new Set(sources.flatMap((src) => VARIABLES.filter((v) => new RegExp(`(?<![\\w.])${v}(?![\\w])`).test(src)))),
    countsReadRefs: countSources.some((src) => /(?<![\w.])refs(?![\w])/.test(src)),
    selfFields: onlyFields(resource, fieldsRead(sources, 'self')),
    oldFields: onlyFields(resource, fieldsRead(sources, 'old')),
    refFields: new Map([...refFieldsRead(sources, [...refsRead])].flatMap(([ref, names]) => {
      const target = refs.get(ref);
      return target ? [[ref, target.fields.filter((f) => names.has(f.name))] as const] : [];
    })),
    counts: rules.counts.map((c) => ({
      name: c.name,
      resource: c.resource,
      where: c.where.map((w) => ('expr' in w ? { field: w.field, program: program(env, w.expr) } : { field: w.field, values: w.values })),
    })),
    guards: rules.guards.map((g): CompiledGuard => {
      const base = { error: g.error, ...(g.message !== undefined ? { message: g.message } : {}) };
      const field = g.each !== undefined ? resource.fields.find((f) => f.name === g.each) : undefined;
      // check refuses such a spec (guard-each-not-array); a guard quietly checked once instead would hold where it should refuse.
      if (g.each !== undefined && (field?.type !== 'array' || field.items?.type !== 'object')) throw new SetupError(`the guard at ${g.pointer} is checked on each item of '${g.each}', which is not an array of objects of '${resource.name}' (svcspec check names its place)`);
      if (!field) return { program: program(env, g.expr), ...base };
      const itemEnv = celEnvironment(spec, resource, 'write', { rules, ...(requestFields ? { requestFields } : {}), each: field });
      return { program: program(itemEnv, g.expr), ...base, each: { field: field.name, refs: itemRefTargets(spec, field) } };
    }),
    effects: rules.effects.flatMap((e): CompiledEffect[] => {
      const target = e.ref === undefined ? resource : refs.get(e.ref);
      if (!target) return [];
      const fieldOf = (name: string) => target.fields.find((f) => f.name === name);
      return [{
        ...(e.ref !== undefined ? { ref: e.ref } : {}),
        target,
        set: e.set.flatMap((s) => {
          const field = fieldOf(s.field);
          return field ? [{ field, program: program(env, s.expr) }] : [];
        }),
        increment: e.increment.flatMap((i) => {
          const field = fieldOf(i.field);
          return field ? [{ field, by: i.by }] : [];
        }),
      }];
    }),
  };
}

function compileRules(env: () => Environment, rules: readonly RecordRule[]): CompiledRule[] {
  return rules.map((r) => ({ program: program(env(), r.expr), error: r.error, ...(r.message !== undefined ? { message: r.message } : {}), ...(r.field !== undefined ? { field: r.field } : {}) }));
}

/** The fields an action's request carries: its own shape, else the resource's. */
function actionRequestFields(endpoint: Endpoint, resource: Resource): readonly Field[] {
  return endpoint.request.kind === 'shape' ? endpoint.request.fields : resource.fields;
}

export function compileDomain(spec: Spec): CompiledDomain {
  const byResource = new Map<string, CompiledResource>();
  for (const resource of spec.resources) {
    // Made on the first expression: a resource without rules or computed fields never loads the evaluator.
    let recordEnv: Environment | undefined;
    const record = () => (recordEnv ??= celEnvironment(spec, resource, 'record'));
    const machine = spec.states.find((m) => m.resource === resource.name);
    const transitions = new Map<string, CompiledWrite>();
    for (const t of machine?.transitions ?? []) if (t.rules) transitions.set(t.name, compileWrite(spec, resource, t.rules));
    const actions = new Map<string, CompiledWrite>();
    for (const e of spec.endpoints) {
      if (e.resource === resource.name && e.action?.rules) actions.set(e.id, compileWrite(spec, resource, e.action.rules, actionRequestFields(e, resource)));
    }
    const referrers = spec.resources.flatMap((other) => other.fields.filter((f) => f.type === 'ref' && f.resource === resource.name && f.onDelete).map((field) => ({ resource: other, field, behaviour: field.onDelete as RefDeletion })));
    byResource.set(resource.name, {
      resource,
      rules: compileRules(record, resource.rules),
      managed: managedFields(resource.fields).map((f) => ({ field: f, source: f.managed, ...(f.managed.kind === 'expr' ? { program: program(record(), f.managed.expr), fields: onlyFields(resource, fieldsRead([f.managed.expr.source], 'self')) } : {}) })),
      managedOn: { create: managedFields(resource.fields).filter((f) => setsOn(f.managed, 'create')), change: managedFields(resource.fields).filter((f) => setsOn(f.managed, 'change')) },
      ruleFields: onlyFields(resource, fieldsRead(resource.rules.map((r) => r.expr.source), 'self')),
      unique: resource.unique,
      ...(resource.onCreate ? { onCreate: compileWrite(spec, resource, resource.onCreate) } : {}),
      ...(resource.onUpdate ? { onUpdate: compileWrite(spec, resource, resource.onUpdate) } : {}),
      ...(resource.onDelete ? { onDelete: compileWrite(spec, resource, resource.onDelete) } : {}),
      transitions,
      actions,
      referrers,
      refs: refTargets(spec, resource),
    });
  }
  return { byResource };
}

/** Whether writes of a resource need a domain step at all (the fast path when none does). */
export function needsStep(c: CompiledResource, write: 'create' | 'change' | 'delete'): boolean {
  if (write === 'delete') return c.onDelete !== undefined || c.referrers.length > 0;
  if (c.rules.length || c.managed.length) return true;
  return write === 'create' && c.onCreate !== undefined;
}
