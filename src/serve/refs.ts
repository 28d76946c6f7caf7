/**
 * A body's refs (part 2, `type: ref`): where they stand in a body, the type of id each
 * holds, and whether the records they name exist and may be seen by the caller, which
 * validation (./validation.ts) checks after the body's shape.
 */
import type { Field, Shape, Spec } from '../spec/model.ts';
import type { Store, StoredRecord } from '../store/store.ts';
import type { FieldViolation } from './errors.ts';
import { isObject } from './representation.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { child } from '../spec/pointer.ts';

/** A ref holds the referenced resource's id: a whole number for sequence ids, else text (or a client id's declared type). */
export function refType(spec: Spec, resource: string | undefined): string | string[] {
  const target = spec.resources.find((r) => r.name === resource);
  return target ? idOf(target).type : ['string', 'integer'];
}

/** A ref found in a body: where it stands, the resource it names, the id as stored (text). */
export interface RefUse {
  readonly pointer: string;
  readonly resource: string;
  readonly id: string;
}

/** The refs of a body, walked by the field definitions; values of a wrong type are left to the shape check. */
export function refsIn(spec: Spec, fields: readonly Field[], body: Readonly<Record<string, unknown>>, at = ''): RefUse[] {
  const out: RefUse[] = [];
  const visit = (s: Shape, value: unknown, pointer: string): void => {
    if (value === undefined || value === null) return;
    if (s.type === 'ref') {
      const target = spec.resources.find((r) => r.name === s.resource);
      if (target && jsonTypeFits(idOf(target).type, value)) out.push({ pointer, resource: target.name, id: String(value) });
    } else if (s.type === 'array' && s.items && Array.isArray(value)) {
      value.forEach((v, i) => visit(s.items as Shape, v, child(pointer, i)));
    } else if (s.type === 'object' && s.properties && isObject(value)) {
      out.push(...refsIn(spec, s.properties, value, pointer));
    }
  };
  for (const f of fields) visit(f, body[f.name], child(at, f.name));
  return out;
}

export function holdsRef(s: Shape): boolean {
  return s.type === 'ref' || (s.items !== undefined && holdsRef(s.items)) || (s.properties ?? []).some(holdsRef);
}

function jsonTypeFits(type: 'string' | 'integer', value: unknown): boolean {
  return type === 'string' ? typeof value === 'string' : Number.isSafeInteger(value);
}

/**
 * Whether the caller may see a record (src/serve/auth/ownership.ts visibleTo). A ref to a
 * record the caller may not see is answered exactly as a ref to none (OWASP API1:2023):
 * the answer never tells one principal that another's record exists.
 */
export type Visible = (resource: string, record: StoredRecord) => boolean;

export async function missingRefs(store: Store, refs: readonly RefUse[], already: readonly FieldViolation[], visible?: Visible): Promise<FieldViolation[]> {
  const flagged = new Set(already.map((v) => v.pointer));
  const out: FieldViolation[] = [];
  const found = await Promise.all(refs.map((r) => (flagged.has(r.pointer) ? true : store.get(r.resource, r.id).then((record) => record !== undefined && (visible === undefined || visible(r.resource, record))))));
  refs.forEach((r, i) => {
    if (!found[i]) out.push({ pointer: r.pointer, message: `refers to ${r.resource} '${r.id}', which does not exist` });
  });
  return out;
}
