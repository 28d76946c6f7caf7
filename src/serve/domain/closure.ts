/**
 * A fast path for the simplest CEL expressions: comparisons of fields and constants joined by
 * `&&`, `||` and `!` (`refs.book.available > 0`, `count.open < refs.member.maxLoans`,
 * `refs.member.status != "suspended"`, `self.member`, `!has(self.a) || self.a <= self.b`), made into plain closures over the
 * parsed and type-checked expression (cel-js's own AST). CEL stays the language: the closure
 * answers only where its answer is plainly the evaluator's, and hands every other case to the
 * evaluator (it returns FALLBACK, and the caller runs the CEL program):
 *
 *   - a member it reads is absent, or not a plain object's own member (CEL errs: "No such key");
 *     `has(x.f)` of a scalar field is answered (false when x has no own member f), not of others;
 *   - a value whose JavaScript type is not its checked CEL type (an int field holding 2.5: CEL
 *     errs on the field's type) — int is a BigInt, double a number, string, bool;
 *   - a comparison of two different checked types (`1 < 1.5`: CEL's heterogeneous numbers),
 *     or of any other type (timestamps, lists, maps, uint, bytes, null, dyn);
 *   - `&&` / `||` whose left side has no value (CEL's commutative errors: `error && false` is
 *     false), or a side that is not a bool.
 *
 * For the cases it answers, cel-js evaluates with the same JavaScript operators: `===` for
 * equality of one scalar type, `<`, `<=`, `>`, `>=` for int, double, string and bool
 * (node_modules/@marcbachmann/cel-js/lib/overloads.js). test/serve/domain-closure.test.ts
 * runs every expression both ways over the same variables.
 */

/** The closure has no answer of its own: run the CEL evaluator. */
export const FALLBACK: unique symbol = Symbol('fallback to CEL');

export type Closure = (vars: Record<string, unknown>) => unknown;

/** The part of a cel-js AST node the closure reads (lib/parser.js). */
interface Node {
  readonly op: string;
  readonly args: unknown;
  readonly checkedType?: { readonly name: string };
  /** Its place in the source, [start, end). */
  readonly start: number;
  readonly end: number;
}

/** The JavaScript type of a value of each scalar CEL type cel-js makes. */
const SCALAR: Readonly<Record<string, string>> = { int: 'bigint', double: 'number', string: 'string', bool: 'boolean' };

const COMPARE: Readonly<Record<string, (a: never, b: never) => boolean>> = {
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).op === 'string';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A closure for an expression whose AST has been type-checked (`checkedType` on its nodes), or
 * undefined when the expression has a part the fast path does not take (a call, a macro,
 * arithmetic, a list, …): those run on the evaluator alone.
 */
export function compileClosure(ast: unknown, typeOf: TypeOf): Closure | undefined {
  // A value of a scalar type only: an object or a list would be CEL's own value, not the closure's.
  return isNode(ast) && scalarType(ast, typeOf) !== undefined ? node(ast, typeOf) : undefined;
}

/**
 * The checked CEL type of a part of the expression, by its place in the source (`int`,
 * `string`, …); undefined if unknown. cel-js checks the argument of `has()` as a macro's,
 * leaving no type on it: the type of `self.a` is asked of the checker on its own.
 */
export type TypeOf = (start: number, end: number) => string | undefined;

/** Whether a node's value is a record of declared fields (`self`, `refs.book`): cel-js names their types with a `$`. */
function isRecordType(n: Node, typeOf: TypeOf): boolean {
  return typeName(n, typeOf)?.startsWith('$') === true;
}

/** A node's checked type: its own, or (the argument of `has()`, which cel-js leaves unannotated) the checker's answer for its text. */
function typeName(n: Node, typeOf: TypeOf): string | undefined {
  return n.checkedType?.name ?? typeOf(n.start, n.end);
}

