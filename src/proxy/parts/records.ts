/**
 * What the proxy learns across exchanges, record by record (parts 2, 3 and 5): the state it
 * last saw each record in, whether it saw it deleted, who created it (of an owned resource),
 * the ETag it last carried, and the pages of each list walk. From these it judges what no
 * single exchange shows:
 *   - a transition answered 2xx was legal from the state last seen, and left the record in
 *     the transition's target state;
 *   - a record read after its delete was answered 2xx is not found (404);
 *   - a record of an owned resource never reaches a principal other than its creator;
 *   - a record unchanged between two reads keeps its ETag (RFC 9110 §8.8.3);
 *   - a walk through a list's pages never meets a record twice (unless the list changed).
 * It knows only the traffic it relays: a change made past the proxy is unknown to it, so
 * the README tells a builder to put every client of the development server behind it.
 */
import { BoundedMap } from '../../spec/bounded-map.ts';
import { hasOwner } from '../../spec/conventions/ownership.ts';
import { conditionalPromise, type ConditionalSettings } from '../../spec/conventions/promises.ts';
import { pageSettings } from '../../spec/conventions/pagination.ts';
import { readList } from './endpoints.ts';
import { idParam } from '../../spec/conventions/paths.ts';
import type { Endpoint, Resource, Spec, StateMachine } from '../../spec/model.ts';
import type { Found, Seen } from '../seen.ts';
import { isObject } from './values.ts';

interface Known {
  state?: string;
  /** The count of writes seen when the state was last seen (an effect of another write may change it). */
  stateAt?: number;
  deleted: boolean;
  owner?: string;
  etag?: string;
  /** The count of writes seen when the ETag was read: an effect of any write may change the record. */
  etagAt?: number;
  /** The version it was read in: each version's representation has its own tag (RFC 9110 §8.8.3). */
  etagVersion?: string;
}

interface Walk {
  readonly ids: Set<string>;
  readonly writes: number;
}

export class RecordJudge {
  readonly #spec: Spec;
  readonly #records = new BoundedMap<string, Known>();
  readonly #machines = new Map<string, StateMachine>();
  readonly #walks = new BoundedMap<string, Walk>(10_000);
  /** Writes seen per resource, so a walk over a list that changed is not judged. */
  readonly #writes = new Map<string, number>();
  #allWrites = 0;
  /** The conditional requests the spec states (none where it is silent: a default is no promise). */
  readonly #conditional?: ConditionalSettings;
  /** Resources whose state field an effect of some write sets. */
  readonly #volatile = new Set<string>();

  /** Who created a record, as far as the traffic showed (a create by a principal of an owned resource). */
  ownerOf(resource: string, id: unknown): string | undefined {
    return typeof id === 'string' || typeof id === 'number' ? this.#records.get(`${resource}\u0000${id}`)?.owner : undefined;
  }

  constructor(spec: Spec) {
    this.#spec = spec;
    for (const m of spec.states) this.#machines.set(m.resource, m);
    const c = conditionalPromise(spec);
    if (c.stated && c.value?.validators.includes('etag')) this.#conditional = c.value;
    const rules = [...spec.resources.flatMap((r) => [r.onCreate, r.onUpdate, r.onDelete].map((w) => ({ resource: r, w }))), ...spec.states.flatMap((m) => m.transitions.map((t) => ({ resource: spec.resources.find((r) => r.name === m.resource), w: t.rules }))), ...spec.endpoints.map((e) => ({ resource: spec.resources.find((r) => r.name === e.resource), w: e.action?.rules }))];
    for (const { resource, w } of rules) {
      for (const effect of w?.effects ?? []) {
        const target = effect.ref ? resource?.fields.find((f) => f.name === effect.ref)?.resource : resource?.name;
        const machine = target ? this.#machines.get(target) : undefined;
        if (machine && effect.set.some((s) => s.field === machine.field)) this.#volatile.add(machine.resource);
      }
    }
  }

