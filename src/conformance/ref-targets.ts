/**
 * The records the refs of the bodies a run sends point at (./data.ts DataFactory owns one):
 * a record shared by every ref to a resource (one per run; of an owned one, one per
 * principal), a fresh one where a body needs its own (a ref a guard or uniqueness reads) and
 * the quota affords it, and a fresh one reused by later bodies until anything the
 * implementation accepted refers to it, so the bodies the checks expect to be refused cost no
 * records of their own.
 */
import type { Field, Resource } from '../spec/model.ts';
import { hasOwner } from '../spec/conventions/ownership.ts';
import { idOf } from '../spec/conventions/ids.ts';
import { Skip, type Principal } from './context.ts';
import type { DataFactory } from './data.ts';
import { isObject } from './expect.ts';
import { REF, type RefMarker } from './generate.ts';

export class RefTargets {
  readonly #data: DataFactory;
  /** One record per resource to point refs at where fresh ones cost too much, made on first need. */
  readonly #targets = new Map<string, Promise<string>>();
  /** Records made for refs a guard or uniqueness reads, not yet referred to by anything accepted (unused). */
  readonly #unused = new Map<string, { id: string | number; since: number }>();

  constructor(data: DataFactory) {
    this.#data = data;
  }

  /**
   * A record made for one ref, reused by later bodies until anything the implementation
   * accepted refers to it (a 2xx answer naming it in that field).
   */
  async unused(referrer: Resource, field: Field, as?: Principal): Promise<string | number> {
    const key = `${referrer.name}.${field.name}:${as?.name ?? ''}`;
    const log = this.#data.ctx.client.log;
    const kept = this.#unused.get(key);
    if (kept) {
      // The log holds answers as they came: the referrer's record inside its envelope, where it has one.
      const member = referrer.envelope;
      const named = (v: unknown): boolean => isObject(v) && (String(v[field.name]) === String(kept.id) || (Array.isArray(v.items) && v.items.some(named)) || (member !== undefined && named(v[member])));
      if (!log.slice(kept.since).some((ex) => ex.response.status < 300 && named(ex.response.json))) return kept.id;
    }
    const id = await this.#data.freshTarget(referrer, field, as);
    this.#unused.set(key, { id, since: log.length });
    return id;
  }

  /** The id a ref marker of a drawn body is filled with: a fresh record where `refs` asks and the quota affords one, else the shared one. */
  async fill(marker: RefMarker, as?: Principal, refs: 'fresh' | 'shared' = 'shared'): Promise<string | number> {
    const data = this.#data;
    const ctx = data.ctx;
    const target = ctx.resource(marker[REF]);
    if (!target) throw new Skip(`a ref names resource '${marker[REF]}', which the spec does not declare`);
    const number = (value: string) => (idOf(target).assigned === 'sequence' && /^\d+$/.test(value) ? Number(value) : value);
    const targetCreate = ctx.endpoint(target.name, 'create');
    // The referencing record's maker makes it where it must own it or may; else whoever may.
    const by = as && (hasOwner(target) || (targetCreate && ctx.may(as, targetCreate))) ? as : undefined;
    if (refs === 'fresh' && this.#affords(target, by)) return number((await data.create(target, { ...(by ? { as: by } : {}) })).id);
    // One shared record per resource; of an owned one, one per principal (another's is not there for it).
    const key = hasOwner(target) ? `${target.name}:${as?.name ?? ''}` : target.name;
    let id = this.#targets.get(key);
    // Of a scarce create, the first record the run made of it (its create check's) is the one shared.
    const first = !id && data.scarce(target) ? data.firstMadeWhere(target, (m) => !hasOwner(target) || m.as?.name === as?.name) : undefined;
    if (first) this.#targets.set(key, (id = Promise.resolve(first.id)));
    if (!id) {
      id = data.create(target, { as }).then((m) => m.id);
      this.#targets.set(key, id);
    }
    const shared = await id;
    data.parking.shared(target, String(shared));
    return number(shared);
  }

  /**
   * Whether a record made only to be pointed at is worth its quota: its create is not a
   * singleton's, its policy is not scarce (scarceCreate in parts/create-refusals.ts), and it
   * has more than half its window left (the rest is kept for the checks of that resource
   * itself). The tester spends a scarce quota where it matters.
   */
  #affords(target: Resource, as?: Principal): boolean {
    const ctx = this.#data.ctx;
    const endpoint = ctx.endpoint(target.name, 'create');
    if (!endpoint || target.perOwner === 'one') return false;
    const policy = ctx.quota.policyOf(endpoint);
    if (!policy) return true;
    if (this.#data.scarce(target)) return false;
    return ctx.quota.left(endpoint, (as ?? ctx.principalFor(endpoint))?.name) > policy.limit / 2;
  }
}
