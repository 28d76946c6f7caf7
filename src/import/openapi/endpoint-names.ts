/**
 * The names import gives back to the endpoints it placed: each operation's operationId, and
 * the document's name for a record's parameter where renaming it `{id}` would bind one route
 * to two names.
 */
import type { Endpoint } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { routeClashes } from '../../spec/conventions/paths.ts';
import type { Placed } from './endpoints.ts';
import { pathOf } from './paths.ts';

/**
 * Each endpoint keeps its operation's operationId, the name export gives it back and code
 * generators name methods after. A name the document gives twice (OpenAPI 3.1 §4.8.10 asks
 * each to be unique) is kept by the first only; one equal to the endpoint's id says nothing more.
 */
export function withOperationIds(endpoints: readonly Endpoint[], placed: readonly Placed[]): Endpoint[] {
  const taken = new Set<string>();
  // One endpoint per placed operation, in its order (documentedIdNames keeps it).
  return endpoints.map((endpoint, i) => {
    const id = placed[i]!.op.node.operationId;
    if (typeof id !== 'string' || !id.trim() || taken.has(id) || id === endpoint.id) return endpoint;
    taken.add(id);
    return { ...endpoint, operationId: id };
  });
}

/**
 * Where a record's parameter renamed `{id}` (endpointPath) meets another resource's endpoint on
 * the same route under the document's name (Hydra: `GET /admin/keys/{set}/{kid}` of a key set,
 * `PUT /admin/keys/{set}/{kid}` of a key), one route would bind two names (check's
 * endpoint-route-ambiguous, and serve refuses it): the renamed one keeps the document's name,
 * declared as the record's id (`params: { set: id }`).
 */
export function documentedIdNames(endpoints: readonly Endpoint[], placed: readonly Placed[]): Endpoint[] {
  const back = new Map<Endpoint, Endpoint>();
  for (const clash of routeClashes(endpoints)) {
    if (clash.kind !== 'ambiguous') continue;
    for (const [e, other] of [[clash.endpoint, clash.other], [clash.other, clash.endpoint]] as const) {
      const documented = placed.find((p) => p.endpoint === e)?.op.path;
      if (!documented || back.has(e)) continue;
      const mine = e.path.split('/');
      const theirs = other.path.split('/');
      const original = pathOf(documented).split('/');
      const at = mine.findIndex((s, i) => s === '{id}' && theirs[i] !== '{id}' && original[i] === theirs[i] && original.length === mine.length);
      if (at < 0) continue;
      const name = theirs[at]!.slice(1, -1);
      const path = mine.map((s, i) => (i === at ? `{${name}}` : s)).join('/');
      back.set(e, { ...e, path, params: e.params.map((p) => (p.name === 'id' ? { ...p, name, declared: true, pointer: child(e.pointer, 'params', name) } : p)) });
    }
  }
  return endpoints.map((e) => back.get(e) ?? e);
}
