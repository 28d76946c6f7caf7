/**
 * Domain rules at run time (the spec's `unique`, `rules`, managed fields, guards, effects
 * and ref deletion behaviours): the steps the handlers pass to the store with each write
 * (./step.ts), and the answers to what the store refuses. Compiled once per service.
 *
 * Every write of a resource with rules passes a step, whichever endpoint makes it (a
 * create, a nested create, a bulk create, an update, a replace, a transition, an action,
 * a delete), so no endpoint is a way around a rule.
 */
import type { FastifyRequest } from 'fastify';
import type { Endpoint, Field, Resource, Spec, TriggerAction } from '../../spec/model.ts';
import { DomainLimitError, type DomainStep } from '../../store/domain.ts';
import type { EventMaker } from '../../store/events.ts';
import { DomainRefusedError, UniqueViolationError, type UniqueConstraint } from '../../store/store.ts';
import { HttpError } from '../errors.ts';
import { compileDomain, needsStep, type CompiledDomain, type CompiledResource, type CompiledWrite } from './compile.ts';
import { domainStep, type Refusal, type WriteContext, type WriteKind } from './step.ts';
import { performedByReference } from '../../spec/conventions/endpoints.ts';

export interface DomainRuntime {
  /** Unique constraints per resource, for the store's migrate. */
  uniqueOf(resource: string): readonly UniqueConstraint[];
  /** Fields the rules filter on (counts, referrers), which the store indexes. */
  indexedBy(resource: string): readonly string[];
  /** Fields that effects of other resources' writes change (TableLayout `effectFields`), with the managed fields such a change sets. */
  effectFieldsOf(resource: string): readonly string[];
  create(resource: Resource, request: FastifyRequest, body: Readonly<Record<string, unknown>>, id?: string): DomainStep | undefined;
  change(resource: Resource, request: FastifyRequest, body: Readonly<Record<string, unknown>>): DomainStep | undefined;
  transition(resource: Resource, transition: string, request: FastifyRequest, body: Readonly<Record<string, unknown>>): DomainStep | undefined;
  action(resource: Resource, endpoint: Endpoint, request: FastifyRequest, body: Readonly<Record<string, unknown>>): DomainStep | undefined;
  remove(resource: Resource, request: FastifyRequest): DomainStep | undefined;
  /** Whether an action is performed by its stated effects (rather than prose). */
  performs(endpoint: Endpoint): boolean;
  /** The answer to a write the store refused for a rule; undefined for any other error. */
  httpError(error: unknown): HttpError | undefined;
}

type Events = (resource: string, action: TriggerAction) => EventMaker | undefined;

