import type { ErrorShape, Errors } from '../../spec/model.ts';
import { problemShape } from '../../spec/conventions/errors.ts';
import { SITUATIONS } from '../../spec/http-errors.ts';
import { child } from '../../spec/pointer.ts';
import { defined, entries, isRecord, num, str, strs } from './read.ts';

export function normalizeErrors(raw: unknown, pointer: string): Errors {
  if (!isRecord(raw)) return { catalog: [] };
  const shapePointer = child(pointer, 'shape');
  let shape: ErrorShape | undefined;
  if (raw.shape === 'problem') shape = problemShape(shapePointer);
  else if (isRecord(raw.shape)) {
    const m = isRecord(raw.shape.members) ? raw.shape.members : {};
    shape = {
      kind: 'custom',
      mediaType: str(raw.shape.mediaType) ?? 'application/json',
      members: defined({
        code: str(m.code), title: str(m.title), status: str(m.status), detail: str(m.detail),
        errors: str(m.errors), type: str(m.type), instance: str(m.instance),
      }),
      pointer: shapePointer,
    };
  }
  return defined({
    shape,
    catalog: entries(raw.catalog).map(([code, value]) => {
      const e = isRecord(value) ? value : {};
      const stated = Array.isArray(e.for) ? strs(e.for) : str(e.for) !== undefined ? [str(e.for) as string] : undefined;
      const situations = stated ?? (SITUATIONS.includes(code) ? [code] : []);
      return defined({ code, status: num(e.status) ?? 0, title: str(e.title) ?? '', when: str(e.when), situations, raisedBy: e.raisedBy === 'implementation' ? 'implementation' as const : undefined, pointer: child(pointer, 'catalog', code) });
    }),
  });
}
