/**
 * Part 3 at run time: transitions. `POST /{plural}/{id}/{transition}` (by convention) moves
 * a record from one of the transition's `from` states to its `to` state, writing the
 * fields the transition requires along with the new state.
 *
 * The order of answers (RFC 9110 §13.2.2 puts preconditions before the content):
 *   404 not-found            no such record
 *   412 precondition-failed  If-Match does not match its ETag
 *   409 invalid-transition   the record is not in a `from` state (the status the spec maps)
 *   422 validation-failed    the body: only the required fields, all of them, valid
 *   200                      the record as a read shows it, with its new ETag
 * The state is checked before the body, so a client asking for an illegal transition
 * learns that, and what it may do instead, whatever it sent.
 *
 * The write is a compare-and-set on the version read and on the `from` states
 * (Store.update with `state`), so of two concurrent transitions of one record exactly one
 * succeeds; the other is re-read and, no longer in a `from` state, refused with 409.
 *
 * An invalid-transition error carries two members besides the declared shape's own:
 *   currentState        the value of the state field now (null if the record has none)
 *   allowedTransitions  the names of the transitions whose `from` includes that state, in
 *                       the order the spec declares them ([] in a final state)
 * They are added to every error shape, problem+json (RFC 9457 §3.2 extension members) or
 * custom, unless the shape already uses the name.
 */
import type { FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Endpoint, Resource, StateMachine, Transition } from '../spec/model.ts';
import type { DomainStep } from '../store/domain.ts';
import type { EventMaker } from '../store/events.ts';
import type { StoredRecord } from '../store/store.ts';
import { ownerOf, visibleTo } from './auth/ownership.ts';
import { changeRecord, ifMatchOf } from './concurrency.ts';
import type { ServeContext } from './context.ts';
import { HttpError } from './errors.ts';
import { idempotent } from './idempotency.ts';
import { idParamOf } from '../spec/conventions/ids.ts';
import { idParam as boundIdParam, recordAddress } from '../spec/conventions/paths.ts';
import { belongsTo, boundParents, parentsOf } from './nesting.ts';
import { etagOf, isObject, recordOutcome, type Outcome } from './representation.ts';
import { validateBody, validatorsFor, validationFailed, type BodyValidator } from './validation.ts';

/** The members an invalid-transition error adds to the body (see the header comment). */
export type InvalidTransitionExtra = {
  readonly currentState: string | null;
  readonly allowedTransitions: readonly string[];
};

export function transitionHandler(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  const resource = ctx.resources.get(endpoint.resource);
  const machine = ctx.machines.get(endpoint.resource);
  const transition = machine?.transitions.find((t) => t.name === endpoint.transition);
  if (!resource || !machine || !transition) {
    // check reports it (endpoint-transition-missing); the route answers rather than the service failing to start.
    const detail = `${endpoint.method} ${endpoint.path} serves the transition '${endpoint.transition ?? ''}', which the states of ${endpoint.resource} do not declare.`;
    return async () => {
      throw new HttpError('internal', { detail });
    };
  }
  const body = requestValidator(ctx, resource, endpoint, transition);
  const idParam = boundIdParam(endpoint) ?? idParamOf(endpoint.path);
  const parents = parentsOf(ctx, endpoint);
  const status = endpoint.responses.find((r) => r.status >= 200 && r.status < 300)?.status ?? 200;
  const events = ctx.events?.maker(resource.name, 'transition', transition.name);
  const plan: Plan = { resource, machine, transition, body, status, ...(events ? { events } : {}) };
  // A repeat of a transition with the same Idempotency-Key is replayed, not refused as illegal.
  return idempotent(ctx, async (request) => {
    // Through a parent (`/members/{memberId}/loans/{id}/approve`): the parent must be there and the record its child.
    const bound = await boundParents(ctx, parents, request);
    return runTransition(ctx, plan, (request.params as Record<string, string>)[idParam] ?? '', request, bound);
  });
}

interface Plan {
  readonly resource: Resource;
  readonly machine: StateMachine;
  readonly transition: Transition;
  readonly body: RequestCheck;
  readonly status: number;
  /** The events the transition triggers (part 6), written in its transaction. */
  readonly events?: EventMaker;
}

