/**
 * Walking a state machine through the API, for the states tests: the shortest route of
 * transitions from the initial state to every reachable state, and request bodies that
 * satisfy a transition's `requires` (refs point at records made for them in the store).
 */
import type { Endpoint, Field, Resource, Spec, StateMachine, Transition } from '../../../src/spec/model.ts';
import type { Store } from '../../../src/store/store.ts';

/** For every state reachable from the initial one, the transitions that lead there (BFS, shortest); the tester's own walk. */
export { routesTo } from '../../../src/conformance/parts/states.ts';

export function endpointOf(spec: Spec, resource: string, transition: string): Endpoint {
  const e = spec.endpoints.find((x) => x.resource === resource && x.operation === 'transition' && x.transition === transition);
  if (!e) throw new Error(`no endpoint for ${resource}.${transition}`);
  return e;
}

/** The URL of a transition endpoint for a record (path parameters filled with the id). */
export function urlOf(endpoint: Endpoint, id: string | number): string {
  return endpoint.path.replace(/\{\w+\}/, encodeURIComponent(String(id)));
}

/** A valid value of a field, making the record a ref points at. */
export async function sampleValue(spec: Spec, store: Store, field: Field): Promise<unknown> {
  if (field.enum?.length) return field.enum[0];
  switch (field.type) {
    case 'string':
      if (field.format === 'date') return '2026-07-01';
      if (field.format === 'date-time') return '2026-07-01T10:00:00Z';
      if (field.format === 'email') return 'someone@example.org';
      if (field.format === 'uuid') return '6f1c1a52-6f0e-4d55-9a3f-2f8c6f0c1a52';
      return 'x'.repeat(Math.max(field.minLength ?? 1, 12));
    case 'integer':
    case 'number':
      return field.minimum ?? 1;
    case 'boolean':
      return true;
    case 'ref': {
      const target = spec.resources.find((r) => r.name === field.resource) as Resource;
      const made = await store.insert(target.name, target.id?.assigned === 'sequence' ? { data: {} } : { id: crypto.randomUUID(), data: {} });
      return target.id?.assigned === 'sequence' ? Number(made.id) : made.id;
    }
    default:
      throw new Error(`no sample for a ${field.type}`);
  }
}

/** A body carrying every field the transition requires. */
export async function bodyFor(spec: Spec, store: Store, resource: string, t: Transition): Promise<Record<string, unknown>> {
  const r = spec.resources.find((x) => x.name === resource) as Resource;
  const body: Record<string, unknown> = {};
  for (const name of t.requires) body[name] = await sampleValue(spec, store, r.fields.find((f) => f.name === name) as Field);
  return body;
}

/** A record in the initial state, inserted as the create endpoint would leave it. */
export async function seedRecord(store: Store, resource: Resource, machine: StateMachine, data: Record<string, unknown> = {}): Promise<string> {
  const sequence = resource.id?.assigned === 'sequence';
  const made = await store.insert(resource.name, sequence ? { data: { ...data, [machine.field]: machine.initial } } : { id: crypto.randomUUID(), data: { ...data, [machine.field]: machine.initial } });
  return made.id;
}
