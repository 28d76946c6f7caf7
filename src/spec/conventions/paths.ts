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
import { idParamOf } from './ids.ts';

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

/**
 * The endpoint at whose path one record of a resource is: what a created record's Location
 * names (RFC 9110 §10.2.2, §15.3.2), for serve to send and the tester to follow. Its read by
 * id, the plain one first, else the one through the fewest parents (each filled from the
 * record's ref); else its singleton read (`/me`); else the path an update, a replace or a
 * delete addresses it at, else a GET action answering the record; else none, and a create sends no Location: no path of
 * the spec names the record, and one made up (`/{plural}/{id}`) would answer 404 where the
 * spec puts it elsewhere (`/admin/identities/{id}`).
 */
export function recordAddress(endpoints: readonly Endpoint[], resource: string): Endpoint | undefined {
  let known = addresses.get(endpoints);
  if (!known) addresses.set(endpoints, (known = new Map()));
  if (known.has(resource)) return known.get(resource);
  const mine = endpoints.filter((e) => e.resource === resource);
  const reads = mine.filter((e) => e.operation === 'read');
  const byId = (list: readonly Endpoint[]) => {
    const found = list.filter((e) => e.select === undefined && fillRecordPath(e, 0, {}, true) !== undefined);
    return found.find(isPlain) ?? found.sort((a, b) => a.params.length - b.params.length)[0];
  };
  // Without a read, the path that addresses the record to change or delete it still names it
  // (a URI identifies the resource, whatever methods it allows): a GET action's first.
  const others = () => byId(mine.filter((e) => e.operation === 'update' || e.operation === 'replace' || e.operation === 'delete'))
    ?? byId(mine.filter((e) => e.method === 'GET' && e.operation === 'action' && e.action?.target === 'record' && e.action.response.kind === 'resource'));
  const address = byId(reads) ?? reads.find((e) => e.select === 'caller') ?? others();
  known.set(resource, address);
  return address;
}

/** recordAddress's answers by spec (its endpoints) and resource: a create asks on every request. */
const addresses = new WeakMap<readonly Endpoint[], Map<string, Endpoint | undefined>>();

/**
 * The path of one record at an endpoint of recordAddress: its id in the id's parameter, each
 * parent's parameter its ref (as the record holds it). undefined where a parameter cannot be
 * filled so: a ref not set, a parameter of a shape of its own. `probe`: any ref will do (the
 * question is only whether the template can be filled from a record).
 */
export function fillRecordPath(endpoint: Endpoint, id: string | number, data: Readonly<Record<string, unknown>>, probe = false): string | undefined {
  const filler = fillers.get(endpoint) ?? recordFiller(endpoint);
  return filler === null ? undefined : filler(id, data, probe);
}

type RecordFiller = (id: string | number, data: Readonly<Record<string, unknown>>, probe: boolean) => string | undefined;

/** fillRecordPath's template read once per endpoint (a create's Location asks on every request); null where no record fills it. */
const fillers = new WeakMap<Endpoint, RecordFiller | null>();

function recordFiller(endpoint: Endpoint): RecordFiller | null {
  let filler: RecordFiller | null;
  if (endpoint.select === 'caller') filler = () => endpoint.path;
  else {
    const own = idParam(endpoint) ?? idParamOf(endpoint.path);
    // The template in literal text and slots: the id, or a parent's ref field.
    const parts = endpoint.path.split(/\{([^}]*)\}/);
    const slots: ({ kind: 'id' } | { kind: 'ref'; field: string })[] = [];
    let fillable = templateParams(endpoint.path).includes(own);
    for (let i = 1; i < parts.length; i += 2) {
      const name = parts[i]!;
      const binding = endpoint.params.find((p) => p.name === name)?.binding;
      if (name === own && (binding === undefined || binding.kind === 'id' || binding.kind === 'unbound')) slots.push({ kind: 'id' });
      else if (binding?.kind === 'parent') slots.push({ kind: 'ref', field: binding.field });
      else fillable = false;
    }
    filler = !fillable ? null : (id, data, probe) => {
      let out = parts[0]!;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        const value = slot.kind === 'id' ? id : probe ? 0 : data[slot.field];
        if (typeof value !== 'string' && typeof value !== 'number') return undefined;
        out += encodeURIComponent(value) + parts[2 * i + 2]!;
      }
      return out;
    };
  }
  fillers.set(endpoint, filler);
  return filler;
}

/**
 * A path template as a pattern matching the paths it stands for, and its parameters' names in
 * order: each `{name}` one segment's worth of characters (`[^/]+`), anywhere in a segment
 * (`/items/{id}:archive`). No trailing slash: `/books/` is another URI than `/books` (RFC 3986
 * §6.2.3). The tester and the proxy read the endpoint of a request by it.
 */
