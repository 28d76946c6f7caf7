/**
 * Nested collections from nested paths: `GET /customers/{customer_id}/orders` answering a page
 * of orders is the list of one customer's orders, and `POST` there the create of an order of
 * that customer (docs/format.md "Path parameters, nested collections and singletons"). The
 * format reaches a parent through a ref field of the child, so a path is read as nested only
 * where the child's schema has the member that holds the parent's id: the path parameter's
 * own name (`customer_id`), or the parent's name with `_id`/`Id` (`customerId`), a string or
 * an integer. That member becomes a ref to the parent (its values are the parent's ids), and
 * the parameter is declared as binding it. Elsewhere the operation stays an action.
 */
import type { Field, Resource } from '../../spec/model.ts';
import { IMPORT_CODES } from '../codes.ts';
import { report, type ImportContext } from './context.ts';
import type { Operation } from './resources.ts';

export interface Nested {
  /** The parent resource, the path parameter naming its record, and the child's field holding it. */
  readonly parent: string;
  readonly param: string;
  readonly field: string;
}

const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, '');

/** `pets` names `pet`, `special-events` names `specialEvent` (as endpoints.ts reads segments). */
function names(segment: string, name: string): boolean {
  const s = norm(segment);
  const n = norm(name);
  return s === n || s === `${n}s` || s === `${n}es` || (n.endsWith('y') && s === `${n.slice(0, -1)}ies`);
}

/**
 * The nesting of a collection path `/…/<parents>/{p}/<children>` whose operation carries
 * records of `child` (the resource its bodies name), where `child` has the field holding the
 * parent's id.
 */
export function nestedOf(path: string, resources: readonly Resource[], child: Resource | undefined): Nested | undefined {
  if (!child) return undefined;
  const segments = path.split('/').filter(Boolean);
  const n = segments.length;
  if (n < 3 || !/^\{[^}]+\}$/.test(segments[n - 2]) || segments[n - 1].startsWith('{') || segments[n - 3].startsWith('{')) return undefined;
  if (!names(segments[n - 1], child.name)) return undefined;
  const parent = resources.find((r) => r !== child && r.id !== undefined && names(segments[n - 3], r.name));
  if (!parent) return undefined;
  const param = segments[n - 2].slice(1, -1);
  const idType = parent.fields.find((f) => f.name === parent.id!.field)?.type;
  const field = child.fields.find((f) => (norm(f.name) === norm(param) || norm(f.name) === `${norm(parent.name)}id`) && (f.type === 'string' || f.type === 'integer') && (idType === undefined || f.type === idType));
  return field ? { parent: parent.name, param, field: field.name } : undefined;
}

/** The standard operation a nested collection path can hold: its list (a page of the child) or its create. */
export function nestedOperation(op: Operation, success: { readonly array: boolean } | undefined, takesChild: boolean): 'list' | 'create' | undefined {
  if (op.method === 'get' && success?.array) return 'list';
  if (op.method === 'post' && takesChild) return 'create';
  return undefined;
}

/** Each field that holds a parent's id, as a ref to the parent (reported where the path says so). */
export function asRefs(ctx: ImportContext, resources: readonly Resource[], nestings: readonly (Nested & { readonly child: string; readonly op: Operation })[]): Resource[] {
  return resources.map((r) => {
    const mine = nestings.filter((n) => n.child === r.name);
    if (!mine.length) return r;
    for (const n of mine) report(ctx, IMPORT_CODES.nestedPath, { method: n.op.method.toUpperCase(), path: n.op.path, child: r.name, parent: n.parent, field: n.field }, n.op.pointer);
    return { ...r, fields: r.fields.map((f): Field => {
      const n = mine.find((x) => x.field === f.name);
      if (!n) return f;
      const { format: _f, pattern: _p, minLength: _a, maxLength: _b, minimum: _c, maximum: _d, enum: _e, ...rest } = f;
      return { ...rest, type: 'ref', resource: n.parent };
    }) };
  });
}