function node(n: Node, typeOf: TypeOf): Closure | undefined {
  switch (n.op) {
    case 'value': {
      const value = n.args;
      const type = scalarType(n, typeOf);
      if (type === undefined || typeof value !== type) return undefined;
      return () => value;
    }
    case 'id': {
      const name = n.args;
      if (typeof name !== 'string') return undefined;
      const type = scalarType(n, typeOf);
      if (type === undefined && !isRecordType(n, typeOf)) return undefined;
      return (vars) => {
        const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
        return value === undefined || (type !== undefined ? typeof value !== type : !isPlainObject(value)) ? FALLBACK : value;
      };
    }
    case '.': {
      const [target, key] = n.args as [unknown, unknown];
      if (!isNode(target) || typeof key !== 'string') return undefined;
      const of = node(target, typeOf);
      if (!of) return undefined;
      const type = scalarType(n, typeOf);
      if (type === undefined && !isRecordType(n, typeOf)) return undefined;
      return (vars) => {
        const object = of(vars);
        if (!isPlainObject(object) || !Object.hasOwn(object, key)) return FALLBACK;
        const value = object[key];
        // An object member must be an object; a scalar its checked type's JavaScript type.
        return value === undefined || (type !== undefined ? typeof value !== type : !isPlainObject(value)) ? FALLBACK : value;
      };
    }
    case '!_': {
      const arg = n.args as unknown;
      const inner = isNode(arg) ? node(arg, typeOf) : undefined;
      if (!inner) return undefined;
      return (vars) => {
        const value = inner(vars);
        return typeof value === 'boolean' ? !value : FALLBACK;
      };
    }
    case 'call': {
      // `has(x.f)`: whether the record x has the member f (null members are left out of CEL's records).
      const [name, args] = n.args as [unknown, unknown];
      if (name !== 'has' || !Array.isArray(args) || args.length !== 1) return undefined;
      const [member] = args as unknown[];
      if (!isNode(member) || member.op !== '.') return undefined;
      const [target, key] = member.args as [unknown, unknown];
      if (!isNode(target) || typeof key !== 'string' || key in Object.prototype) return undefined;
      const of = node(target, typeOf);
      if (!of) return undefined;
      const type = scalarType(member, typeOf);
      if (type === undefined) return undefined;
      return (vars) => {
        const object = of(vars);
        if (!isPlainObject(object)) return FALLBACK;
        if (!Object.hasOwn(object, key)) return false;
        // Present: true, when it holds a value of its checked type (anything else is CEL's to judge).
        return typeof object[key] === type ? true : FALLBACK;
      };
    }
    case '&&':
    case '||': {
      const [l, r] = n.args as [unknown, unknown];
      const left = isNode(l) ? node(l, typeOf) : undefined;
      const right = isNode(r) ? node(r, typeOf) : undefined;
      if (!left || !right) return undefined;
      // The left side decides alone when it is false (&&) or true (||); else the right side is the value.
      const decides = n.op === '||';
      return (vars) => {
        const a = left(vars);
        if (typeof a !== 'boolean') return FALLBACK;
        if (a === decides) return a;
        const b = right(vars);
        return typeof b === 'boolean' ? b : FALLBACK;
      };
    }
    default: {
      const compare = COMPARE[n.op];
      if (!compare) return undefined;
      const [l, r] = n.args as [unknown, unknown];
      if (!isNode(l) || !isNode(r)) return undefined;
      // Both sides of one scalar type, as checked: no heterogeneous numbers, no dyn.
      const type = scalarType(l, typeOf);
      if (type === undefined || scalarType(r, typeOf) !== type) return undefined;
      const left = node(l, typeOf);
      const right = node(r, typeOf);
      if (!left || !right) return undefined;
      return (vars) => {
        const a = left(vars);
        if (a === FALLBACK) return FALLBACK;
        const b = right(vars);
        if (b === FALLBACK) return FALLBACK;
        // NaN: CEL's double comparisons are IEEE's too, but leave the odd case to CEL.
        if (type === 'number' && (Number.isNaN(a) || Number.isNaN(b))) return FALLBACK;
        return compare(a as never, b as never);
      };
    }
  }
}

/** The JavaScript type of a node's checked scalar type; undefined for anything else (an object, dyn, …). */
function scalarType(n: Node, typeOf: TypeOf): string | undefined {
  const name = typeName(n, typeOf);
  return name === undefined ? undefined : SCALAR[name];
}