export function templatePattern(template: string): { readonly re: RegExp; readonly names: readonly string[] } {
  const names: string[] = [];
  const source = template.split(/(\{[^}]*\})/).map((part) => {
    const m = /^\{([^}]*)\}$/.exec(part);
    if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    names.push(m[1]!);
    return '([^/]+)';
  }).join('');
  return { re: new RegExp(`^${source}$`), names };
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
export function routeClashes(endpoints: readonly Endpoint[]): readonly RouteClash[] {
  const known = clashesOf.get(endpoints);
  if (known) return known;
  const out: { i: number; j: number; clash: RouteClash }[] = [];
  // Only templates that can match one URL clash: the same number of segments, and at each a
  // parameter on either side or the same literal. A trie of the distinct templates finds each
  // one's candidates without comparing every pair (a spec of 1,000 resources has 5,000
  // endpoints: 12.5M pairs, ~6 s, where the trie takes milliseconds).
  const templates = new Map<string, Template>();
  endpoints.forEach((e, index) => {
    let t = templates.get(e.path);
    if (!t) {
      const segments = e.path.split('/');
      templates.set(e.path, (t = { segments, params: segments.map((s) => /^\{[^}]*\}$/.test(s)), endpoints: [] }));
    }
    t.endpoints.push(index);
  });
  const root = trieOf(templates.values());
  for (const a of templates.values()) {
    for (const b of candidates(root, a)) {
      // Each unordered pair once: the candidate found from the template met first in the spec.
      if (b === a || b.endpoints[0] < a.endpoints[0]) continue;
      for (const ia of a.endpoints) for (const ib of b.endpoints) {
        const [i, j] = ia > ib ? [ia, ib] : [ib, ia];
        const clash = clashOf(endpoints[i], endpoints[j], i === ia ? a : b, i === ia ? b : a);
        if (clash) out.push({ i, j, clash });
      }
    }
  }
  // In the order a walk over every pair (i, j < i) gives, as the findings have always been.
  const sorted = Object.freeze(out.sort((x, y) => x.i - y.i || x.j - y.j).map((x) => x.clash));
  clashesOf.set(endpoints, sorted);
  return sorted;
}

/** Two rules ask for the clashes of the same endpoints: computed once a spec, by the array's identity (a Spec's endpoints never change), and frozen, as both rules get the same array. */
const clashesOf = new WeakMap<readonly Endpoint[], readonly RouteClash[]>();

interface Template {
  readonly segments: readonly string[];
  /** Whether each segment is a `{parameter}`. */
  readonly params: readonly boolean[];
  /** Indexes of the endpoints on this template, ascending. */
  readonly endpoints: number[];
}

interface TrieNode {
  readonly literal: Map<string, TrieNode>;
  param?: TrieNode;
  readonly ends: Template[];
}

function trieOf(templates: Iterable<Template>): TrieNode {
  const root: TrieNode = { literal: new Map(), ends: [] };
  for (const t of templates) {
    let node = root;
    t.segments.forEach((segment, k) => {
      if (t.params[k]) node = node.param ??= { literal: new Map(), ends: [] };
      else {
        let next = node.literal.get(segment);
        if (!next) node.literal.set(segment, (next = { literal: new Map(), ends: [] }));
        node = next;
      }
    });
    node.ends.push(t);
  }
  return root;
}

/** The templates that can match a URL `t` matches: a parameter meets anything, a literal itself or a parameter. */
function candidates(root: TrieNode, t: Template): Template[] {
  const found: Template[] = [];
  const walk = (node: TrieNode, k: number): void => {
    if (k === t.segments.length) {
      found.push(...node.ends);
      return;
    }
    if (t.params[k]) for (const next of node.literal.values()) walk(next, k + 1);
    else {
      const next = node.literal.get(t.segments[k]);
      if (next) walk(next, k + 1);
    }
    if (node.param) walk(node.param, k + 1);
  };
  walk(root, 0);
  return found;
}

/** How `a` (on template `ta`) and `b` (on `tb`), two templates that match one URL, clash, if they do. */
function clashOf(a: Endpoint, b: Endpoint, ta: Template, tb: Template): RouteClash | undefined {
  let literalA = false;
  let literalB = false;
  for (let k = 0; k < ta.params.length; k++) {
    if (ta.params[k] && !tb.params[k]) literalB = true;
    else if (!ta.params[k] && tb.params[k]) literalA = true;
  }
  // One method on one route shape is endpoint-duplicate-route's finding.
  if (!literalA && !literalB) return a.method !== b.method ? { kind: 'ambiguous', endpoint: a, other: b } : undefined;
  if (literalA !== literalB && a.method === b.method) return { kind: 'shadow', endpoint: a, other: b, literal: literalA ? a : b };
  return undefined;
}
