/**
 * Records the tester makes through the API: valid create bodies from the spec's fields
 * (refs filled by creating the referenced record first), the created records' ids, and
 * the clean-up at the end (delete, where the spec has a delete endpoint).
 */
import type { Endpoint, Field, Resource, StateMachine } from '../spec/model.ts';
import { Failure, NotApplicable, Skip, type Principal, type TestContext } from './context.ts';
import { isObject } from './expect.ts';
import { REF, valueOf, type RefMarker } from './generate.ts';
import type { Exchange } from './http.ts';
import { hasOwner } from '../spec/conventions/ownership.ts';
import { fillPath, parentParams } from '../spec/conventions/paths.ts';
import { cleanUp, settleLate } from './late.ts';
import { Parking } from './parking.ts';
import { CANDIDATE_TRIES, DomainRules } from './rules-data.ts';
import { dropRefused, freshTarget, friendlyItems, guardedRef, itemTarget, type FreshOptions } from './data-guards.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { CreateFailures, readCreated } from './created.ts';
import { answeredMade, itemPath, itemsMade, pathFor, sentThrough, unreadMade } from './made.ts';
import { RefTargets } from './ref-targets.ts';

/** How many more bodies a create draws when a declared uniqueness refuses the one it drew. */
export const UNIQUE_RETRIES = 3;

export interface Made {
  readonly resource: Resource;
  readonly id: string;
  /** The body sent. */
  readonly sent: Record<string, unknown>;
  /** The representation the create answered with. */
  readonly body: Record<string, unknown>;
  readonly exchange: Exchange;
  readonly as?: Principal;
  /** The implementation's clock (ctx.now) just before the create was sent and just after its answer, where data.create made it. */
  readonly from?: number;
  readonly to?: number;
}

export class DataFactory {
  readonly ctx: TestContext;
  readonly #made: Made[] = [];
  /** Records a create made that could not be read (#unread): for the clean-up only. */
  readonly #unreadMade: Made[] = [];
  /** The records refs point at (./ref-targets.ts). */
  readonly #refs: RefTargets;
  /** The spec's domain rules, which generated data respects (./rules-data.ts). */
  readonly domain: DomainRules;
  /** Records the ref members of array items point at, for which the guards on each item hold (./data-guards.ts). */
  readonly itemTargets = new Map<string, { id: string | number; data: Record<string, unknown> }>();
  /** Records whose checks are done, walked on by later checks where the create is scarce (./parking.ts). */
  readonly parking: Parking;
  /** The record made for a ref a transition's guard reads, by referrer, field and principal (./data-guards.ts guardedRef). */
  readonly guarded = new Map<string, string | number>();
  /** The string values drawn so far, per resource and field. */
  readonly #seen = new Map<string, Set<string>>();
  /** Failed creates, each reported once (./created.ts). */
  readonly #failed = new CreateFailures();

  constructor(ctx: TestContext) {
    this.ctx = ctx;
    this.domain = new DomainRules(ctx.spec);
    this.parking = new Parking(this);
    this.#refs = new RefTargets(this);
  }

  idField(resource: Resource): string {
    return resource.id?.field ?? 'id';
  }

  machine(resource: Resource): StateMachine | undefined {
    return this.ctx.spec.states.find((m) => m.resource === resource.name);
  }

  /** The fields a client writes on create: not readOnly, not the state, the id only when the client assigns it. */
  writable(resource: Resource, version?: string): Field[] {
    const state = this.machine(resource)?.field;
    return this.ctx.fieldsOf(resource, version).filter((f) => !f.readOnly && f.name !== state && (f.name !== this.idField(resource) || idOf(resource).assigned === 'client'));
  }

  /** The fields a create request carries: those its endpoint lists, else every writable one. */
  createFields(resource: Resource, version?: string): Field[] {
    const request = this.ctx.endpoint(resource.name, 'create')?.request;
    const writable = this.writable(resource, version);
    if (request?.kind === 'fields') return this.ctx.fieldsOf(resource, version).filter((f) => request.fields.includes(f.name));
    if (request?.kind === 'none') return [];
    return writable;
  }