async function runTransition(ctx: ServeContext, plan: Plan, id: string, request: FastifyRequest, bound: Readonly<Record<string, string | number | boolean | null>>): Promise<Outcome> {
  const { resource, machine, transition } = plan;
  let fields: Record<string, unknown> | undefined;
  const record = await changeRecord(
    ctx.store,
    resource.name,
    id,
    async (current) => {
      if (!transition.from.includes(current.data[machine.field] as string)) throw invalidTransition(resource, machine, transition, current);
      // Validated once, on the first attempt that reaches it: the body does not change on a retry.
      fields ??= await plan.body(ctx, request.body, request);
      return { ...current.data, ...fields, [machine.field]: transition.to };
    },
    {
      ifMatch: ifMatchOf(request),
      expect: { state: { field: machine.field, from: transition.from }, ...ownerExpectation(resource, request) },
      stateMismatch: (current) => invalidTransition(resource, machine, transition, current),
      ...(Object.keys(bound).length ? { belongs: (current: StoredRecord) => belongsTo(bound, current) } : {}),
      ...(plan.events ? { events: plan.events } : {}),
      ...domainOf(ctx, resource, transition.name, request),
    },
  );
  const outcome = recordOutcome(resource, record, plan.status, recordAddress(ctx.spec.endpoints, resource.name));
  return plan.status === 204 ? { status: 204, headers: outcome.headers } : outcome;
}

/** The transition's guards and effects, managed fields and record rules (src/serve/domain), run in its transaction. */
function domainOf(ctx: ServeContext, resource: Resource, transition: string, request: FastifyRequest): { domain?: DomainStep } {
  const domain = ctx.domain.transition(resource, transition, request, isObject(request.body) ? request.body : {});
  return domain ? { domain } : {};
}

function ownerExpectation(resource: Resource, request: FastifyRequest): { owner?: string } {
  const owner = ownerOf(resource, request);
  return owner !== undefined ? { owner } : {};
}

/** The transitions allowed from a state, in declared order. */
export function allowedFrom(machine: StateMachine, state: unknown): string[] {
  return machine.transitions.filter((t) => t.from.includes(state as string)).map((t) => t.name);
}

export function invalidTransition(resource: Resource, machine: StateMachine, transition: Transition, current: StoredRecord): HttpError {
  const raw = current.data[machine.field];
  const state = typeof raw === 'string' ? raw : null;
  const allowed = allowedFrom(machine, state);
  const from = transition.from.map((s) => `'${s}'`).join(', ');
  const now = state === null ? `The ${resource.name} has no ${machine.field}` : `The ${resource.name} is '${state}'`;
  const instead = allowed.length ? `From there: ${allowed.join(', ')}.` : 'No transition leads on from there.';
  const extra: InvalidTransitionExtra = { currentState: state, allowedTransitions: allowed };
  return new HttpError('invalid-transition', {
    detail: `${now}; '${transition.name}' starts only from ${from}. ${instead}`,
    extra,
    headers: { etag: etagOf(current) },
  });
}

type RequestCheck = (ctx: ServeContext, body: unknown, request: FastifyRequest) => Promise<Record<string, unknown>>;

/**
 * What the body may carry, compiled at start-up: the endpoint's fields (the transition's
 * `requires` by convention) and the required ones in any case; every required one must be
 * there, other listed ones may. No body, or `{}`, is fine when nothing is required.
 */
function requestValidator(ctx: ServeContext, resource: Resource, endpoint: Endpoint, transition: Transition): RequestCheck {
  const validators = validatorsFor(ctx, resource);
  const request = endpoint.request;
  const listed = request.kind === 'fields' ? request.fields : request.kind === 'none' ? [] : validators.declared.filter((f) => !f.readOnly).map((f) => f.name);
  const names = [...new Set([...listed, ...transition.requires])];
  const onlyRequired = names.every((n) => transition.requires.includes(n));
  const validator: BodyValidator = validators.fields(names, onlyRequired ? 'all' : 'none');
  if (onlyRequired) return (c, body, request) => validateBody(c.store, validator, body, visibleTo(c.resources, request));
  // An explicit request list beyond `requires`: those fields optional, the required ones checked here.
  return async (c, body, request) => {
    const given = body === undefined ? {} : body;
    const absent = isObject(given) ? transition.requires.filter((n) => !(n in given)) : [];
    if (absent.length) throw validationFailed([...validator.check(given), ...absent.map((n) => ({ pointer: `/${n}`, message: 'is required' }))]);
    return validateBody(c.store, validator, body, visibleTo(c.resources, request));
  };
}