export function domainRuntime(spec: Spec, now: () => number, events?: Events): DomainRuntime {
  const compiled: CompiledDomain = compileDomain(spec);
  const uniques = new Map<string, { resource: CompiledResource; error: string; fields: readonly string[] }>();
  for (const c of compiled.byResource.values()) for (const u of c.unique) uniques.set(`${c.resource.name}:${u.name}`, { resource: c, error: u.error, fields: u.fields });
  const relatedEvents = events ? (resource: string, change: 'updated' | 'deleted') => events(resource, change) : undefined;

  const context = (request: FastifyRequest, body: Readonly<Record<string, unknown>>, requestFields?: readonly Field[]): WriteContext => ({
    now: now(),
    ...(request.principal ? { principal: { id: request.principal.id, scopes: [...request.principal.scopes] } } : {}),
    request: body,
    ...(requestFields ? { requestFields } : {}),
    ...(relatedEvents ? { events: relatedEvents } : {}),
  });
  // The write's context is built only for a write that has a step: most have none.
  const step = (resource: Resource, kind: WriteKind, rules: CompiledWrite | undefined, w: () => WriteContext, id?: string): DomainStep | undefined => {
    const c = compiled.byResource.get(resource.name);
    if (!c || (!rules && !needsStep(c, kind))) return undefined;
    return domainStep(spec, compiled, c, kind, rules, w(), id);
  };

  return {
    uniqueOf: (resource) => compiled.byResource.get(resource)?.unique.map((u) => ({ name: u.name, fields: u.fields, ...(u.where.length ? { where: u.where } : {}), ...(u.ignoreCase ? { ignoreCase: true } : {}) })) ?? [],
    indexedBy(resource) {
      const fields = new Set<string>();
      for (const c of compiled.byResource.values()) {
        for (const w of [c.onCreate, c.onUpdate, c.onDelete, ...c.transitions.values(), ...c.actions.values()]) {
          for (const n of w?.counts ?? []) if (n.resource === resource) for (const cond of n.where) fields.add(cond.field);
        }
      }
      for (const c of compiled.byResource.values()) for (const r of c.referrers) if (r.resource.name === resource) fields.add(r.field.name);
      return [...fields];
    },
    effectFieldsOf(resource) {
      const fields = new Set<string>();
      for (const c of compiled.byResource.values()) {
        for (const w of [c.onCreate, c.onUpdate, c.onDelete, ...c.transitions.values(), ...c.actions.values()]) {
          for (const e of w?.effects ?? []) {
            if (e.ref === undefined || e.target.name !== resource) continue;
            for (const x of [...e.set, ...e.increment]) fields.add(x.field.name);
          }
        }
      }
      // A related change sets the target's managed fields of a change too (its updatedAt).
      if (fields.size) for (const f of compiled.byResource.get(resource)?.managedOn.change ?? []) fields.add(f.name);
      return [...fields];
    },
    create: (resource, request, body, id) => step(resource, 'create', compiled.byResource.get(resource.name)?.onCreate, () => context(request, body), id),
    change: (resource, request, body) => step(resource, 'change', compiled.byResource.get(resource.name)?.onUpdate, () => context(request, body)),
    transition: (resource, transition, request, body) => step(resource, 'change', compiled.byResource.get(resource.name)?.transitions.get(transition), () => context(request, body)),
    action: (resource, endpoint, request, body) => step(resource, 'change', compiled.byResource.get(resource.name)?.actions.get(endpoint.id), () => context(request, body, endpoint.request.kind === 'shape' ? endpoint.request.fields : undefined)),
    remove: (resource, request) => step(resource, 'delete', compiled.byResource.get(resource.name)?.onDelete, () => context(request, {})),
    // The convention every stage reads (src/spec/conventions/endpoints.ts), and the compiled effects to perform it by.
    performs: (endpoint) => performedByReference(endpoint) && (compiled.byResource.get(endpoint.resource)?.actions.get(endpoint.id)?.effects.length ?? 0) > 0,
    httpError(error) {
      if (error instanceof DomainRefusedError) {
        const r = error.refusal as Refusal;
        const at = error.index !== undefined ? `/items/${error.index}` : '';
        const detail = error.index !== undefined ? `Item ${error.index}: ${r.detail}` : r.detail;
        return new HttpError('rule-refused', { code: r.code, detail, ...(r.pointer ? { errors: [{ pointer: `${at}${r.pointer}`, message: r.detail }] } : {}) });
      }
      if (error instanceof UniqueViolationError) {
        const u = uniques.get(`${error.resource}:${error.constraint}`);
        if (!u) return undefined;
        const which = u.fields.length === 1 ? `this ${u.fields[0]}` : `these values of ${u.fields.join(', ')}`;
        const detail = `Another ${u.resource.resource.name} has ${which}${error.index !== undefined ? ` (item ${error.index})` : ''}; each must be unique.`;
        return new HttpError('rule-refused', { code: u.error, detail, errors: u.fields.map((f) => ({ pointer: error.index !== undefined ? `/items/${error.index}/${f}` : `/${f}`, message: 'is taken' })) });
      }
      if (error instanceof DomainLimitError) return new HttpError('rule-refused', { detail: error.message });
      return undefined;
    },
  };
}
