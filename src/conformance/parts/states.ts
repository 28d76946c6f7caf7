/**
 * Part 3: states and transitions. For each state machine: a created record starts in the
 * initial state; from every state reachable from it (by the shortest route of transitions),
 * every legal transition succeeds and sets its target state, and every illegal one is
 * refused with invalid-transition; a transition sent without any one of the fields it requires
 * is refused (validation-failed at that field) and moves nothing; the state field cannot be written directly.
 */
import type { Endpoint, Resource, StateMachine, Transition } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError, expectSuccess, isObject } from '../expect.ts';

export async function checkStates(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const machine of ctx.spec.states) {
    const resource = ctx.resource(machine.resource);
    if (!resource) continue;
    const routes = routesTo(machine);
    // Records a legal transition left in a state, by state: the checks of that state take them
    // before making and walking a new one (a create's quota is spent where it matters).
    const pool = new Map<string, string[]>();
    // A state whose checks are done parks what arrives in it for later walks (recordIn).
    const done = new Set<string>();
    const keep = (state: string, id: string) => (done.has(state) ? data.parking.park(resource, id, state) : pool.set(state, [...(pool.get(state) ?? []), id]));
    // The transitions whose required fields were checked left out.
    const required = new Set<string>();
    await ctx.check('states', `${machine.resource}.initial`, `${machine.resource}: a new record is in the initial state '${machine.initial}'`, { pointer: machine.pointer, text: `initial: ${machine.initial}` }, async () => {
      // Of a scarce create, the answer of the run's first create of it is a new record's as well.
      const first = data.scarce(resource) ? data.firstMade(resource) : undefined;
      const made = first ?? (await data.create(resource));
      if (made.body[machine.field] !== machine.initial) throw new Failure(`'${machine.field}' is ${JSON.stringify(made.body[machine.field])} after create, not '${machine.initial}'`, made.exchange);
      // That record may have moved since, and is shared by refs: only a new one is walked on.
      if (!first) keep(machine.initial, made.id);
    });
    for (const [state, route] of routes) {
      // One record in the state takes every refusal (a refusal leaves it there) and then the
      // first legal transition; each further legal one needs a record of its own. Fewer
      // creates: an implementation's rate limit is spent slowly.
      let spare: Promise<string> | undefined;
      const inState = () => {
        // The spare first; a pooled record is taken only when there is none (else it would be lost).
        const pooled = spare ? undefined : pool.get(state)?.shift();
        const id = spare ?? (pooled !== undefined ? Promise.resolve(pooled) : recordIn(ctx, data, resource, machine, route));
        spare = undefined;
        return id;
      };
      const ordered = [...machine.transitions].sort((a, b) => Number(a.from.includes(state)) - Number(b.from.includes(state)));
      for (const t of ordered) {
        const legal = t.from.includes(state);
        const endpoint = transitionEndpoint(ctx, machine, t);
        const title = legal ? `${machine.resource}: ${t.name} from '${state}' moves it to '${t.to}'` : `${machine.resource}: ${t.name} from '${state}' is refused`;
        if (!endpoint) {
          ctx.skip('states', `${machine.resource}.${state}.${t.name}`, title, `the spec declares no endpoint for the transition ${t.name}`, { kind: 'not-applicable' });
          continue;
        }
        // What the transition requires, once, from the first state it leaves: left out, refused, the record stays.
        if (legal && t.requires.length && !required.has(t.name)) {
          required.add(t.name);
          const names = t.requires.map((n) => `'${n}'`).join(', ');
          await ctx.check('states', `${machine.resource}.${t.name}.requires`, `${machine.resource}: ${t.name} without ${t.requires.length > 1 ? `each of ${names}` : names} is refused, and the record stays '${state}'`, { pointer: t.pointer, text: `${t.name}: requires ${t.requires.join(', ')}` }, async () => {
            const id = await inState();
            const as = ctx.principalFor(endpoint);
            const all = await data.valuesFor(resource, t.requires, as);
            // Each required field left out in turn, the others given: the same record, as a refusal leaves it.
            for (const missing of t.requires) {
              const { [missing]: _left, ...body } = all;
              const ex = await ctx.call(endpoint.method, data.itemPath(endpoint, id), { body, as: as ?? null });
              // The record serves the next check only where it stayed: one the service moved is not in this state any more.
              const after = ex.response.status < 300 ? undefined : await currentState(ctx, data, resource, machine, id);
              const stayed = ex.response.status >= 300 && (after === undefined || after === state);
              spare = stayed ? Promise.resolve(id) : undefined;
              expectError(ctx, ex, 'validation-failed', `/${missing}`);
              if (!stayed) throw new Failure(`${t.name} without '${missing}' moved the record from '${state}' to '${String(after)}'`, ex);
            }
          });
        }
        await ctx.check('states', `${machine.resource}.${state}.${t.name}`, title, { pointer: t.pointer, text: `${t.name}: from [${t.from.join(', ')}] to ${t.to}` }, async () => {
          const id = await inState();
          const ex = await fire(ctx, data, resource, endpoint, t, id);
          if (legal) {
            expectSuccess(endpoint, ex);
            const state2 = await currentState(ctx, data, resource, machine, id);
            if (state2 !== undefined && state2 !== t.to) throw new Failure(`after ${t.name} the record is in '${String(state2)}', not '${t.to}'`, ex);
            keep(t.to, id);
          } else {
            spare = Promise.resolve(id);
            expectError(ctx, ex, 'invalid-transition');
            const after = await currentState(ctx, data, resource, machine, id);
            if (after !== undefined && after !== state) {
              spare = undefined;
              throw new Failure(`a refused ${t.name} moved the record from '${state}' to '${String(after)}'`, ex);
            }
          }
        });
      }
      // This state's checks are done: what is left in it serves later walks (recordIn).
      for (const id of [...(pool.get(state) ?? []), ...(spare ? [await spare.catch(() => undefined)] : [])]) if (id !== undefined) data.parking.park(resource, id, state);
      pool.delete(state);
      done.add(state);
      spare = undefined;
    }
    await checkStateNotWritable(ctx, data, resource, machine);
  }
}

