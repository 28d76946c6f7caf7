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
import type { Field, Resource, StandardOperation } from '../../spec/model.ts';
import { IMPORT_CODES } from '../codes.ts';
import { report, type ImportContext } from './context.ts';
import { sameName } from './paths.ts';
import type { Operation } from './resources.ts';

export interface Nested {
  /** The parent resource, the path parameter naming its record, and the child's field holding it. */
  readonly parent: string;
  readonly param: string;
  readonly field: string;
  /** The child resource, whose records the path reaches. */
  readonly child: string;
  /** On an item path (`/customers/{customer_id}/orders/{order_id}`): the parameter naming the child record. */
  readonly item?: string;
}

const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, '');


const isParam = (s: string | undefined) => s !== undefined && /^\{[^}]+\}$/.test(s);

/**
 * The nesting of a collection path `/…/<parents>/{p}/<children>`, or of an item path below it
 * (`…/<children>/{c}`), whose operation carries records of `child` (the resource its bodies
 * name; on an item path without bodies, a DELETE, the resource its segment names), where the
 * child has the field holding the parent's id.
 */
export function nestedOf(path: string, resources: readonly Resource[], byBodies: Resource | undefined): Nested | undefined {
  const found = nestingOf(path, resources, byBodies);
  return found && 'field' in found ? found : undefined;
}

/**
 * A path that reads as a nested collection of `child` under `parent` (as nestedOf), whose child
 * has no member holding the parent's id (`/admin/identities/{id}/sessions`, a session embedding
 * its identity whole): the format cannot reach the parent, so it stays an action, said so.
 */
export function unboundNesting(path: string, resources: readonly Resource[], byBodies: Resource | undefined): { readonly parent: string; readonly child: string; readonly param: string } | undefined {
  const found = nestingOf(path, resources, byBodies);
  return found && !('field' in found) ? found : undefined;
}

function nestingOf(path: string, resources: readonly Resource[], byBodies: Resource | undefined): Nested | { readonly parent: string; readonly child: string; readonly param: string } | undefined {
  const all = path.split('/').filter(Boolean);
  const item = isParam(all.at(-1)) ? all.at(-1)!.slice(1, -1) : undefined;
  const segments = item === undefined ? all : all.slice(0, -1);
  const n = segments.length;
  if (n < 3 || !isParam(segments[n - 2]) || isParam(segments[n - 1]) || isParam(segments[n - 3])) return undefined;
  const child = byBodies ?? (item !== undefined ? resources.find((r) => sameName(segments[n - 1], r.name)) : undefined);
  if (!child || !sameName(segments[n - 1], child.name)) return undefined;
  const parent = resources.find((r) => r !== child && r.id !== undefined && sameName(segments[n - 3], r.name));
  if (!parent) return undefined;
  const param = segments[n - 2].slice(1, -1);
  const idType = parent.fields.find((f) => f.name === parent.id!.field)?.type;
  // The child's own id is never the field holding its parent, whatever the parameter is named (`/users/{id}/posts`: userId, not id).
  const own = child.id?.field ?? 'id';
  const field = child.fields.find((f) => f.name !== own && (norm(f.name) === norm(param) || norm(f.name) === `${norm(parent.name)}id`) && (f.type === 'string' || f.type === 'integer') && (idType === undefined || f.type === idType));
  return field ? { parent: parent.name, param, field: field.name, child: child.name, ...(item !== undefined ? { item } : {}) } : { parent: parent.name, child: child.name, param };
}

/**
 * The standard operation a nested path can hold: on the collection its list (a page of the
 * child) or its create; on an item its read, update (PATCH, or a PUT of some fields), replace
 * (a PUT of every writable field) or delete.
 */
export function nestedOperation(nested: Nested, op: Operation, success: { readonly array: boolean } | undefined, takes: boolean, whole: boolean): StandardOperation | undefined {
  if (nested.item === undefined) {
    if (op.method === 'get' && success?.array) return 'list';
    if (op.method === 'post' && takes) return 'create';
    return undefined;
  }
  if (op.method === 'get' && success && !success.array) return 'read';
  if (op.method === 'patch' && takes) return 'update';
  if (op.method === 'put' && takes) return whole ? 'replace' : 'update';
  if (op.method === 'delete') return 'delete';
  return undefined;
}

/** Each field that holds a parent's id, as a ref to the parent (reported where the path says so). */
export function asRefs(ctx: ImportContext, resources: readonly Resource[], nestings: readonly (Nested & { readonly op: Operation })[]): Resource[] {
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
