/**
 * The protocol promises of part 8 across exchanges, where the spec states them
 * (src/spec/conventions/promises.ts; a default of the reference service is no promise):
 *   - idempotency keys: a POST repeated with the same key and body by the same principal is
 *     answered with the first answer, not a second record; another principal's same key is
 *     its own (scope: credential) (draft-ietf-httpapi-idempotency-key-header §2);
 *   - page links: a page with a next one links it with its position (RFC 8288 §3);
 *   - filters: every record of every page meets the filters the query asked for.
 * And part 7: no error body shows how the service is built (a stack frame, a source path, a
 * database message; the tester's own patterns, src/conformance/parts/errors-internals.ts).
 */
import { BoundedMap } from '../../spec/bounded-map.ts';
import { idempotencyPromise, pageLinksPromise } from '../../spec/conventions/promises.ts';
import { resolveSituations } from '../../spec/http-errors.ts';
import { pageSettings } from '../../spec/conventions/pagination.ts';
import { readFilterParam } from '../../spec/conventions/query.ts';
import type { Endpoint, Resource, Spec } from '../../spec/model.ts';
import { leakIn } from '../../conformance/parts/errors-internals.ts';
import { readList } from './endpoints.ts';
import type { Found, Seen } from '../seen.ts';
import { isObject } from './values.ts';

interface Keyed {
  readonly principal: string;
  readonly body: string;
  readonly id: string;
}

export class PromiseJudge {
  readonly #spec: Spec;
  readonly #idempotency;
  readonly #links: boolean;
  readonly #keys = new BoundedMap<string, Keyed[]>(10_000);
  /** Who sent each key to each endpoint, answered or not. */
  readonly #senders = new BoundedMap<string, Set<string>>(10_000);
  readonly #reusedCode: string;

  constructor(spec: Spec) {
    this.#spec = spec;
    const i = idempotencyPromise(spec);
    this.#idempotency = i.stated ? i.value : undefined;
    const l = pageLinksPromise(spec);
    this.#links = l.stated && (l.value?.includes('next') ?? false);
    this.#reusedCode = resolveSituations(spec)('idempotency-key-reused').code;
  }