async function checkStateNotWritable(ctx: TestContext, data: DataFactory, resource: Resource, machine: StateMachine): Promise<void> {
  const update = ctx.endpoint(resource.name, 'update') ?? ctx.endpoint(resource.name, 'replace');
  const other = machine.states.find((s) => s !== machine.initial);
  if (!update || !other) return;
  await ctx.check('states', `${machine.resource}.state-not-writable`, `${machine.resource}: '${machine.field}' cannot be written by ${update.operation}`, { pointer: machine.pointer, text: `${machine.field} changes only by transitions` }, async () => {
    // Of a scarce create, a record the state checks are done with, in whatever state it was left; else a new one.
    // One its updates may still change (not a closed ticket), so that a refusal can only be the state's.
    const parked = await data.parking.take(resource, (state) => (data.domain.updatableIn(resource, state, ctx.now()) ? [] : undefined));
    const made = parked ?? { id: (await data.create(resource)).id, state: machine.initial };
    const to = made.state === machine.initial ? other : machine.states.find((s) => s !== made.state) ?? other;
    const body = update.operation === 'update' ? { [machine.field]: to } : { ...(await data.validBody(resource)), [machine.field]: to };
    const ex = await ctx.call(update.method, data.itemPath(update, made.id), { body, as: ctx.principalFor(update) ?? null });
    if (ex.response.status >= 200 && ex.response.status < 300) {
      const now = await currentState(ctx, data, resource, machine, made.id);
      if (now !== made.state) throw new Failure(`${update.method} set '${machine.field}' to '${String(now)}'`, ex);
    } else expectError(ctx, ex, 'validation-failed', `/${machine.field}`);
  });
}

