/**
 * The closure fast path of simple CEL expressions (src/serve/domain/closure.ts) gives exactly
 * the evaluator's results: every expression of the table is evaluated both ways over the same
 * variables (present, absent, null-made-absent, of the wrong JavaScript type, int beside
 * double, strings beyond the BMP), in library.yaml's environment of a loan's create. And the
 * expressions it is meant for do take it, or the fast path would be lost without a failure.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadSpec } from '../../src/load/index.ts';
import type { Environment } from '@marcbachmann/cel-js';
import { compileClosure, FALLBACK, type TypeOf } from '../../src/serve/domain/closure.ts';
import { celEnvironment } from '../../src/spec/domain/cel.ts';

const LIBRARY = fileURLToPath(new URL('../../examples/library.yaml', import.meta.url));

async function environment() {
  const loaded = await loadSpec(LIBRARY);
  assert.ok(loaded.value);
  const loan = loaded.value.resources.find((r) => r.name === 'loan');
  assert.ok(loan?.onCreate);
  return celEnvironment(loaded.value, loan, 'write', { rules: loan.onCreate });
}

/** The checked type of a part of the source, as serve asks it (src/serve/domain/compile.ts). */
function typeOf(env: Environment, source: string): TypeOf {
  return (start, end) => {
    const part = env.check(source.slice(start, end));
    return part.valid ? part.type : undefined;
  };
}

/** Expressions the closure takes (`fast`), and ones it must leave to CEL (`cel`). */
const EXPRESSIONS: readonly { source: string; fast: boolean }[] = [
  { source: 'refs.book.available > 0', fast: true },
  { source: 'count.open < refs.member.maxLoans', fast: true },
  { source: 'refs.member.status != "suspended"', fast: true },
  { source: 'self.member', fast: true },
  { source: 'self.status == "requested"', fast: true },
  { source: 'refs.book.available >= 1 && refs.member.status == "active"', fast: true },
  { source: 'refs.book.available == 0 || count.open > 2', fast: true },
  { source: '!(refs.book.available > 0)', fast: true },
  { source: 'false && refs.member.status == "x"', fast: true },
  { source: 'refs.member.status == "x" && false', fast: true },
  { source: 'true || refs.member.status == "x"', fast: true },
  { source: 'refs.member.status == "x" || true', fast: true },
  { source: 'self.lateFee.amount > 1.5', fast: true },
  { source: 'self.lateFee.amount == 2.5', fast: true },
  { source: 'refs.book.title < "U"', fast: true },
  { source: 'refs.book.title >= refs.member.status', fast: true },
  { source: 'refs.book.available <= refs.member.maxLoans', fast: true },
  { source: 'has(refs.book.available)', fast: true },
  { source: '!has(refs.book.available) || !has(refs.member.maxLoans) || refs.book.available <= refs.member.maxLoans', fast: true },
  { source: 'has(self.lateFee.amount) && self.lateFee.amount > 0.0', fast: true },
  { source: 'true', fast: true },
  { source: '0', fast: true },
  { source: '"text"', fast: true },
  // Left to CEL: heterogeneous numbers, arithmetic, calls, macros, timestamps, records whole.
  { source: 'self.lateFee.amount > 1', fast: false },
  { source: 'refs.book.available > 0.5', fast: false },
  { source: 'refs.book.available + 1 > 2', fast: false },
  { source: 'size(refs.book.title) > 0', fast: false },
  { source: 'has(refs.book.authors)', fast: false },
  { source: 'has(self.lateFee)', fast: false },
  { source: 'self.requestedAt < now', fast: false },
  { source: 'refs.book', fast: false },
  { source: 'refs.book.authors', fast: false },
];

