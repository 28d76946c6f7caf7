/**
 * Actions at run time (part 4, `operation: action`): a named operation on a record or on
 * the collection that is not a state change (reschedule, send-reminder, preview-price).
 * Its behaviour is prose, which the reference service cannot perform. What it can do, it
 * does, in the order of every other endpoint:
 *
 *   onRequest   time-out, versioning, authentication and scopes, rate limits (app.ts)
 *   404         an action on a record: no such record, or another principal's (owned)
 *   422         the request body against the declared request (`none`, `resource`, a list
 *               of fields, or a shape of its own), refs looked up
 *   501         not-implemented, in the declared error shape, when no handler is supplied
 *
 * A builder supplies the behaviour: `createApp({ handlers: { 'loan.remind': fn } })` or
 * `svcspec serve SPEC --handlers ./handlers.js` (a module whose default export, or whose
 * `handlers` export, is that map). A handler runs inside this pipeline and its answer is
 * checked against the declared response: a wrong one is a logged 500 in the declared
 * shape, never passed on. A handler answers one of the spec's errors by throwing
 * `new ActionError('<catalog code>', 'detail')`; a code the endpoint does not declare is
 * a logged 500 too (the spec is the contract).
 */
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Endpoint, Resource } from '../spec/model.ts';
import { idParam, recordAddress } from '../spec/conventions/paths.ts';
import type { Store, StoredRecord } from '../store/store.ts';
import { ownerOf, visibleTo } from './auth/ownership.ts';
import { changeRecord, ifMatchOf, notFound } from './concurrency.ts';
import type { ServeContext } from './context.ts';
import { HttpError, renderError } from './errors.ts';
import { belongsTo, boundParents, parentsOf, type Parent } from './nesting.ts';
import { isObject, present, recordObject, recordOutcome, type Outcome } from './representation.ts';
import { sendOutcome } from './idempotency.ts';
import { answered } from './limits/timeout.ts';
import { shapeValidator, validateBody, validationFailed, validatorsFor, type BodyValidator } from './validation.ts';

/** What a handler is given. */
export interface ActionInput {
  /** The endpoint id, `loan.remind`. */
  readonly endpoint: string;
  /** The path parameters, as sent. */
  readonly params: Readonly<Record<string, string>>;
  /** The query parameters, as sent. */
  readonly query: Readonly<Record<string, unknown>>;
  /** The request body, validated against the declared request ({} when it takes none). */
  readonly body: Readonly<Record<string, unknown>>;
  /** For an action on a record: the record as a read shows it (in the request's version). */
  readonly record?: Readonly<Record<string, unknown>>;
  /** The caller, undefined on a public endpoint called without credentials. */
  readonly principal?: { readonly id: string; readonly scopes: readonly string[] };
  /** The API version the request is served in, when the spec has versions. */
  readonly version?: string;
  /** The service's store, for a handler that reads or writes records. */
  readonly store: Store;
}

/**
 * A prose action's behaviour: returns the response body (the record for `response:
 * resource`, an object of the declared fields for a shape, nothing for `none`).
 */
export type ActionHandler = (input: ActionInput) => unknown;

export type ActionHandlers = Readonly<Record<string, ActionHandler>>;

/**
 * Marks an ActionError across copies of this module: a handlers module imports the class from
 * `svcspec/serve` (dist/), while the installed CLI runs its own bundled copy of it
 * (scripts/bundle.ts); a plain instanceof would tell them apart and answer 500.
 */
const ACTION_ERROR = Symbol.for('svcspec.ActionError');

/** Thrown by a handler to answer one of the errors the endpoint declares. */
export class ActionError extends Error {
  readonly code: string;
  readonly detail?: string;
  readonly [ACTION_ERROR] = true;
  constructor(code: string, detail?: string) {
    super(detail ?? code);
    this.name = 'ActionError';
    this.code = code;
    if (detail !== undefined) this.detail = detail;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass a user makes is told apart as classes are.
    if (this !== ActionError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as { [ACTION_ERROR]?: unknown })[ACTION_ERROR] === true;
  }
}

