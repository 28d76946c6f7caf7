/**
 * Part 4 at run time: path parameters declared with a shape of their own
 * (`params: { day: { type: string, format: date } }`, src/spec/conventions/paths.ts). The
 * text of the path segment is read by the shape's type, strictly (as the query is read:
 * `-?[0-9]+` for integers, JSON numbers, `true`/`false`), then held to the shape's
 * constraints with the validators of bodies; a value that does not fit is refused with
 * validation-failed at `/path/<name>`, before the handler runs. Parameters that bind a
 * record or a parent need no such check: a wrong id is simply not found.
 */
import type { preHandlerAsyncHookHandler } from 'fastify';
import { pathPointer } from '../spec/conventions/paths.ts';
import type { Endpoint, Field } from '../spec/model.ts';
import type { ServeContext } from './context.ts';
import { shapeValidator, validationFailed } from './validation.ts';

const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** The hook that checks an endpoint's shaped path parameters; undefined when it has none. */
export function pathParamsGuard(ctx: ServeContext, endpoint: Endpoint): preHandlerAsyncHookHandler | undefined {
  const shaped = endpoint.params.filter((p) => p.binding.kind === 'value');
  if (!shaped.length) return undefined;
  const fields: Field[] = shaped.map((p) => {
    const shape = p.binding.kind === 'value' ? p.binding.shape : { type: 'string' as const, pointer: p.pointer };
    return { ...shape, name: p.name, required: true, readOnly: false, writeOnly: false, hasDefault: false };
  });
  const validator = shapeValidator(ctx, fields, `the path of ${endpoint.id}`);
  return async (request) => {
    const raw = request.params as Record<string, string>;
    const values: Record<string, unknown> = {};
    const unreadable: { pointer: string; message: string }[] = [];
    for (const f of fields) {
      const text = raw[f.name] ?? '';
      const value = readAs(f.type, text);
      if (value === undefined) unreadable.push({ pointer: pathPointer(f.name), message: `must be ${f.type === 'integer' ? 'a whole number' : f.type === 'number' ? 'a number' : 'true or false'}, not '${text}'` });
      else values[f.name] = value;
    }
    const violations = unreadable.length ? unreadable : validator.check(values).map((v) => ({ ...v, pointer: `/path${v.pointer}` })) // `/<name>` of the values object;
    if (violations.length) throw validationFailed(violations);
  };
}

/** A path segment read as the shape's type; undefined where it does not read as one. */
function readAs(type: Field['type'], text: string): unknown {
  if (type === 'integer') return INTEGER.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
  if (type === 'number') return NUMBER.test(text) && Number.isFinite(Number(text)) ? Number(text) : undefined;
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : undefined;
  return text;
}