  /**
   * A body satisfying every constraint, with every field a create carries (refs to records made
   * for them). It respects the domain rules too (./rules-data.ts): candidates are drawn until
   * the record rules hold on the record the create would store (and `accept`, when given,
   * agrees) and no value under a uniqueness was used before; after CANDIDATE_TRIES the check
   * asking for it is not checked rather than failed. Refs a guard or uniqueness reads point
   * at records made for them that nothing accepted refers to yet (./ref-targets.ts); other refs
   * point at records made for this body (`refs: 'fresh'`, the default) where the referenced
   * resource's quota affords it, else at one record made for all; a body meant to be refused
   * shares (`refs: 'shared'`).
   */
  async validBody(resource: Resource, options: { only?: readonly string[]; version?: string; as?: Principal; set?: Record<string, unknown>; accept?: (record: Record<string, unknown>) => boolean; rules?: false; room?: number; refs?: 'fresh' | 'shared' } = {}): Promise<Record<string, unknown>> {
    const fields = this.createFields(resource, options.version).filter((f) => !options.only || options.only.includes(f.name));
    let raw: Record<string, unknown> | undefined;
    for (let i = 0; i < CANDIDATE_TRIES && !raw; i++) {
      const candidate: Record<string, unknown> = {};
      // Each string field a value no earlier body of the run gave it: a uniqueness the tester does not know of never refuses it.
      for (const f of fields) candidate[f.name] = this.#distinct(resource, f);
      Object.assign(candidate, options.set ?? {});
      const record = this.domain.predictCreate(resource, candidate, this.ctx.now());
      if (options.only === undefined && options.rules !== false && this.domain.brokenRule(resource, record, this.ctx.now())) continue;
      if (!this.domain.unused(resource, candidate)) continue;
      if (options.accept && !options.accept(record)) continue;
      if (options.only === undefined && options.rules !== false && this.domain.itemGuardsRefuse(resource, record, this.ctx.now())) continue;
      if (options.only === undefined && options.rules !== false) dropRefused(this, resource, candidate, fields);
      raw = candidate;
    }
    if (!raw) throw new Skip(`not checked: no ${resource.name} among ${CANDIDATE_TRIES} generated ones met the spec's domain rules (its record rules, its unique values${options.accept ? ', the guards that read it' : ''})`);
    const body: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(raw)) {
      const f = fields.find((x) => x.name === name);
      if (f?.type === 'ref' && options.set?.[name] === undefined && this.domain.freshRef(resource, name)) body[name] = options.room ? await this.freshTarget(resource, f, options.as, { room: options.room }) : await this.#refs.unused(resource, f, options.as);
      else body[name] = await this.fill(value, options.as, options.refs);
    }
    await friendlyItems(this, resource, body, options.as);
    this.domain.use(resource, body);
    return body;
  }

  /**
   * A record made for one ref of one body: the guards of the referring resource that read it
   * hold for it (a fresh loan's book has a copy on the shelf), and nothing else points at it.
   */
  freshTarget(referrer: Resource, field: Field, as?: Principal, options: FreshOptions = {}): Promise<string | number> {
    return freshTarget(this, referrer, field, as, options);
  }

  /** A value of a field; of a string field, one the run has not drawn for it before (a few draws, then whatever came). */
  #distinct(resource: Resource, f: Field): unknown {
    const arb = valueOf(f);
    if (f.type !== 'string' || f.enum?.length) return this.ctx.draw.one(arb);
    const key = `${resource.name}.${f.name}`;
    let seen = this.#seen.get(key);
    if (!seen) this.#seen.set(key, (seen = new Set()));
    let value = this.ctx.draw.one(arb);
    for (let i = 0; i < 20 && seen.has(JSON.stringify(value)); i++) value = this.ctx.draw.one(arb);
    seen.add(JSON.stringify(value));
    return value;
  }

  /** A record for the ref member of one item for which the guards on the items hold (./data-guards.ts); `fresh`: made for the caller alone. */
  itemTarget(resource: Resource, field: string, member: string, target: Resource, item: Record<string, unknown>, as?: Principal, fresh = false): Promise<{ id: string | number; data: Record<string, unknown> }> {
    return itemTarget(this, resource, field, member, target, item, as, fresh);
  }

  /** A value for named fields only (a transition's requirements). */
  async valuesFor(resource: Resource, names: readonly string[], as?: Principal): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = {};
    for (const name of names) {
      const f = resource.fields.find((x) => x.name === name);
      // A ref a guard reads points at a record made for it for which the guard holds (a captured payment).
      if (f?.type === 'ref' && f.resource && this.domain.refGuards(resource, name).length) body[name] = await guardedRef(this, resource, f, as);
      else if (f) body[name] = await this.fill(this.ctx.draw.one(valueOf(f)), as);
    }
    return body;
  }

  /** The record shared by refs to a resource (one per run; of an owned one, one per principal), made on first need (./ref-targets.ts). */
  sharedRef(target: Resource, as?: Principal): Promise<string | number> {
    return this.#refs.fill({ [REF]: target.name } as RefMarker, as, 'shared');
  }

  /**
   * Whether a resource's create window cannot hold about two creates a field it carries
   * (helpdesk: 5 tickets a minute): then its quota is kept for what only its create shows,
   * and records made only to be pointed at, walked through states or refused are shared.
   */
  scarce(resource: Resource): boolean {
    const endpoint = this.createEndpointOrUndefined(resource);
    const policy = endpoint && this.ctx.quota.policyOf(endpoint);
    return policy !== undefined && policy.limit < 2 * this.createFields(resource).length;
  }

  async fill(value: unknown, as?: Principal, refs: 'fresh' | 'shared' = 'fresh'): Promise<unknown> {
    if (isObject(value) && REF in value) return this.#refs.fill(value as unknown as RefMarker, as, refs);
    if (Array.isArray(value)) return Promise.all(value.map((v) => this.fill(v, as, refs)));
    if (isObject(value)) return Object.fromEntries(await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await this.fill(v, as, refs)] as const)));
    return value;
  }

  createEndpointOrUndefined(resource: Resource): Endpoint | undefined {
    return this.ctx.endpoint(resource.name, 'create');
  }

  /** The create of a resource; of a singleton without one, its replace (`PUT /me`), which creates the caller's record. */
  createEndpoint(resource: Resource): Endpoint {
    const e = this.ctx.endpoint(resource.name, 'create') ?? this.#singletonReplace(resource);
    if (!e) throw new NotApplicable(`${resource.name} has no create endpoint, so the tester cannot make one`);
    return e;
  }

  #singletonReplace(resource: Resource): Endpoint | undefined {
    if (resource.perOwner !== 'one') return undefined;
    return this.ctx.spec.endpoints.find((e) => e.resource === resource.name && e.select === 'caller' && e.operation === 'replace');
  }

  /**
   * The path a create of `resource` is sent to, its parameters filled: a create that exists
   * only nested (`POST /patients/{patientId}/appointments`) names the parent of the body's
   * ref, or, where the body has none (or there is no body, a check of how a malformed one is
   * refused), a parent made for it. Every check that posts a create sends it here: the
   * template itself (`{patientId}` as it stands) is a 404 of a parent that does not exist.
   */
  async createPath(resource: Resource, body?: Readonly<Record<string, unknown>>, as?: Principal): Promise<string> {
    const endpoint = this.createEndpoint(resource);
    const parents: Record<string, string | number> = {};
    for (const p of parentParams(endpoint)) {
      const v = body?.[p.field];
      parents[p.name] = typeof v === 'string' || typeof v === 'number' ? v : await this.#refs.fill({ [REF]: p.resource } as RefMarker, as);
    }
    return Object.keys(parents).length ? fillPath(endpoint.path, parents) : endpoint.path;
  }

  /**
   * Creates a record through the API; fails the calling check when the create is refused.
   * Of a `perOwner: one` resource a principal has one record: once it has made it, a
   * further "create" replaces it through the singleton (`select: caller`) replace endpoint,
   * which answers as a create would, or is skipped where the spec has none.
   */
  async create(resource: Resource, options: { as?: Principal; body?: Record<string, unknown>; version?: string; redraw?: () => Promise<Record<string, unknown>> } = {}): Promise<Made> {
    const endpoint = this.createEndpoint(resource);
    const as = options.as ?? this.#creator(resource, endpoint);
    if (!as && endpoint.auth && !endpoint.auth.public) throw this.ctx.noPrincipal(endpoint);
    const draw = () => this.validBody(resource, { as, ...(options.version ? { version: options.version } : {}) });
    let sent = options.body ?? (await draw());
    let method = endpoint.method;
    let path = await this.createPath(resource, sent, as);
    if (resource.perOwner === 'one' && this.#made.some((m) => m.resource === resource && m.as?.name === as?.name)) {
      const mine = this.#singletonReplace(resource);
      if (!mine) throw new Skip(`${as?.name ?? 'the caller'} has its one ${resource.name} (perOwner: one) already, and the spec has no replace of it to start afresh`);
      method = mine.method;
      path = mine.path;
    }
    let from = this.ctx.now();
    const wire = (b: Record<string, unknown>) => (method === endpoint.method ? sentThrough(endpoint, b) : b);
    let ex = await this.ctx.call(method, path, { body: wire(sent), as: as ?? null, ...(options.version ? { version: options.version } : {}) });
    // A body of its own drawing refused by a declared uniqueness: a record the run cannot know of
    // holds the value (one an earlier run with the same seed left), so another body is drawn.
    // A given body is drawn again only by its own `redraw` (a record made to suit the guards that read it).
    for (let i = 0; (!options.body || options.redraw) && i < UNIQUE_RETRIES && this.takenUnique(resource, ex); i++) {
      sent = await (options.redraw ?? draw)();
      from = this.ctx.now();
      ex = await this.ctx.call(method, path, { body: wire(sent), as: as ?? null, ...(options.version ? { version: options.version } : {}) });
    }
    const to = this.ctx.now();
    // A replace that created the record answers 201 (RFC 9110 §9.3.4), which it need not declare.
    let read: Awaited<ReturnType<typeof readCreated>>;
    try {
      read = await readCreated(this.ctx, this.#failed, resource, ex, endpoint.operation === 'create' && method === endpoint.method ? endpoint : undefined, this.idField(resource), as);
    } catch (error) {
      this.#unread(resource, ex, as);
      throw error;
    }
    const { body, id } = read;
    const made: Made = { resource, id: String(id), sent, body, exchange: ex, ...(as ? { as } : {}), from, to };
    this.#made.push(made);
    return made;
  }

  /** Whether a refusal is one of the resource's declared uniqueness errors. */
  takenUnique(resource: Resource, ex: Exchange): boolean {
    const member = this.ctx.errorShape.members.code;
    const code = member && isObject(ex.response.json) ? ex.response.json[member] : undefined;
    return ex.response.status >= 400 && typeof code === 'string' && resource.unique.some((u) => u.error === code);
  }

  /**
   * Who makes a record no check asked a principal for: of a resource whose records anyone
   * may read (no owner, not one per owner) under a per-credential quota, the principal with
   * the most of it left, so a run spreads its creates across the principals given rather
   * than waiting out one credential's window; else the first that may.
   */
  #creator(resource: Resource, endpoint: Endpoint): Principal | undefined {
    const first = this.ctx.principalFor(endpoint);
    const policy = this.ctx.quota.policyOf(endpoint);
    if (!first || !policy || policy.scope !== 'credential' || hasOwner(resource) || resource.perOwner) return first;
    let best = first;
    for (const p of this.ctx.principals) if (this.ctx.may(p, endpoint) && this.ctx.quota.left(endpoint, p.name) > this.ctx.quota.left(endpoint, best.name)) best = p;
    return best;
  }

  /**
   * A record the service should have refused but made: deleted at once (best effort), so
   * that what later checks list is not skewed by it, and each finding stays with what failed.
   */
  async discard(resource: Resource, ex: Exchange, as?: Principal): Promise<void> {
    const made = answeredMade(resource, this.idField(resource), ex, as);
    const del = this.ctx.endpoint(resource.name, 'delete');
    if (!made) return this.#unread(resource, ex, as);
    // What cannot be deleted now is kept for the clean-up, which names it if it stays.
    if (!del || !(await this.ctx.call('DELETE', itemPath(del, made.id), { as: as ?? null }).then((gone) => gone.response.status < 300, () => false))) this.#made.push(made);
  }

  /**
   * A create that succeeded but whose record could not be read (no body, and its Location not
   * served): the record is there all the same. Its id is the Location's last segment, as the
   * convention writes it; the clean-up deletes it, or names it among those left.
   */
  #unread(resource: Resource, ex: Exchange, as?: Principal): void {
    // Apart from the records the checks use (firstMade, the shared targets): its body is unknown.
    const made = unreadMade(resource, ex, as);
    if (made) this.#unreadMade.push(made);
  }

  /** Records a record the service created in a check's own request, so the clean-up deletes it too. */
  track(resource: Resource, ex: Exchange, as?: Principal): Made | undefined {
    const made = answeredMade(resource, this.idField(resource), ex, as);
    if (made) this.#made.push(made);
    return made;
  }

  /** Records a bulk write made (`{ items: [records] }`), so the clean-up deletes them too. */
  trackItems(resource: Resource, ex: Exchange, member: string, as?: Principal): void {
    this.#made.push(...itemsMade(resource, this.idField(resource), ex, member, as));
  }

  /** The records made from position `since` on (madeCount), in order. */
  madeSince(since: number): readonly Made[] {
    return this.#made.slice(since);
  }

  /** How many records the run has made so far (a position for madeSince). */
  madeCount(): number {
    return this.#made.length;
  }

  /** The first record the run made of a resource for which `which` holds, if any. */
  firstMadeWhere(resource: Resource, which: (m: Made) => boolean): Made | undefined {
    return this.#made.find((m) => m.resource === resource && which(m));
  }

  /** The first record the run made of a resource (its create check's), if any. */
  firstMade(resource: Resource): Made | undefined {
    return this.#made.find((m) => m.resource === resource);
  }

  /** How many records of a resource the run has made and not yet cleaned up: what a walk of its list will meet at least. */
  count(resource: Resource): number {
    return this.#made.filter((m) => m.resource === resource).length;
  }

  /** Who makes a record of a resource no check asked a principal for (see #creator). */
  maker(resource: Resource): Principal | undefined {
    const endpoint = this.createEndpointOrUndefined(resource);
    return endpoint ? this.#creator(resource, endpoint) : undefined;
  }

  /** The path of an item endpoint for a record (./made.ts). */
  itemPath(endpoint: Endpoint, id: string): string {
    // Reached only through its parent (`/projects/{projectId}/tasks/{id}/start`): the parent of the record the run made.
    if (parentParams(endpoint).length) {
      const made = this.#made.find((m) => m.resource.name === endpoint.resource && m.id === id);
      if (made) return pathFor(endpoint, made);
    }
    return itemPath(endpoint, id);
  }

  /** The path of an endpoint for a record made: its id, and its parents (a nested path) from its refs (./made.ts). */
  pathFor(endpoint: Endpoint, made: Pick<Made, 'id' | 'body'>): string {
    return pathFor(endpoint, made);
  }

  /** Deletes what the run made, and says what it could not remove (./late.ts). */
  async cleanup(): Promise<Record<string, number>> {
    // Creates the run stopped waiting for: what their late answers name is tracked, and removed with the rest.
    const unanswered = await settleLate(this);
    return cleanUp(this, [...this.#made.splice(0), ...this.#unreadMade.splice(0)], unanswered);
  }
}