interface Plan {
  readonly ctx: ServeContext;
  readonly endpoint: Endpoint;
  readonly resource: Resource;
  readonly idParam?: string;
  /** The parents its path binds (`/patients/{patientId}/appointments/{id}/remind`). */
  readonly parents: readonly Parent[];
  readonly request?: BodyValidator;
  /** The response's validator; undefined for a record (checked by its id) or none. */
  readonly response?: BodyValidator;
  readonly status: number;
  readonly handler?: ActionHandler;
}

export function actionHandler(ctx: ServeContext, endpoint: Endpoint): RouteHandlerMethod {
  const resource = ctx.resources.get(endpoint.resource);
  const action = endpoint.action;
  if (!resource || !action) throw new Error(`bug: actionHandler given ${endpoint.id}`);
  const validators = validatorsFor(ctx, resource);
  const r = endpoint.request;
  const request = r.kind === 'none' ? undefined
    : r.kind === 'shape' ? shapeValidator(ctx, r.fields, `the body of ${endpoint.id}`)
    : r.kind === 'fields' ? validators.fields(r.fields, 'declared')
    : validators.create;
  const response = action.response.kind === 'shape' ? shapeValidator(ctx, action.response.fields, `the response of ${endpoint.id}`) : undefined;
  const status = endpoint.responses.find((x) => x.status >= 200 && x.status < 300)?.status ?? (action.response.kind === 'none' ? 204 : 200);
  const handler = ctx.handlers?.[endpoint.id];
  const plan: Plan = {
    ctx, endpoint, resource, status,
    ...(action.target === 'record' ? { idParam: idParam(endpoint) ?? 'id' } : {}),
    parents: parentsOf(ctx, endpoint),
    ...(request ? { request } : {}),
    ...(response ? { response } : {}),
    ...(handler ? { handler } : {}),
  };
  return (request, reply) => runAction(plan, request, reply);
}

async function runAction(plan: Plan, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { ctx, endpoint, resource } = plan;
  const params = (request.params ?? {}) as Record<string, string>;
  let record: StoredRecord | undefined;
  // Through a parent: the parent must be there and visible, and the record its child (./nesting.ts).
  const bound = await boundParents(ctx, plan.parents, request);
  if (plan.idParam !== undefined) {
    const id = params[plan.idParam] ?? '';
    record = await ctx.store.get(resource.name, id);
    const owner = ownerOf(resource, request);
    if (!record || (owner !== undefined && record.owner !== owner) || !belongsTo(bound, record)) throw notFound(resource.name, id);
  }
  let body: Record<string, unknown> = {};
  if (plan.request) body = await validateBody(ctx.store, plan.request, request.body, visibleTo(ctx.resources, request));
  else if (request.body !== undefined) throw validationFailed([{ pointer: '', message: 'this request takes no body' }]);
  // An action that states effects is performed by them: its guards, then its effects, in one transaction.
  if (!plan.handler && record && ctx.domain.performs(endpoint)) return sendOutcome(reply, await performEffects(plan, request, record.id, body));
  if (!plan.handler) {
    throw new HttpError('not-implemented', {
      detail: `The reference service cannot perform ${endpoint.id}: its behaviour is stated in prose${endpoint.action?.behaviour ? ` ("${endpoint.action.behaviour}")` : ''}. Supply a handler (svcspec serve --handlers).`,
    });
  }
  const principal = request.principal;
  const input: ActionInput = {
    endpoint: endpoint.id,
    params: { ...params },
    query: { ...(request.query as Record<string, unknown> | undefined) },
    body,
    store: ctx.store,
    ...(record ? { record: present(resource, record) } : {}),
    ...(principal ? { principal: { id: principal.id, scopes: [...principal.scopes] } } : {}),
    ...(request.apiVersion !== undefined ? { version: request.apiVersion } : {}),
  };
  let answer: unknown;
  try {
    answer = await plan.handler(input);
  } catch (error) {
    if (error instanceof ActionError) return sendDeclaredError(plan, request, reply, error);
    throw error;
  }
  const wrong = responseProblem(plan, answer);
  if (wrong) {
    request.log.error({ endpoint: endpoint.id, problem: wrong }, 'action handler answered outside the declared response');
    throw new HttpError('internal', { detail: `The handler of ${endpoint.id} answered outside the declared response; it has been logged.` });
  }
  // The time-out may have answered while the handler ran: sendOutcome then sends nothing.
  if (plan.status === 204 || answer === undefined) return sendOutcome(reply, { status: plan.status, headers: {} });
  // A handler answers the record bare; the resource's envelope is serve's to put on (src/spec/conventions/envelope.ts).
  const kind = plan.endpoint.action?.response.kind;
  return sendOutcome(reply, { status: plan.status, headers: {}, body: kind === 'resource' && isObject(answer) ? recordObject(resource, answer) : answer });
}