/** For every state reachable from the initial one, the transitions that lead there (BFS, shortest). */
export function routesTo(machine: StateMachine): Map<string, Transition[]> {
  const routes = new Map<string, Transition[]>([[machine.initial, []]]);
  const queue = [machine.initial];
  while (queue.length) {
    const state = queue.shift() as string;
    for (const t of machine.transitions) {
      if (!t.from.includes(state) || routes.has(t.to)) continue;
      routes.set(t.to, [...(routes.get(state) as Transition[]), t]);
      queue.push(t.to);
    }
  }
  return routes;
}

export function transitionEndpoint(ctx: TestContext, machine: StateMachine, t: Transition): Endpoint | undefined {
  return ctx.endpoint(machine.resource, 'transition', t.name);
}

/** Sends a transition's request (with the fields it requires), as the given principal or the first that may. */
export async function fire(ctx: TestContext, data: DataFactory, resource: Resource, endpoint: Endpoint, t: Transition, id: string, by?: Principal) {
  const as = by ?? ctx.principalFor(endpoint);
  const body = t.requires.length ? await data.valuesFor(resource, t.requires, as) : undefined;
  return ctx.call(endpoint.method, data.itemPath(endpoint, id), { ...(body ? { body } : {}), as: as ?? null });
}

/** A route between two states (BFS, shortest), or undefined when none leads there. */
export function routeBetween(machine: StateMachine, from: string, to: string): Transition[] | undefined {
  const routes = new Map<string, Transition[]>([[from, []]]);
  const queue = [from];
  while (queue.length) {
    const state = queue.shift() as string;
    if (state === to) return routes.get(state);
    for (const t of machine.transitions) {
      if (!t.from.includes(state) || routes.has(t.to)) continue;
      routes.set(t.to, [...(routes.get(state) as Transition[]), t]);
      queue.push(t.to);
    }
  }
  return undefined;
}

/**
 * A record walked to a state through the API (made and moved by `by`, when given). Of a
 * resource whose create is scarce (helpdesk: 5 tickets a minute), a record whose checks are
 * done (src/conformance/parking.ts) is walked on from the state it was left in, where a route leads
 * from there; a walk the service refuses on the way (a guard a reused record no longer
 * meets) falls back to a new record, which is held to every step.
 */
export async function recordIn(ctx: TestContext, data: DataFactory, resource: Resource, machine: StateMachine, route: readonly Transition[], by?: Principal): Promise<string> {
  const target = route.length ? route[route.length - 1].to : machine.initial;
  const parked = await data.parking.take(resource, (state) => routeBetween(machine, state, target), by);
  if (parked && (await walked(ctx, data, resource, machine, parked.id, parked.route, by))) return parked.id;
  const made = await data.create(resource, by ? { as: by } : {});
  for (const t of route) {
    const endpoint = transitionEndpoint(ctx, machine, t);
    if (!endpoint) throw new Skip(`the state is reached through ${t.name}, which has no endpoint`);
    const ex = await fire(ctx, data, resource, endpoint, t, made.id, by);
    if (ex.response.status < 200 || ex.response.status >= 300) throw new Failure(`on the way to the state under test, ${t.name} was refused (${ex.response.status})`, ex);
  }
  return made.id;
}

/** Whether the transitions of a route all succeeded on a record. */
async function walked(ctx: TestContext, data: DataFactory, resource: Resource, machine: StateMachine, id: string, route: readonly Transition[], by?: Principal): Promise<boolean> {
  for (const t of route) {
    const endpoint = transitionEndpoint(ctx, machine, t);
    if (!endpoint) return false;
    const ex = await fire(ctx, data, resource, endpoint, t, id, by);
    if (ex.response.status < 200 || ex.response.status >= 300) return false;
  }
  return true;
}

async function currentState(ctx: TestContext, data: DataFactory, resource: Resource, machine: StateMachine, id: string): Promise<unknown> {
  const read = ctx.endpoint(resource.name, 'read');
  if (!read) return undefined;
  const ex = await ctx.call('GET', data.itemPath(read, id), { as: ctx.principalFor(read) ?? null });
  return isObject(ex.response.json) ? ex.response.json[machine.field] : undefined;
}