  findings(x: Seen): Found[] {
    const out: Found[] = [];
    const ex = x.exchange;
    if (ex.response.status >= 400 && ex.response.text) {
      const leak = leakIn(ex.response.text);
      if (leak) out.push({ part: 'errors', id: 'error-internals', ...(x.endpoint ? { endpoint: x.endpoint.id } : {}), message: `the ${ex.response.status} answer shows ${leak.what}: ${leak.shown}`, pointer: this.#spec.errors.shape?.pointer ?? this.#spec.parts.errors.pointer, text: 'errors.shape: what a client did wrong, not how the service is built' });
    }
    const endpoint = x.endpoint;
    const resource = endpoint ? this.#spec.resources.find((r) => r.name === endpoint.resource) : undefined;
    if (endpoint?.method === 'POST') out.push(...this.#reused(x, endpoint));
    if (!endpoint || !resource || !x.ok) return out;
    if (endpoint.method === 'POST') out.push(...this.#idempotent(x, endpoint, resource));
    if (endpoint.operation === 'list') out.push(...this.#page(x, endpoint));
    return out;
  }

  #sorted(x: Seen, endpoint: Endpoint, items: readonly unknown[], resource: Resource | undefined): Found[] {
    return sortedFindings(x, endpoint, items, resource, pageSettings(this.#spec).sortParam);
  }

  /** A key refused as reused, though this principal never sent it: keys are one namespace for all, not per credential. */
  #reused(x: Seen, endpoint: Endpoint): Found[] {
    const promise = this.#idempotency;
    const key = promise ? x.exchange.request.headers[promise.header.toLowerCase()] : undefined;
    if (!promise || !key || promise.scope !== 'credential') return [];
    const slot = `${endpoint.id}\u0000${key}`;
    const senders = this.#senders.get(slot) ?? new Set<string>();
    const principal = x.principal ?? '';
    const json = x.exchange.response.json;
    const member = this.#spec.errors.shape?.members.code ?? 'code';
    const reused = x.exchange.response.status >= 400 && isObject(json) && json[member] === this.#reusedCode;
    const out: Found[] = reused && senders.size > 0 && !senders.has(principal)
      ? [{ part: 'limits', id: 'idempotency-shared', endpoint: endpoint.id, message: `${endpoint.id} refused ${promise.header}: ${key} as reused, though only another principal sent it before; keys are one namespace per credential`, pointer: this.#spec.limits.idempotency?.pointer ?? this.#spec.parts.limits.pointer, text: `limits.idempotency: ${promise.header}, per ${promise.scope}` }]
      : [];
    senders.add(principal);
    this.#senders.set(slot, senders);
    return out;
  }

  #idempotent(x: Seen, endpoint: Endpoint, resource: Resource): Found[] {
    const promise = this.#idempotency;
    const key = promise ? x.exchange.request.headers[promise.header.toLowerCase()] : undefined;
    if (!promise || !key || !isObject(x.exchange.response.json)) return [];
    const id = x.exchange.response.json[resource.id?.field ?? 'id'];
    if (typeof id !== 'string' && typeof id !== 'number') return [];
    const principal = promise.scope === 'credential' ? (x.principal ?? '') : 'address';
    const slot = `${endpoint.id}\u0000${key}`;
    const earlier = this.#keys.get(slot) ?? [];
    const body = x.exchange.request.body ?? '';
    const text = `limits.idempotency: ${promise.header}, per ${promise.scope}`;
    const base = { part: 'limits' as const, endpoint: endpoint.id, pointer: this.#spec.limits.idempotency?.pointer ?? this.#spec.parts.limits.pointer, text };
    const out: Found[] = [];
    const same = earlier.find((k) => k.principal === principal && k.body === body);
    if (same && same.id !== String(id)) out.push({ ...base, id: 'idempotency-ignored', message: `${endpoint.id} repeated with ${promise.header}: ${key} made ${resource.name} ${id}; the first answer made ${same.id}, which a retry must get again` });
    const other = earlier.find((k) => k.principal !== principal && k.id === String(id));
    if (other && !same) out.push({ ...base, id: 'idempotency-shared', message: `${endpoint.id} answered another principal's ${promise.header}: ${key} with that principal's ${resource.name} ${id}; keys are one namespace per ${promise.scope}` });
    if (!same) this.#keys.set(slot, [...earlier.slice(-7), { principal, body, id: String(id) }]);
    return out;
  }

  #page(x: Seen, endpoint: Endpoint): Found[] {
    const settings = pageSettings(this.#spec);
    const ex = x.exchange;
    const page = readList(this.#spec, endpoint, x.route.query, ex.response.json, ex.response.headers.link);
    if (typeof page === 'string') return [];
    const out: Found[] = [];
    const pointer = this.#spec.limits.pagination?.pointer ?? endpoint.pointer;
    if (this.#links && page.next !== null && page.next !== undefined) {
      const link = /<([^>]*)>\s*;[^,]*rel="?next"?/i.exec(ex.response.headers.link ?? '');
      if (!link) out.push({ part: 'limits', id: 'page-link-missing', endpoint: endpoint.id, message: `${endpoint.id}: the page has a next one, and no Link rel="next" to it`, pointer, text: 'limits.pagination: links [next]' });
      else if (!new URLSearchParams(link[1].split('?')[1] ?? '').has(settings.positionParam)) out.push({ part: 'limits', id: 'page-link', endpoint: endpoint.id, message: `${endpoint.id}: Link rel="next" <${link[1]}> carries no ${settings.positionParam}: it leads back to the first page`, pointer, text: 'limits.pagination: links [next]' });
    }
    const decl = endpoint.query;
    if (!decl) return out;
    const resource = this.#spec.resources.find((r) => r.name === endpoint.resource);
    out.push(...this.#sorted(x, endpoint, page.items, resource));
    for (const [name, value] of x.route.query) {
      const filter = readFilterParam(name, decl);
      const field = filter && resource?.fields.find((f) => f.name === filter.field);
      if (!filter || !field) continue;
      const numeric = field.type === 'integer' || field.type === 'number';
      for (const item of page.items) {
        if (!isObject(item) || meets(item[filter.field], filter.op, value, numeric)) continue;
        const declared = decl.filters.find((f) => f.field === filter.field);
        out.push({ part: 'endpoints', id: 'filter-broken', endpoint: endpoint.id, message: `${endpoint.id}: a record on the page has ${filter.field} ${JSON.stringify(item[filter.field])}, which ${name}=${value} leaves out`, pointer: declared?.pointer ?? decl.pointer, text: `${endpoint.id} query: ${filter.field}: ${declared?.ops.join(', ') ?? filter.op}` });
        break;
      }
    }
    return out;
  }
}

/**
 * A page asked for in a declared order is in that order, by its first key. Only numbers are
 * judged: the order of text depends on a collation the spec does not state.
 */
function sortedFindings(x: Seen, endpoint: Endpoint, items: readonly unknown[], resource: Resource | undefined, sortParam: string): Found[] {
  const decl = endpoint.query;
  const raw = x.route.query.get(sortParam);
  if (!decl || !raw || !resource) return [];
  const first = raw.split(',')[0].trim();
  const name = first.replace(/^[-+]/, '');
  const field = resource.fields.find((f) => f.name === name);
  if (!decl.sort.includes(name) || !field || (field.type !== 'integer' && field.type !== 'number')) return [];
  const sign = first.startsWith('-') ? -1 : 1;
  const values = items.map((i) => (isObject(i) ? i[name] : undefined));
  for (let i = 1; i < values.length; i++) {
    const a = values[i - 1];
    const b = values[i];
    if (typeof a !== 'number' || typeof b !== 'number') continue;
    if (sign * (b - a) < 0) return [{ part: 'endpoints', id: 'sort-broken', endpoint: endpoint.id, message: `${endpoint.id}: asked for ${sortParam}=${raw}, the page has ${name} ${a} before ${b}`, pointer: decl.pointer, text: `${endpoint.id} query: sort ${decl.sort.join(', ')}` }];
  }
  return [];
}

/** Whether a value meets a filter (docs/format.md "Filters"); text is compared without case, so a service that folds case is not blamed. */
function meets(v: unknown, op: string, raw: string, numeric: boolean): boolean {
  const cmp = (a: unknown, b: string) => (numeric ? Number(a) - Number(b) : String(a) < b ? -1 : String(a) > b ? 1 : 0);
  if (op === 'exists') return raw === 'true' ? v !== null && v !== undefined : raw === 'false' ? v === null || v === undefined : true;
  if (v === null || v === undefined) return op === 'ne';
  switch (op) {
    case 'eq': return String(v) === raw;
    case 'ne': return String(v) !== raw;
    case 'in': return raw.split(',').includes(String(v));
    case 'lt': return cmp(v, raw) < 0;
    case 'lte': return cmp(v, raw) <= 0;
    case 'gt': return cmp(v, raw) > 0;
    case 'gte': return cmp(v, raw) >= 0;
    case 'prefix': return String(v).toLowerCase().startsWith(raw.toLowerCase());
    case 'contains': return String(v).toLowerCase().includes(raw.toLowerCase());
    default: return true;
  }
}