  findings(x: Seen): Found[] {
    const endpoint = x.endpoint;
    if (!endpoint) return [];
    const resource = this.#spec.resources.find((r) => r.name === endpoint.resource);
    if (!resource) return [];
    const out: Found[] = [];
    const ex = x.exchange;
    const status = ex.response.status;
    const idName = idParam(endpoint);
    const id = idName ? x.route.params[idName] : undefined;
    const key = id !== undefined ? `${resource.name}\u0000${id}` : undefined;
    const known = key ? this.#records.get(key) : undefined;
    const base = { endpoint: endpoint.id };
    const write = endpoint.method !== 'GET';
    const writesBefore = this.#allWrites;
    if (write && x.ok) {
      this.#allWrites++;
      this.#writes.set(resource.name, (this.#writes.get(resource.name) ?? 0) + 1);
    }

    // A record deleted is gone: a read, a write, a transition of it must not succeed.
    if (known?.deleted && x.ok && endpoint.operation !== 'create' && !(endpoint.operation === 'replace' && status === 201)) {
      out.push({ ...base, part: 'resources', id: 'read-after-delete', message: `${endpoint.id} answered ${status} for ${resource.name} ${id}, which an earlier exchange deleted: it must be not found`, pointer: resource.pointer, text: `${resource.name}: a deleted record is gone (404)` });
    }
    // An owned record reaches only its owner.
    if (known?.owner && x.ok && x.principal && known.owner !== x.principal && resource.owned) {
      out.push({ ...base, part: 'authentication', id: 'owner-leak', message: `${endpoint.id} answered ${status} for ${resource.name} ${id} to a principal other than the one that created it`, pointer: resource.pointer, text: `${resource.name}: owned` });
    }
    out.push(...this.#preconditions(x, endpoint, known, writesBefore));
    if (endpoint.operation === 'transition' && x.ok && key) out.push(...this.#transition(x, endpoint, resource, known, writesBefore));
    if (known && write && !x.ok && status >= 500) known.state = undefined;
    if (!x.ok) return out;

    if (endpoint.operation === 'delete' && key) {
      this.#records.set(key, { deleted: true, ...(known?.owner ? { owner: known.owner } : {}) });
      return out;
    }
    if (endpoint.operation === 'list') {
      out.push(...this.#page(x, endpoint, resource));
      return out;
    }
    const body = ex.response.json;
    const recordId = isObject(body) ? body[resource.id?.field ?? 'id'] : undefined;
    if (typeof recordId !== 'string' && typeof recordId !== 'number') {
      // A write answered without the record: what it left is unknown.
      if (known && write) this.#records.set(key as string, { deleted: false, ...(known.owner ? { owner: known.owner } : {}) });
      return out;
    }
    const record = body as Record<string, unknown>;
    const k = `${resource.name}\u0000${recordId}`;
    const before = endpoint.operation === 'create' ? undefined : this.#records.get(k);
    const next: Known = { deleted: false, ...(before?.owner ? { owner: before.owner } : {}) };
    if (endpoint.operation === 'create' && x.principal && hasOwner(resource)) next.owner = x.principal;
    const machine = this.#machines.get(resource.name);
    if (machine && typeof record[machine.field] === 'string') {
      next.state = record[machine.field] as string;
      next.stateAt = this.#allWrites;
    }
    const etag = ex.response.headers.etag;
    if (endpoint.operation === 'read' && etag && before?.etag && before.etagAt === writesBefore && before.etagVersion === x.version?.name && before.etag !== etag) {
      out.push({ ...base, part: 'limits', id: 'etag-unstable', message: `${endpoint.id} answered ETag ${etag} for ${resource.name} ${recordId}, unchanged since it answered ${before.etag} (no write in between)`, pointer: this.#spec.limits.conditional?.pointer ?? resource.pointer, text: 'limits.conditional: a strong ETag' });
    }
    if (etag) {
      next.etag = etag;
      next.etagAt = this.#allWrites;
      if (x.version) next.etagVersion = x.version.name;
    }
    this.#records.set(k, next);
    return out;
  }

  /**
   * RFC 9110 §13.1.1: a write whose If-Match names none of the record's current tags fails
   * (412); §13.1.2: a read whose If-None-Match names the current tag is 304. Judged only when
   * the proxy saw the current tag (no write since, the same version).
   */
  #preconditions(x: Seen, endpoint: Endpoint, known: Known | undefined, writesBefore: number): Found[] {
    const c = this.#conditional;
    const current = known?.etag !== undefined && known.etagAt === writesBefore && known.etagVersion === x.version?.name ? known.etag : undefined;
    if (!c || !current || !x.ok) return [];
    const tags = (h: string) => h.split(',').map((t) => t.trim().replace(/^W\//, ''));
    const pointer = this.#spec.limits.conditional?.pointer ?? endpoint.pointer;
    const ifMatch = x.exchange.request.headers['if-match'];
    if (c.writes && endpoint.method !== 'GET' && ifMatch !== undefined && ifMatch.trim() !== '*' && !tags(ifMatch).includes(current)) {
      return [{ part: 'limits', id: 'precondition-ignored', endpoint: endpoint.id, message: `${endpoint.id} answered ${x.exchange.response.status} to If-Match: ${ifMatch}, though the record's current tag is ${current}: it must be 412`, pointer, text: 'limits.conditional: writes honour If-Match' }];
    }
    const ifNoneMatch = x.exchange.request.headers['if-none-match'];
    if (c.reads && endpoint.method === 'GET' && ifNoneMatch !== undefined && (ifNoneMatch.trim() === '*' || tags(ifNoneMatch).includes(current.replace(/^W\//, '')))) {
      return [{ part: 'limits', id: 'not-modified-ignored', endpoint: endpoint.id, message: `${endpoint.id} answered ${x.exchange.response.status} with the body to If-None-Match: ${ifNoneMatch}, the record's current tag: it must be 304`, pointer, text: 'limits.conditional: reads honour If-None-Match' }];
    }
    return [];
  }

  #transition(x: Seen, endpoint: Endpoint, resource: Resource, known: Known | undefined, writesBefore: number): Found[] {
    const machine = this.#machines.get(resource.name);
    const t = machine?.transitions.find((tr) => tr.name === endpoint.transition);
    if (!machine || !t) return [];
    const out: Found[] = [];
    const id = x.route.params[idParam(endpoint) ?? 'id'];
    const text = `${resource.name}.${t.name}: from [${t.from.join(', ')}] to ${t.to}`;
    // An effect of another write may move a state its machine lets effects set; then only a state seen since the last write counts.
    const current = known?.state !== undefined && (!this.#volatile.has(resource.name) || known.stateAt === writesBefore);
    if (current && known?.state !== undefined && !t.from.includes(known.state)) {
      out.push({ part: 'states', id: 'illegal-transition', endpoint: endpoint.id, message: `${endpoint.id} answered ${x.exchange.response.status} for ${resource.name} ${id}, last seen ${known.state}: ${t.name} is not allowed from ${known.state}`, pointer: t.pointer, text });
    }
    const body = x.exchange.response.json;
    if (isObject(body) && machine.field in body && body[machine.field] !== t.to) {
      out.push({ part: 'states', id: 'transition-target', endpoint: endpoint.id, message: `${endpoint.id} left ${resource.name} ${id} in ${JSON.stringify(body[machine.field])}, not ${t.to}`, pointer: t.pointer, text });
    }
    return out;
  }

  #page(x: Seen, endpoint: Endpoint, resource: Resource): Found[] {
    const settings = pageSettings(this.#spec);
    const page = readList(this.#spec, endpoint, x.route.query, x.exchange.response.json, x.exchange.response.headers.link);
    if (typeof page === 'string') return [];
    const out: Found[] = [];
    const idField = resource.id?.field ?? 'id';
    const ids: string[] = [];
    for (const item of page.items) {
      const id = isObject(item) ? item[idField] : undefined;
      if (typeof id === 'string' || typeof id === 'number') ids.push(String(id));
    }
    // Who sees what: every record of an owned resource in a list is the caller's own.
    if (resource.owned && x.principal) {
      for (const rid of ids) {
        const owner = this.#records.get(`${resource.name}\u0000${rid}`)?.owner;
        if (owner && owner !== x.principal) out.push({ part: 'authentication', id: 'owner-leak', endpoint: endpoint.id, message: `${endpoint.id} listed ${resource.name} ${rid} to a principal other than the one that created it`, pointer: resource.pointer, text: `${resource.name}: owned` });
      }
    }
    // A walk is one principal's pages of one path with the same query but the position (the parameters in order of name, as URLSearchParams.sort has them).
    let position: string | null = null;
    const rest: [string, string][] = [];
    for (const [name, value] of x.route.query) {
      if (name !== settings.positionParam) rest.push([name, value]);
      else position ??= value;
    }
    if (rest.length > 1) rest.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const walkKey = `${x.principal ?? ''}\u0000${x.route.path}\u0000${JSON.stringify(rest)}`;
    const writes = this.#writes.get(resource.name) ?? 0;
    let walk = this.#walks.get(walkKey);
    if (position === null || !walk || walk.writes !== writes) {
      walk = { ids: new Set(), writes };
      this.#walks.set(walkKey, walk);
      if (position !== null) return out;
    }
    for (const rid of ids) {
      if (walk.ids.has(rid)) out.push({ part: 'limits', id: 'page-repeat', endpoint: endpoint.id, message: `${endpoint.id}: the page at ${settings.positionParam}=${position} repeats ${resource.name} ${rid}, met on an earlier page of the same walk`, pointer: this.#spec.limits.pagination?.pointer ?? endpoint.pointer, text: `limits.pagination: ${settings.style} pages, each record once` });
      walk.ids.add(rid);
    }
    return out;
  }
}
