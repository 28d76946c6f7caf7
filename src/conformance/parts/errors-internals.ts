/**
 * Part 7: an error body tells the client what it did wrong, never how the service is built.
 * A few requests that reach deep (odd ids, a body nested deep, bytes that are not UTF-8) are
 * sent, then every error answer of the run so far, whichever part's check met it, is read for
 * what must not leak (OWASP ASVS 7.4.1, CWE-209): a stack frame, a source file path, a
 * database's own message, an exception's class name.
 */
import { isPlain } from '../../spec/conventions/paths.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import type { Exchange } from '../http.ts';

/** What an internal detail looks like, each with the words a finding uses. */
export const LEAKS: readonly (readonly [RegExp, string])[] = [
  [/^\s*at .+:\d+:\d+\)?\s*$/m, 'a stack frame'],
  [/\bat (?:async )?[\w$.<>[\] ]+ \((?:file:|node:|\/|[A-Za-z]:\\)[^)]*\)/, 'a stack frame'],
  [/Traceback \(most recent call last\)|\bFile "[^"]+", line \d+/, 'a Python traceback'],
  [/\bat [\w$]+(?:\.[\w$]+)+\([\w$]+\.(?:java|kt|scala):\d+\)/, 'a JVM stack frame'],
  [/(?:^|[\s"'(=])(?:file:\/\/)?\/(?:home|usr|var|opt|srv|app|src|tmp|root|Users|workspace|work|build)\/[^\s"']+\.(?:m?[jt]sx?|cjs|py|rb|java|kt|go|php|cs|rs)\b/, 'a source file path'],
  [/[A-Za-z]:\\[^\s"']+\.(?:m?[jt]s|py|cs|java)\b/, 'a source file path'],
  [/\bnode_modules\/|node:internal\//, 'a source file path'],
  [/\bSQLITE_[A-Z]+\b|\bSQLSTATE\b|no such (?:table|column):|syntax error at or near|near "[^"]*": syntax error|\bORA-\d{5}\b|\bER_[A-Z_]{4,}\b|relation "[^"]+" does not exist|duplicate key value violates|UNIQUE constraint failed/, "the database's own message"],
  [/\b(?:TypeError|ReferenceError|RangeError|SyntaxError|EvalError|URIError|AggregateError|[A-Z][A-Za-z]*(?:Exception|Error)):\s/, "an exception's class name"],
  [/\b(?:java|javax|org\.springframework|System|Microsoft)\.[\w.]*(?:Exception|Error)\b/, "an exception's class name"],
];

/** The first internal detail an error body shows, in words, with the text that shows it. */
export function leakIn(text: string): { what: string; shown: string } | undefined {
  for (const [pattern, what] of LEAKS) {
    const m = pattern.exec(text);
    if (m) return { what, shown: m[0].trim().slice(0, 120) };
  }
  return undefined;
}

export async function checkInternals(ctx: TestContext, data: DataFactory): Promise<void> {
  try {
    await provoke(ctx, data);
  } catch (error) {
    // Over the run's wait budget: the error bodies the run has are judged without these.
    if (!(error instanceof Skip)) throw error;
  }
  const errors = ctx.client.log.filter((ex) => ex.response.status >= 400);
  const rule = ctx.spec.errors.shape ? { pointer: ctx.spec.errors.shape.pointer, text: 'the declared error shape' } : undefined;
  await ctx.check('errors', 'no-internals', `no error body of the run (${errors.length}) shows a stack trace, a source path, a database message or an exception class`, rule, async () => {
    for (const ex of errors) {
      const leak = leakIn(ex.response.text);
      if (leak) throw new Failure(`the ${ex.response.status} to ${ex.request.method} ${new URL(ex.request.url).pathname} shows ${leak.what}: ${leak.shown}`, ex);
    }
  });
}

/** Requests that reach the corners where a service's own troubles surface; their answers are judged with the rest. */
async function provoke(ctx: TestContext, data: DataFactory): Promise<Exchange[]> {
  const out: Exchange[] = [];
  const read = ctx.spec.endpoints.find((e) => e.operation === 'read' && isPlain(e) && ctx.may(ctx.main, e));
  // Of the creates, the one whose quota the run can best spare: these requests show nothing of one resource.
  const create = ctx.roomiest(ctx.spec.endpoints.filter((e) => e.operation === 'create' && isPlain(e) && ctx.may(ctx.main, e)));
  if (read) {
    for (const id of ["'%20OR%201=1--", '%25%00', 'x'.repeat(2048), '..%2F..%2Fetc%2Fpasswd', '-1', '1e309']) {
      out.push(await ctx.call('GET', read.path.replace(/\{\w+\}/, id)));
    }
  }
  if (create) {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = { a: deep };
    out.push(await ctx.call(create.method, create.path, { body: { svcspecDeep: deep } }));
    out.push(await ctx.call(create.method, create.path, { raw: { text: '{"a": "\\ud800", "b": 1e999999}', contentType: 'application/json' } }));
    out.push(await ctx.call(create.method, create.path, { raw: { text: '[1, 2', contentType: 'application/json; charset=utf-8' } }));
    // A service that took one of these made a record: removed, as every record a check made.
    const resource = ctx.resource(create.resource);
    if (resource) for (const ex of out.slice(-3)) await data.discard(resource, ex);
  }
  return out;
}