/**
 * Performs a record action by its stated guards and effects (src/serve/domain): the record
 * as it stands, changed by the effects, written compare-and-set with the action's events.
 */
async function performEffects(plan: Plan, request: FastifyRequest, id: string, body: Record<string, unknown>): Promise<Outcome> {
  const { ctx, endpoint, resource } = plan;
  const owner = ownerOf(resource, request);
  const domain = ctx.domain.action(resource, endpoint, request, body);
  const events = ctx.events?.maker(resource.name, 'updated');
  const written = await changeRecord(ctx.store, resource.name, id, (current) => ({ ...current.data }), {
    ifMatch: ifMatchOf(request),
    ...(owner !== undefined ? { expect: { owner } } : {}),
    ...(events ? { events } : {}),
    ...(domain ? { domain } : {}),
  });
  if (plan.endpoint.action?.response.kind === 'none' || plan.status === 204) return { status: plan.status, headers: {} };
  return recordOutcome(resource, written, plan.status, recordAddress(ctx.spec.endpoints, resource.name));
}

/** Why a handler's answer is not the declared response; undefined when it is. */
function responseProblem(plan: Plan, answer: unknown): string | undefined {
  const kind = plan.endpoint.action?.response.kind;
  if (kind === 'none') return answer === undefined || answer === null ? undefined : 'the action answers no body, and the handler returned one';
  if (kind === 'shape') {
    const violations = plan.response?.check(answer) ?? [];
    return violations.length ? violations.map((v) => `${v.pointer || '/'} ${v.message}`).join('; ') : undefined;
  }
  // A record: an object carrying the resource's id member, and nothing a read would not show.
  const idField = plan.resource.id?.field ?? 'id';
  if (!isObject(answer) || answer[idField] === undefined) return `the action answers a ${plan.resource.name}, and the handler returned no object with '${idField}'`;
  const shown = new Set([idField, ...plan.resource.fields.filter((f) => !f.writeOnly).map((f) => f.name), ...(plan.ctx.machines.get(plan.resource.name) ? [plan.ctx.machines.get(plan.resource.name)?.field as string] : [])]);
  const hidden = Object.keys(answer).filter((k) => !shown.has(k));
  return hidden.length ? `the handler's ${plan.resource.name} has members a read never shows: ${hidden.join(', ')}` : undefined;
}

/** A catalog error the handler raised, in the declared shape; one the endpoint does not declare is a fault. */
function sendDeclaredError(plan: Plan, request: FastifyRequest, reply: FastifyReply, error: ActionError): FastifyReply {
  const { ctx, endpoint } = plan;
  const entry = ctx.spec.errors.catalog.find((e) => e.code === error.code);
  if (!entry || !endpoint.errors.includes(error.code)) {
    request.log.error({ endpoint: endpoint.id, code: error.code }, 'action handler raised an error the endpoint does not declare');
    throw new HttpError('internal', { detail: `The handler of ${endpoint.id} raised an error the endpoint does not declare; it has been logged.` });
  }
  // The time-out may have answered while the handler ran: nothing is sent a second time.
  if (answered(reply)) return reply;
  const rendered = renderError(ctx.errorShape, { code: entry.code, status: entry.status, title: entry.title }, new HttpError('internal', error.detail !== undefined ? { detail: error.detail } : {}), request.url);
  return reply.code(rendered.status).headers(rendered.headers).type(rendered.contentType).send(rendered.body);
}