/** Variables as serve builds them (ints BigInt, null members left out), and as they should never be. */
const VARIABLES: readonly { name: string; vars: Record<string, unknown> }[] = [
  { name: 'present', vars: { refs: { book: { available: 3n, title: 'T', authors: ['A'] }, member: { status: 'active', maxLoans: 5n } }, count: { open: 1n }, self: { member: 7n, status: 'requested', lateFee: { amount: 2.5, currency: 'EUR' }, requestedAt: new Date(0) }, now: new Date(1000) } },
  { name: 'zero and empty', vars: { refs: { book: { available: 0n, title: '' }, member: { status: '', maxLoans: 0n } }, count: { open: 0n }, self: { member: 0n, status: '', lateFee: { amount: 0 } }, now: new Date(0) } },
  { name: 'negative and -0', vars: { refs: { book: { available: -1n, title: 'a' }, member: { status: 'b', maxLoans: -1n } }, count: { open: -2n }, self: { member: -1n, lateFee: { amount: -0 } } } },
  { name: 'absent members', vars: { refs: { book: {} }, count: {}, self: {} } },
  { name: 'absent variables', vars: {} },
  { name: 'a ref not read', vars: { refs: {}, count: { open: 1n }, self: { member: 1n } } },
  { name: 'wrong JavaScript types', vars: { refs: { book: { available: 2.5, title: 5 }, member: { status: null, maxLoans: 5 } }, count: { open: 1 }, self: { member: '7', status: 3n, lateFee: { amount: 2n } } } },
  { name: 'NaN and Infinity', vars: { refs: { book: { available: 1n } }, self: { lateFee: { amount: Number.NaN } }, count: { open: 0n } } },
  { name: 'Infinity', vars: { self: { lateFee: { amount: Number.POSITIVE_INFINITY } } } },
  { name: 'strings beyond the BMP', vars: { refs: { book: { available: 1n, title: '\u{1D7D8}' }, member: { status: '\uFF5A', maxLoans: 1n } }, count: { open: 0n }, self: { status: 'é' } } },
  { name: 'a Map and an array where records go', vars: { refs: { book: new Map([['available', 1n]]), member: ['active'] }, count: new Map([['open', 1n]]), self: { lateFee: [2.5] } } },
  { name: 'a record with a prototype', vars: { refs: Object.create({ book: { available: 1n } }), count: { open: 1n } } },
];

test('the closure gives the CEL evaluator\'s value on every expression and variables of the table', async () => {
  const env = await environment();
  for (const { source, fast } of EXPRESSIONS) {
    const checked = env.parse(source) as unknown as { check(): { valid: boolean }; ast: unknown };
    assert.ok(checked.check().valid, `${source} type-checks`);
    const closure = compileClosure(checked.ast, typeOf(env, source));
    assert.equal(closure !== undefined, fast, `${source}: ${fast ? 'takes' : 'is left to CEL by'} the fast path`);
    if (!closure) continue;
    const evaluate = env.parse(source) as unknown as (vars: Record<string, unknown>) => unknown;
    for (const { name, vars } of VARIABLES) {
      let expected: unknown;
      try {
        expected = evaluate(vars);
      } catch {
        expected = undefined;
      }
      const got = closure(vars);
      // The closure answers, or says it has no answer; it never answers otherwise than CEL.
      if (got !== FALLBACK) assert.deepEqual(got, expected, `${source} over ${name}: the closure says ${String(got)}, CEL ${String(expected)}`);
    }
  }
});

test('the closure answers the ordinary cases itself (the fast path is taken)', async () => {
  const env = await environment();
  const [present] = VARIABLES;
  for (const { source, fast } of EXPRESSIONS) {
    if (!fast) continue;
    const checked = env.parse(source) as unknown as { check(): { valid: boolean }; ast: unknown };
    checked.check();
    const closure = compileClosure(checked.ast, typeOf(env, source));
    assert.ok(closure);
    assert.notEqual(closure(present.vars), FALLBACK, `${source} is answered by its closure`);
  }
});

test('the closure leaves absent members, wrong types and heterogeneous values to CEL', async () => {
  const env = await environment();
  const closureOf = (source: string) => {
    const checked = env.parse(source) as unknown as { check(): { valid: boolean }; ast: unknown };
    checked.check();
    const closure = compileClosure(checked.ast, typeOf(env, source));
    assert.ok(closure, source);
    return closure;
  };
  assert.equal(closureOf('refs.book.available > 0')({ refs: { book: {} } }), FALLBACK);
  assert.equal(closureOf('refs.book.available > 0')({ refs: { book: { available: 2.5 } } }), FALLBACK);
  assert.equal(closureOf('refs.member.status != "suspended"')({ refs: { member: { status: null } } }), FALLBACK);
  assert.equal(closureOf('refs.member.status == "x" && false')({ refs: { member: {} } }), FALLBACK);
  // The left side decides alone: no read of the right.
  assert.equal(closureOf('false && refs.member.status == "x"')({ refs: {} }), false);
  assert.equal(closureOf('self.lateFee.amount > 1.5')({ self: { lateFee: { amount: Number.NaN } } }), FALLBACK);
});
