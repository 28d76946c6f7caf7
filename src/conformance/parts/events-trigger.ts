/**
 * Part 6, the triggers: each event of the catalog made to happen through the API, as its
 * `on` says (a create, an update or replace, a delete, a transition walked to from a state
 * it is allowed in), and the payload it must then carry (docs/events.md "The event"): the
 * record as a read shows it right after the change (before it, for a delete), narrowed to
 * the declared fields for a field list. The state walk is the states part's (routesTo,
 * recordIn, fire); the records are the data factory's.
 */
import type { Endpoint, EventDef, Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectSuccess, isObject } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { fire, recordIn, routesTo, transitionEndpoint } from './states.ts';

export interface Triggered {
  readonly event: EventDef;
  readonly resource: Resource;
  /** The id of the record the event is about. */
  readonly id: string;
  /** The `data` the event must carry. */
  readonly payload: Record<string, unknown>;
  /** The request that made it happen. */
  readonly exchange: Exchange;
  /** Epoch ms (the implementation's clock, ctx.now) just before that request. */
  readonly at: number;
}

/** Makes one event happen, acting as `as` (who must be able to read the record to see the event). */
export async function trigger(ctx: TestContext, data: DataFactory, event: EventDef, as: Principal | undefined): Promise<Triggered> {
  const resource = ctx.resource(event.trigger.resource);
  if (!resource) throw new Skip(`the trigger names resource '${event.trigger.resource}', which the spec does not declare`);
  const need = (e: Endpoint | undefined, what: string): Endpoint => {
    if (!e) throw new Skip(`${resource.name} has no ${what} endpoint to make ${event.name} happen`);
    if (!ctx.may(as, e)) throw new Skip(`${as?.name ?? 'an anonymous client'} may not call ${e.id}, which makes ${event.name} happen; give a principal that may with --credentials`);
    return e;
  };
  need(ctx.endpoint(resource.name, 'create'), 'create');
  const by = as ? { as } : {};
  const { action } = event.trigger;
  const at = ctx.now();
  if (action === 'created') {
    const made = await data.create(resource, by);
    return { event, resource, id: made.id, payload: payloadOf(ctx, event, resource, (await readBack(ctx, data, resource, made.id, as)) ?? made.body), exchange: made.exchange, at };
  }
  if (action === 'updated') {
    const endpoint = need(ctx.endpoint(resource.name, 'update') ?? ctx.endpoint(resource.name, 'replace'), 'update or replace');
    const made = await data.create(resource, by);
    const next = await data.validBody(resource, by);
    const field = data.writable(resource, ctx.version).find((f) => f.name !== data.idField(resource) && !f.writeOnly && f.name in next);
    const body = endpoint.operation === 'update' ? (field ? { [field.name]: next[field.name] } : {}) : next;
    const at2 = ctx.now();
    const ex = await ctx.call(endpoint.method, data.itemPath(endpoint, made.id), { body, as: as ?? null });
    expectChange(endpoint, ex, event);
    return { event, resource, id: made.id, payload: payloadOf(ctx, event, resource, (await readBack(ctx, data, resource, made.id, as)) ?? bodyOf(ex)), exchange: ex, at: at2 };
  }
  if (action === 'deleted') {
    const endpoint = need(ctx.endpoint(resource.name, 'delete'), 'delete');
    const made = await data.create(resource, by);
    const before = (await readBack(ctx, data, resource, made.id, as)) ?? made.body;
    const at2 = ctx.now();
    const ex = await ctx.call('DELETE', data.itemPath(endpoint, made.id), { as: as ?? null });
    expectChange(endpoint, ex, event);
    return { event, resource, id: made.id, payload: payloadOf(ctx, event, resource, before), exchange: ex, at: at2 };
  }
  const machine = data.machine(resource);
  const t = machine?.transitions.find((x) => x.name === event.trigger.transition);
  if (!machine || !t) throw new Skip(`${resource.name} has no transition '${event.trigger.transition}'`);
  const endpoint = need(transitionEndpoint(ctx, machine, t), `'${t.name}' transition`);
  const route = [...routesTo(machine)].find(([state]) => t.from.includes(state))?.[1];
  if (!route) throw new Skip(`no state ${t.name} starts from (${t.from.join(', ')}) is reachable from '${machine.initial}'`);
  for (const step of route) need(transitionEndpoint(ctx, machine, step), `'${step.name}' transition (on the way to '${t.from.join("' or '")}')`);
  const id = await recordIn(ctx, data, resource, machine, route, as);
  const at2 = ctx.now();
  const ex = await fire(ctx, data, resource, endpoint, t, id, as);
  expectChange(endpoint, ex, event);
  return { event, resource, id, payload: payloadOf(ctx, event, resource, (await readBack(ctx, data, resource, id, as)) ?? bodyOf(ex)), exchange: ex, at: at2 };
}

/** The payload an event carries of a record: all of it, or the declared fields it has; never a writeOnly field. */
export function payloadOf(ctx: TestContext, event: EventDef, resource: Resource, record: Record<string, unknown>): Record<string, unknown> {
  const hidden = new Set(resource.fields.filter((f) => f.writeOnly).map((f) => f.name));
  const visible = new Set(ctx.fieldsOf(resource).map((f) => f.name));
  const keep = event.payload.kind === 'resource' ? (k: string) => !hidden.has(k) : (k: string) => (event.payload as { fields: readonly string[] }).fields.includes(k) && visible.has(k) && !hidden.has(k);
  return Object.fromEntries(Object.entries(record).filter(([k]) => keep(k)));
}

function expectChange(endpoint: Endpoint, ex: Exchange, event: EventDef): void {
  try {
    expectSuccess(endpoint, ex);
  } catch (error) {
    if (error instanceof Failure) throw new Failure(`the change that makes ${event.name} happen failed: ${error.message}`, ex);
    throw error;
  }
}

function bodyOf(ex: Exchange): Record<string, unknown> {
  if (!isObject(ex.response.json)) throw new Skip(`the spec declares no read endpoint, and ${ex.request.method} ${ex.request.url} answered no record to learn the payload from`);
  return ex.response.json;
}

/** The record as a read shows it now, or undefined without a read endpoint. */
async function readBack(ctx: TestContext, data: DataFactory, resource: Resource, id: string, as: Principal | undefined): Promise<Record<string, unknown> | undefined> {
  const read = ctx.endpoint(resource.name, 'read');
  if (!read || !ctx.may(as, read)) return undefined;
  const ex = await ctx.call('GET', data.itemPath(read, id), { as: as ?? null });
  expectSuccess(read, ex);
  return ex.response.json as Record<string, unknown>;
}

/** A trigger's outcome as a value: what happened, or why it could not (a Failure or a Skip, reported by the checks that needed it). */
export async function attempt<T>(body: () => Promise<T>): Promise<T | Error> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof Failure || error instanceof Skip) return error;
    throw error;
  }
}
