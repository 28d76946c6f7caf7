/**
 * A scripted client for the Prism test (prism.test.ts): it calls every endpoint of a spec
 * over HTTP the way a client of the OpenAPI export would — creates, reads (and 304s), lists
 * and their pages, updates, replaces, every transition (walking each state machine through
 * all of them), deletes — and some requests the service refuses: a body missing a required
 * field, an illegal transition, a stale If-Match, an unknown query parameter, a missing
 * record, a request without credentials, a body of another media type.
 *
 * Each exchange is kept with what the proxy in front said about it (its `sl-violations`
 * header) and what it was meant to be: `valid`, a request the export allows, or
 * `invalid-request`, one the export itself forbids (so only request violations are expected).
 * Bodies are generated from the spec's fields (the tester's generator, src/conformance/
 * generate.ts), seen as the exported version sees them; refs point at records made first.
 */
import type { Endpoint, Field, Resource, Spec, StateMachine, Transition } from '../../src/spec/model.ts';
import { Draw, REF, valueOf } from '../../src/conformance/generate.ts';
import { itemFields } from '../../src/spec/domain/cel.ts';
import { DomainRules } from '../../src/conformance/rules-data.ts';
import { exportVersion } from '../../src/export/version.ts';
import { pageSettings, readPage } from '../../src/spec/conventions/pagination.ts';
import { fillPath, idParam, isPlain, parentParams } from '../../src/spec/conventions/paths.ts';
import { filterParam } from '../../src/spec/conventions/query.ts';

export interface Violation {
  readonly location: readonly string[];
  readonly severity: string;
  readonly code?: string | number;
  readonly message: string;
}

export type Intent = 'valid' | 'invalid-request';

export interface Exchange {
  /** The id of the endpoint called. */
  readonly endpoint: string;
  readonly what: string;
  readonly intent: Intent;
  readonly method: string;
  readonly path: string;
  /** The status the script expects: a number, or 'success' for any 2xx. */
  readonly expected: number | 'success';
  readonly status: number;
  readonly violations: readonly Violation[];
  readonly etag?: string;
  /** The request body sent, when it was JSON. */
  readonly sent?: unknown;
  /** The response body, parsed when it is JSON. */
  readonly body: unknown;
}

interface Made {
  readonly id: string | number;
  etag: string;
  state?: string;
  /** The record as its create answered it: an update must keep its record rules. */
  readonly body: Record<string, unknown>;
}

export class ScriptedClient {
  readonly exchanges: Exchange[] = [];
  readonly #spec: Spec;
  readonly #resources: ReadonlyMap<string, Resource>;
  readonly #base: string;
  readonly #auth: Readonly<Record<string, string>>;
  readonly #draw: Draw;
  readonly #rules: DomainRules;
  readonly #made = new Map<string, Made[]>();
  readonly #making = new Set<string>();

  constructor(spec: Spec, baseUrl: string, auth: Readonly<Record<string, string>>, seed = 7) {
    this.#spec = spec;
    this.#rules = new DomainRules(spec);
    // The fields as the exported version (the default) sees them: the one a request naming none is served in.
    this.#resources = new Map(exportVersion(spec, undefined, 'OpenAPI').resources.map((r) => [r.name, r]));
    this.#base = baseUrl;
    this.#auth = auth;
    this.#draw = new Draw(seed);
  }

