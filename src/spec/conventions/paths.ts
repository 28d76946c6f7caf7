/**
 * The path convention of the format (part 4): what each `{param}` of an endpoint's path
 * template binds, how a template is filled, and which templates collide. Serve, export
 * and the tester read these; docs/format.md "Path parameters" documents them.
 *
 *   `{id}`            the record's own id
 *   `{<field>Id}`     the ref field `<field>` of the resource, when it has one (`{memberId}`
 *                     binds `member` of a loan): the parent in a nested path
 *   `params:`         declares a binding: `{ ref: <field> }` a parent, `id` the record's own
 *                     id, or a shape (`{ type: string, format: date }`) a value of its own
 */
import type { Endpoint, ParamBinding, Resource } from '../model.ts';

/** Where a violation of a shaped path parameter is reported: `/path/<name>` (as the query's are at `/query/<name>`). */
export function pathPointer(name: string): string {
  return `/path/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** The parameter names of a template, in path order. */
export function templateParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
}

/** What an undeclared parameter binds by the convention. */
export function conventionalBinding(name: string, resource: Resource | undefined): ParamBinding {
  if (name === 'id') return { kind: 'id' };
  const m = /^(\w+)Id$/.exec(name);
  const field = m ? resource?.fields.find((f) => f.name === m[1]) : undefined;
  if (field?.type === 'ref' && field.resource) return { kind: 'parent', field: field.name, resource: field.resource };
  return { kind: 'unbound' };
}

/** The parameter that carries the record's own id, if the path has one. */
export function idParam(endpoint: Endpoint): string | undefined {
  return endpoint.params.find((p) => p.binding.kind === 'id')?.name;
}

export interface ParentParam {
  readonly name: string;
  readonly field: string;
  readonly resource: string;
}

/** The parameters that bind a parent (a ref field of the resource), in path order. */
export function parentParams(endpoint: Endpoint): ParentParam[] {
  const out: ParentParam[] = [];
  for (const p of endpoint.params) if (p.binding.kind === 'parent') out.push({ name: p.name, field: p.binding.field, resource: p.binding.resource });
  return out;
}

/** An endpoint reached through a parent (`/members/{memberId}/loans`). */
export function isNested(endpoint: Endpoint): boolean {
  return endpoint.params.some((p) => p.binding.kind === 'parent');
}

/**
 * The plain endpoint of an operation: only its own `{id}` in the path, no parent, no
 * singleton. Where the tester (or anything) needs "the" read or list of a resource, it
 * takes the plain one, as the nested and singleton ones need more than an id.
 */
export function isPlain(endpoint: Endpoint): boolean {
  return endpoint.select === undefined && endpoint.params.every((p) => p.binding.kind === 'id');
}

/** Fills a template; a parameter without a value is left as written. */
export function fillPath(path: string, values: Readonly<Record<string, string | number>>): string {
  return path.replace(/\{([^}]*)\}/g, (whole, name: string) => (name in values ? encodeURIComponent(String(values[name])) : whole));
}

/** `/members/{memberId}/loans` -> `/members/{}/loans`: the route a router sees. */
export function routeShape(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}

export type RouteClash = {
  /** `ambiguous`: equal up to parameter names; `shadow`: a literal segment where the other has a parameter. */
  readonly kind: 'ambiguous' | 'shadow';
  readonly endpoint: Endpoint;
  readonly other: Endpoint;
  /** For a shadow: the endpoint whose literal segment wins over the other's parameter. */
  readonly literal?: Endpoint;
};

/**
 * Pairs of endpoints whose templates collide. One method on one route shape is
 * endpoint-duplicate-route's; these are the others:
 *   ambiguous  `GET /loans/{id}` and `DELETE /loans/{loanId}` — one path with two names for
 *              its parameter (OpenAPI 3.1 §4.8.8: such paths MUST NOT both exist)
 *   shadow     `GET /members/me` and `GET /members/{id}` — routers take the literal first, so
 *              `me` can never be an id; fine when the literal is a declared singleton
 */
export function routeClashes(endpoints: readonly Endpoint[]): RouteClash[] {
  const out: RouteClash[] = [];
  for (let i = 0; i < endpoints.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = endpoints[i];
      const b = endpoints[j];
      if (a.path === b.path) continue;
      const sa = a.path.split('/');
      const sb = b.path.split('/');
      if (sa.length !== sb.length) continue;
      let literalA = false;
      let literalB = false;
      let differ = false;
      for (let k = 0; k < sa.length; k++) {
        const pa = /^\{[^}]*\}$/.test(sa[k]);
        const pb = /^\{[^}]*\}$/.test(sb[k]);
        if (pa && pb) continue;
        if (!pa && !pb) {
          if (sa[k] !== sb[k]) differ = true;
          continue;
        }
        if (pa) literalB = true;
        else literalA = true;
      }
      if (differ) continue;
      // One method on one route shape is endpoint-duplicate-route's finding.
      if (!literalA && !literalB) {
        if (a.method !== b.method) out.push({ kind: 'ambiguous', endpoint: a, other: b });
      } else if (literalA !== literalB && a.method === b.method) out.push({ kind: 'shadow', endpoint: a, other: b, literal: literalA ? a : b });
    }
  }
  return out;
}
