/**
 * What every part module of the service is given: the spec, the store, a clock, and the
 * things compiled once at start-up. Dependencies are passed in, not hung on Fastify.
 */
import type { ErrorShape, Resource, Spec, StateMachine } from '../spec/model.ts';
import type { Situation } from '../spec/http-errors.ts';
import type { Store } from '../store/store.ts';
import { resolveSituations } from '../spec/http-errors.ts';
import type { ResolvedError } from './errors.ts';
import { errorShape } from '../spec/conventions/errors.ts';
import type { EventEmitting } from './events/emit.ts';
import type { ActionHandlers } from './actions.ts';
import { domainRuntime, type DomainRuntime } from './domain/index.ts';
import type { ErrorCode } from '../spec/model.ts';

export interface ServeContext {
  readonly spec: Spec;
  readonly store: Store;
  /** Epoch milliseconds; tests pass a fake. */
  readonly now: () => number;
  readonly resources: ReadonlyMap<string, Resource>;
  readonly machines: ReadonlyMap<string, StateMachine>;
  readonly errorShape: ErrorShape;
  readonly resolveError: (situation: Situation) => ResolvedError;
  /** Which writes emit which events (part 6); undefined when the spec emits none. */
  readonly events?: EventEmitting;
  /** The behaviour of prose actions a builder supplied, by endpoint id (src/serve/actions.ts). */
  readonly handlers?: ActionHandlers;
  /** Domain rules (src/serve/domain): the step each write passes to the store. */
  readonly domain: DomainRuntime;
  /** A catalog entry by code (a domain rule's bound error). */
  readonly errorCode: (code: string) => ErrorCode | undefined;
}

export function createContext(spec: Spec, store: Store, now: () => number = Date.now, events?: EventEmitting, handlers?: ActionHandlers): ServeContext {
  return {
    ...(events ? { events } : {}),
    ...(handlers ? { handlers } : {}),
    spec,
    store,
    now,
    resources: new Map(spec.resources.map((r) => [r.name, r])),
    machines: new Map(spec.states.map((m) => [m.resource, m])),
    errorShape: errorShape(spec),
    resolveError: resolveSituations(spec),
    domain: domainRuntime(spec, now, events ? (resource, action) => events.maker(resource, action) : undefined),
    errorCode: (code) => spec.errors.catalog.find((e) => e.code === code),
  };
}