  /** Calls every endpoint; the order makes refs and states available before they are needed. */
  async run(): Promise<void> {
    for (const r of this.#resources.values()) if (this.#endpoint(r.name, 'create')) await this.#pool(r, true);
    for (const r of this.#resources.values()) await this.#createWithNulls(r);
    for (const r of this.#resources.values()) {
      await this.#reads(r);
      await this.#writes(r);
    }
    await this.#nested();
    await this.#singletons();
    for (const machine of this.#spec.states) await this.#walk(machine);
    for (const r of this.#resources.values()) await this.#deletes(r);
    // Last, when most records exist: pages follow one another.
    for (const r of this.#resources.values()) await this.#lists(r);
    await this.#openSurface();
    await this.#refusals();
    // Replayed by its Idempotency-Key (on the last resource: the first may have a tight create limit).
    const last = [...this.#resources.values()].reverse().find((r) => this.#endpoint(r.name, 'create'));
    if (last) {
      const e = this.#endpoint(last.name, 'create') as Endpoint;
      const body = await this.#body(last, this.#requestFields(e, last));
      const key = { 'idempotency-key': `prism-${last.name}` };
      await this.send(e, 'a create with an Idempotency-Key', e.path, { body, headers: key, expect: 201 });
      await this.send(e, 'the same create again: replayed', e.path, { body, headers: key, expect: 201 });
    }
  }

  // ---- one exchange ----------------------------------------------------------------------

  async send(endpoint: Endpoint, what: string, path: string, options: { expect?: number; intent?: Intent; body?: unknown; raw?: { text: string; type: string }; headers?: Record<string, string>; anonymous?: boolean } = {}): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...(options.anonymous ? {} : this.#auth), ...options.headers };
    let body: string | undefined;
    if (options.raw) {
      body = options.raw.text;
      headers['content-type'] = options.raw.type;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.#base}${path}`, { method: endpoint.method, headers, body, signal: AbortSignal.timeout(15_000) });
    const text = await response.text();
    const header = response.headers.get('sl-violations');
    let violations: Violation[] = [];
    if (header) {
      try {
        violations = JSON.parse(header) as Violation[];
      } catch {
        violations = [{ location: ['header'], severity: 'Error', message: header }];
      }
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    const etag = response.headers.get('etag') ?? undefined;
    const exchange: Exchange = {
      endpoint: endpoint.id, what, intent: options.intent ?? 'valid', method: endpoint.method, path,
      expected: options.expect ?? 'success', status: response.status, violations, ...(etag ? { etag } : {}),
      ...(options.body !== undefined && !options.raw ? { sent: options.body } : {}), body: parsed,
    };
    this.exchanges.push(exchange);
    const made = this.#find(endpoint.resource, path);
    if (made && etag && response.ok) made.etag = etag;
    return exchange;
  }

  /** The record a path names, when it is one of ours. */
  #find(resource: string, path: string): Made | undefined {
    return this.#made.get(resource)?.find((m) => path.split('/').includes(encodeURIComponent(String(m.id))));
  }

  // ---- the operations ----------------------------------------------------------------------

  /** The plain endpoint of an operation (its own {id} at most); nested ones are #nested's. */
  #endpoint(resource: string, operation: Endpoint['operation'], transition?: string): Endpoint | undefined {
    return this.#spec.endpoints.find((e) => isPlain(e) && e.resource === resource && e.operation === operation && (transition === undefined || e.transition === transition));
  }

  /**
   * Endpoints through a parent (`/members/{memberId}/loans`): the parent is the first record
   * of its resource, and the child the first of its own, whose refs point at those firsts.
   */
  /** Endpoints of the caller's own record (`select: caller`, `/me`): none yet 404, a PUT creates it (201), then reads, changes, replaces. */
  async #singletons(): Promise<void> {
    const mine = this.#spec.endpoints.filter((e) => e.select === 'caller');
    for (const r of this.#resources.values()) {
      const of = (op: Endpoint['operation']) => mine.find((e) => e.resource === r.name && e.operation === op);
      const read = of('read');
      const replace = of('replace');
      const update = of('update');
      if (read) await this.send(read, 'a read of the caller\'s own record before there is one', read.path, { expect: 404 });
      if (replace) {
        const body = await this.#body(r, this.#requestFields(replace, r));
        await this.send(replace, 'a replace that creates the caller\'s own record', replace.path, { body, expect: r.perOwner === 'one' ? 201 : 404 });
        await this.send(replace, 'a replace of the caller\'s own record', replace.path, { body, expect: 200 });
      }
      if (read) await this.send(read, 'a read of the caller\'s own record', read.path, { expect: 200 });
      if (update) await this.send(update, 'an update of the caller\'s own record', update.path, { body: await this.#body(r, this.#requestFields(update, r).slice(0, 1)), headers: { 'content-type': 'application/merge-patch+json' }, expect: 200 });
    }
  }

  async #nested(): Promise<void> {
    for (const e of this.#spec.endpoints) {
      const parents = parentParams(e);
      const r = this.#resources.get(e.resource);
      if (!parents.length || !r) continue;
      const values: Record<string, string | number> = {};
      for (const p of parents) {
        const target = this.#resources.get(p.resource);
        if (!target) throw new Error(`${e.id}: the parent resource ${p.resource} is unknown`);
        values[p.name] = (await this.#pool(target)).id;
      }
      if (e.operation === 'list') {
        await this.send(e, 'a list through a parent', fillPath(e.path, values));
      } else if (e.operation === 'create') {
        const fields = this.#requestFields(e, r).filter((f) => !parents.some((p) => p.field === f.name));
        await this.send(e, 'a create through a parent', fillPath(e.path, values), { body: await this.#body(r, fields), expect: 201 });
      } else if (e.operation === 'read') {
        const child = await this.#pool(r);
        await this.send(e, 'a read through its parent', fillPath(e.path, { ...values, [idParam(e) ?? 'id']: child.id }), { expect: 200 });
      } else {
        throw new Error(`${e.id}: the scripted client does not call a nested ${e.operation} yet`);
      }
    }
  }

  #item(endpoint: Endpoint, id: string | number): string {
    return endpoint.path.replace(/\{\w+\}/, encodeURIComponent(String(id)));
  }

  #machine(resource: string): StateMachine | undefined {
    return this.#spec.states.find((m) => m.resource === resource);
  }

  /** A record of the resource: the first made, or a new one. */
  async #pool(r: Resource, fresh = false): Promise<Made> {
    const existing = this.#made.get(r.name)?.[0];
    if (existing && !fresh) return existing;
    return this.#create(r, 'a valid create');
  }

  async #create(r: Resource, what: string, headers: Record<string, string> = {}): Promise<Made> {
    const e = this.#endpoint(r.name, 'create');
    if (!e) throw new Error(`${r.name} has no create endpoint, so no record of it can be made`);
    if (this.#making.has(r.name)) throw new Error(`refs make a cycle through ${r.name}: no record can be made first`);
    this.#making.add(r.name);
    let ex: Exchange;
    try {
      ex = await this.send(e, what, e.path, { body: await this.#body(r, this.#requestFields(e, r)), headers });
    } finally {
      this.#making.delete(r.name);
    }
    if (ex.status !== 201) throw new Error(`${e.id}: a valid create was answered ${ex.status}: ${JSON.stringify(ex.body)}`);
    const body = ex.body as Record<string, unknown>;
    const machine = this.#machine(r.name);
    const made: Made = { id: body[r.id?.field ?? 'id'] as string | number, etag: ex.etag ?? '', body, ...(machine ? { state: body[machine.field] as string } : {}) };
    const list = this.#made.get(r.name) ?? [];
    list.push(made);
    this.#made.set(r.name, list);
    return made;
  }

  /** A create with every nullable field it carries set to null, where there are some. */
  async #createWithNulls(r: Resource): Promise<void> {
    const e = this.#endpoint(r.name, 'create');
    if (!e) return;
    const fields = this.#requestFields(e, r);
    const nullable = fields.filter((f) => f.nullable);
    if (!nullable.length) return;
    const body = await this.#body(r, fields.filter((f) => !f.nullable));
    for (const f of nullable) body[f.name] = null;
    await this.send(e, `a create with ${nullable.map((f) => f.name).join(', ')} null`, e.path, { body, expect: 201 });
  }

  async #reads(r: Resource): Promise<void> {
    const e = this.#endpoint(r.name, 'read');
    if (!e) return;
    const made = await this.#pool(r);
    const read = await this.send(e, 'a read', this.#item(e, made.id));
    if (read.status !== 200) throw new Error(`${e.id} was answered ${read.status}: ${JSON.stringify(read.body)}`);
    await this.send(e, 'a read with a current If-None-Match', this.#item(e, made.id), { headers: { 'if-none-match': made.etag }, expect: 304 });
    await this.send(e, 'a read of no record', this.#item(e, this.#missingId(r)), { expect: 404 });
  }

  async #lists(r: Resource): Promise<void> {
    const e = this.#endpoint(r.name, 'list');
    if (!e) return;
    const page = pageSettings(this.#spec);
    await this.send(e, 'a list', e.path);
    // A page by its first position where a request without one gets every record (`unpaged: all`).
    const start = page.unpaged === 'all' ? `&${page.positionParam}=${page.style === 'page' ? 1 : 0}` : '';
    const first = await this.send(e, 'a first page of one', `${e.path}?${page.sizeParam}=1${start}`);
    const read = readPage(page, first.body, undefined);
    const next = typeof read === 'string' ? null : read.next;
    if (next !== null && next !== undefined) await this.send(e, 'the next page', `${e.path}?${page.sizeParam}=1&${page.positionParam}=${encodeURIComponent(String(next))}`);
    const machine = this.#machine(r.name);
    if (machine && (!e.query || e.query.filters.some((f) => f.field === machine.field && f.ops.includes('eq')))) await this.send(e, 'a list filtered by state', `${e.path}?${machine.field}=${encodeURIComponent(machine.initial)}`);
    // Sort keys, comma-separated (the export: an array, style form, not exploded).
    const idField = r.id?.field ?? 'id';
    // A declared query sorts by its own fields only, and filters as it declares (the first of each).
    const keys = e.query ? e.query.sort.slice(0, 2) : r.fields.filter((f) => f.name !== idField && !f.writeOnly && ['string', 'integer', 'number', 'boolean'].includes(f.type)).slice(0, 2).map((f) => f.name);
    const filter = e.query?.filters.find((f) => f.ops.includes('gte'));
    if (filter) await this.send(e, 'a list filtered by a range', `${e.path}?${encodeURIComponent(filterParam(filter.field, 'gte', e.query!.style))}=${filter.field === 'publishedOn' ? '2000-01-01' : '1'}`);
    if (e.query?.search) await this.send(e, 'a list searched', `${e.path}?${e.query.search.param}=the`);
    if (keys.length) await this.send(e, 'a sorted list', `${e.path}?${page.sortParam}=${keys.map((k, i) => (i === 0 ? `-${k}` : k)).join(',')}&${page.sizeParam}=2`);
    await this.send(e, 'a list with an unknown query parameter', `${e.path}?no-such-parameter=1`, { expect: 422 });
  }

  async #writes(r: Resource): Promise<void> {
    const update = this.#endpoint(r.name, 'update');
    const replace = this.#endpoint(r.name, 'replace');
    if (!update && !replace) return;
    const made = await this.#pool(r);
    if (update) {
      const body = await this.#body(r, this.#requestFields(update, r), made.body);
      await this.send(update, 'an update (merge patch)', this.#item(update, made.id), { body, headers: { 'content-type': 'application/merge-patch+json', 'if-match': made.etag } });
      await this.send(update, 'an update as application/json', this.#item(update, made.id), { body });
      await this.send(update, 'an update with a stale If-Match', this.#item(update, made.id), { body, headers: { 'if-match': '"stale"' }, expect: 412 });
      // RFC 7396: null removes an optional member.
      // …except one whose removal (its default taking its place) would break a record rule of the spec.
      const optional = this.#requestFields(update, r).filter((f) => !f.required && !f.nullable && f.type !== 'ref' && this.#keepsRules(r, made.body, { [f.name]: f.hasDefault ? f.default : undefined }) && this.#friendlyToItems(r, { ...made.body, [f.name]: f.hasDefault ? f.default : undefined }));
      if (optional.length) await this.send(update, `an update removing ${optional.map((f) => f.name).join(', ')} (null)`, this.#item(update, made.id), { body: Object.fromEntries(optional.map((f) => [f.name, null])), headers: { 'content-type': 'application/merge-patch+json' } });
    }
    if (replace) {
      const body = await this.#body(r, this.#requestFields(replace, r), made.body);
      await this.send(replace, 'a replace', this.#item(replace, made.id), { body, headers: { 'if-match': made.etag } });
    }
  }

  async #deletes(r: Resource): Promise<void> {
    const e = this.#endpoint(r.name, 'delete');
    if (!e) return;
    const made = await this.#create(r, 'a create to delete');
    await this.send(e, 'a delete', this.#item(e, made.id), { headers: { 'if-match': made.etag } });
    await this.send(e, 'a delete of a deleted record', this.#item(e, made.id), { expect: 404 });
    const read = this.#endpoint(r.name, 'read');
    if (read) await this.send(read, 'a read of a deleted record', this.#item(read, made.id), { expect: 404 });
    this.#made.set(r.name, (this.#made.get(r.name) ?? []).filter((m) => m !== made));
  }

  /**
   * Every transition of the machine at least once: from a record's state, the next one not
   * yet taken that leaves the most still reachable; when none is allowed there, the shortest
   * way to a state that allows one; when none is reachable, a new record. Then an illegal one.
   */
  async #walk(machine: StateMachine): Promise<void> {
    const r = this.#resources.get(machine.resource);
    if (!r || !this.#endpoint(r.name, 'create')) return;
    const pending = new Set(machine.transitions.filter((t) => this.#endpoint(r.name, 'transition', t.name)).map((t) => t.name));
    // The first record made, still in the initial state (update and replace cannot move it).
    let record = await this.#pool(r);
    for (let steps = 0; pending.size && steps < 100; steps++) {
      const state = record.state ?? machine.initial;
      const here = machine.transitions.filter((t) => pending.has(t.name) && t.from.includes(state));
      let route: Transition[];
      if (here.length) {
        const score = (t: Transition) => this.#reachable(machine, t.to, pending).size - (t.to === state ? 0.5 : 0);
        route = [here.reduce((best, t) => (score(t) > score(best) ? t : best))];
      } else {
        const found = this.#routeTo(machine, state, (s) => machine.transitions.some((t) => pending.has(t.name) && t.from.includes(s)));
        if (!found) {
          record = await this.#create(r, 'a create to walk through the states');
          continue;
        }
        route = found;
      }
      for (const t of route) {
        await this.#fire(r, machine, record, t, 'a transition');
        pending.delete(t.name);
      }
    }
    if (pending.size) throw new Error(`${machine.resource}: transitions never reached: ${[...pending].join(', ')}`);
    // An illegal transition: one the record's state does not allow.
    const state = record.state ?? machine.initial;
    const illegal = machine.transitions.find((t) => !t.from.includes(state) && this.#endpoint(r.name, 'transition', t.name));
    if (illegal) await this.#fire(r, machine, record, illegal, `an illegal transition from ${state}`, false);
  }

  async #fire(r: Resource, machine: StateMachine, record: Made, t: Transition, what: string, legal = true): Promise<void> {
    const e = this.#endpoint(r.name, 'transition', t.name) as Endpoint;
    const names = [...new Set([...(e.request.kind === 'fields' ? e.request.fields : []), ...t.requires])];
    const body = names.length ? await this.#body(r, names.map((n) => r.fields.find((f) => f.name === n)).filter((f): f is Field => f !== undefined)) : undefined;
    // A ref a guard of the transition reads points at a record of its own, walked to a state the guard allows (a captured payment).
    for (const n of names) {
      const f = r.fields.find((x) => x.name === n);
      const target = f?.type === 'ref' ? this.#resources.get(f.resource ?? '') : undefined;
      const targetMachine = target && this.#machine(target.name);
      if (!body || !target || !targetMachine || !legal || !this.#rules.refGuards(r, n).length) continue;
      const made = await this.#create(target, 'a record a guard of the transition reads');
      const friendly = (state: string) => this.#rules.friendlyTarget(r, n, { ...made.body, [targetMachine.field]: state }, target, Date.now());
      if (!friendly(made.state ?? targetMachine.initial)) for (const step of this.#routeTo(targetMachine, made.state ?? targetMachine.initial, friendly) ?? []) await this.#fire(target, targetMachine, made, step, 'a transition on the way to a state a guard allows');
      body[n] = made.id;
    }
    const ex = await this.send(e, what, this.#item(e, record.id), { ...(body ? { body } : {}), headers: { 'if-match': record.etag }, ...(legal ? {} : { expect: 409 }) });
    if (!legal) return;
    if (ex.status !== 200) throw new Error(`${e.id} from ${record.state} was answered ${ex.status}: ${JSON.stringify(ex.body)}`);
    record.state = (ex.body as Record<string, unknown>)[machine.field] as string;
  }

  /** The states reachable from a state (itself included), by the transitions still pending. */
  #reachable(machine: StateMachine, from: string, pending: ReadonlySet<string>): Set<string> {
    const seen = new Set([from]);
    const names = new Set<string>();
    const queue = [from];
    while (queue.length) {
      const s = queue.shift() as string;
      for (const t of machine.transitions) {
        if (!t.from.includes(s)) continue;
        if (pending.has(t.name)) names.add(t.name);
        if (!seen.has(t.to)) {
          seen.add(t.to);
          queue.push(t.to);
        }
      }
    }
    return names;
  }

  /** The shortest route of transitions from a state to one that satisfies `goal` (BFS). */
  #routeTo(machine: StateMachine, from: string, goal: (state: string) => boolean): Transition[] | undefined {
    const routes = new Map<string, Transition[]>([[from, []]]);
    const queue = [from];
    while (queue.length) {
      const s = queue.shift() as string;
      if (goal(s) && s !== from) return routes.get(s);
      for (const t of machine.transitions) {
        if (!t.from.includes(s) || routes.has(t.to) || !this.#endpoint(machine.resource, 'transition', t.name)) continue;
        routes.set(t.to, [...(routes.get(s) as Transition[]), t]);
        queue.push(t.to);
      }
    }
    return undefined;
  }

  /** Requests the service refuses, each answered as the export says. */
  async #refusals(): Promise<void> {
    const creatable = [...this.#resources.values()].map((r) => ({ r, e: this.#endpoint(r.name, 'create') })).filter((x) => x.e);
    const withRequired = creatable.find(({ r, e }) => this.#requestFields(e as Endpoint, r).some((f) => f.required && !f.hasDefault));
    if (withRequired) {
      const { r, e } = withRequired as { r: Resource; e: Endpoint };
      const fields = this.#requestFields(e, r);
      const missing = fields.find((f) => f.required && !f.hasDefault) as Field;
      const body = await this.#body(r, fields.filter((f) => f !== missing));
      await this.send(e, `a create without the required ${missing.name}`, e.path, { body, intent: 'invalid-request', expect: 422 });
      await this.send(e, 'a create in text/plain', e.path, { raw: { text: 'hello', type: 'text/plain' }, intent: 'invalid-request', expect: 415 });
    }
    const guarded = this.#spec.endpoints.find((x) => x.operation === 'read' && x.auth && !x.auth.public);
    if (guarded && Object.keys(this.#auth).length) {
      const made = await this.#pool(this.#resources.get(guarded.resource) as Resource);
      await this.send(guarded, 'a read without credentials', this.#item(guarded, made.id), { anonymous: true, intent: 'invalid-request', expect: 401 });
    }
  }

  // ---- the open surface (issue #13) --------------------------------------------------------

  /**
   * Bulk creates (two valid items), a bulk update (one record) and a bulk delete (two), reads and lists with every expandable ref expanded, and
   * prose actions (see below).
   */
  async #openSurface(): Promise<void> {
    for (const e of this.#spec.endpoints) {
      const r = this.#resources.get(e.resource);
      if (!r) continue;
      if (e.operation === 'bulk-create') {
        const create = this.#endpoint(r.name, 'create') ?? e;
        const items = [await this.#body(r, this.#requestFields(create, r)), await this.#body(r, this.#requestFields(create, r))];
        await this.send(e, 'a bulk create of two items', e.path, { body: { items }, expect: 201 });
      } else if (e.operation === 'bulk-update') {
        const create = this.#endpoint(r.name, 'create') ?? e;
        const idField = r.id?.field ?? 'id';
        const target = await this.#pool(r);
        const item = { ...(await this.#body(r, this.#requestFields(create, r), target.body)), [idField]: target.id };
        await this.send(e, 'a bulk update of one record', e.path, { body: { items: [item] }, expect: 200 });
      } else if (e.operation === 'bulk-delete') {
        const made = [await this.#create(r, 'a create to bulk-delete'), await this.#create(r, 'a create to bulk-delete')];
        await this.send(e, 'a bulk delete of two records', e.path, { body: { items: made.map((m) => m.id) }, expect: 204 });
        this.#made.set(r.name, (this.#made.get(r.name) ?? []).filter((m) => !made.includes(m)));
      } else if (e.expand && (e.operation === 'read' || e.operation === 'list')) {
        const expand = `expand=${e.expand.fields.join(',')}`;
        const path = e.operation === 'read' ? this.#item(e, (await this.#pool(r)).id) : e.path;
        await this.send(e, `a ${e.operation} with ${expand}`, `${path}?${expand}`);
      } else if (e.operation === 'action') {
        const path = e.action?.target === 'record' ? this.#item(e, (await this.#pool(r)).id) : e.path;
        const request = e.request;
        const fields = request.kind === 'shape' ? request.fields : this.#requestFields(e, r);
        // The reference answers 501; Prism's proxy answers an upstream 501 with a response mocked
        // from the export instead (its "not implemented upstream" fallback), which it then checks.
        await this.send(e, 'a prose action', path, { ...(request.kind === 'none' ? {} : { body: await this.#body(r, fields) }) });
      }
    }
  }

  // ---- bodies ------------------------------------------------------------------------------

  /** The fields a request of the endpoint carries: those it names, else the writable ones. */
  #requestFields(e: Endpoint, r: Resource): Field[] {
    const state = this.#machine(r.name)?.field;
    const idField = r.id?.field ?? 'id';
    if (e.request.kind === 'none') return [];
    if (e.request.kind === 'fields') {
      const names = e.request.fields;
      return r.fields.filter((f) => names.includes(f.name));
    }
    return r.fields.filter((f) => !f.readOnly && f.name !== state && (f.name !== idField || (r.id?.assigned === 'client' && e.operation === 'create')));
  }

  /**
   * A body of these fields. Given the record it changes, drawn again until the record as
   * changed keeps the spec's record rules (a book's copies never below what is on the shelf).
   */
  async #body(r: Resource, fields: readonly Field[], changes?: Record<string, unknown>): Promise<Record<string, unknown>> {
    for (let attempt = 0; ; attempt++) {
      const out: Record<string, unknown> = {};
      for (const f of fields) out[f.name] = this.#draw.one(valueOf(f));
      // A record other records' guards on each item read (an order line's product) is one for which they hold.
      if (attempt < 40 && !this.#friendlyToItems(r, changes ? { ...changes, ...out } : out)) continue;
      // An optional member a create guard refuses whatever exists (a coupon code no coupon has) is left out.
      for (const g of this.#rules.refusingCreateGuards(r, out, Date.now())) for (const m of g.expr.source.matchAll(/\brequest\.(\w+)/g)) if (!fields.find((f) => f.name === m[1])?.required) delete out[m[1] as string];
      for (const f of fields) if (f.name in out) out[f.name] = await this.#fill(out[f.name]);
      if (!changes || attempt >= 40 || this.#keepsRules(r, changes, out)) return out;
    }
  }

  /** Whether a record lets the guards on each item of other resources hold that read it, for an item of the largest values. */
  #friendlyToItems(r: Resource, record: Record<string, unknown>): boolean {
    for (const other of this.#spec.resources) {
      for (const f of other.fields) {
        for (const m of itemFields(f)) {
          if (m.type !== 'ref' || m.resource !== r.name) continue;
          const item = Object.fromEntries(itemFields(f).flatMap((x) => (x.maximum !== undefined ? [[x.name, x.maximum]] : [])));
          if (!this.#rules.friendlyItemTarget(other, f.name, m.name, item, this.#rules.predictCreate(r, record, Date.now()), r, Date.now())) return false;
        }
      }
    }
    return true;
  }

  /** Whether a record, with these members changed (undefined: removed), keeps the spec's record rules. */
  #keepsRules(r: Resource, record: Record<string, unknown>, changed: Record<string, unknown>): boolean {
    const next: Record<string, unknown> = { ...record };
    for (const [k, v] of Object.entries(changed)) {
      if (v === undefined) delete next[k];
      else next[k] = v;
    }
    return this.#rules.brokenRule(r, next, Date.now()) === undefined;
  }

  async #fill(value: unknown): Promise<unknown> {
    if (value && typeof value === 'object' && REF in value) {
      const target = this.#resources.get((value as { [REF]: string })[REF]);
      if (!target) throw new Error(`a ref names an unknown resource`);
      const made = await this.#pool(target);
      return made.id;
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const v of value) out.push(await this.#fill(v));
      return out;
    }
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = await this.#fill(v);
      return out;
    }
    return value;
  }

  #missingId(r: Resource): string | number {
    switch (r.id?.assigned) {
      case 'sequence':
        return 999_999_999;
      case 'client':
        return 'no-such-record';
      default:
        return '00000000-0000-4000-8000-000000000000';
    }
  }
}
