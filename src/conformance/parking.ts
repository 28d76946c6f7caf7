/**
 * Records whose checks are done, kept for later walks where a resource's create is scarce
 * (DataFactory.scarce; helpdesk: 5 tickets a minute per address): a state check parks what
 * it leaves in a state it is done with, a domain rule's scene (parts/rules-scene.ts) parks
 * its records when the next scene begins or its part ends, in the state a read then finds
 * them in. A check that needs a record in some state walks a parked one on from where it is
 * (parts/states.ts recordIn) rather than making one; the records refs share are never parked.
 */
import { hasOwner } from '../spec/conventions/ownership.ts';
import type { Resource } from '../spec/model.ts';
import type { Principal } from './context.ts';
import type { DataFactory, Made } from './data.ts';
import { isObject } from './expect.ts';

interface Parked {
  readonly id: string;
  readonly state: string;
  /** Who made it: of an owned resource, only they may walk it. */
  readonly as?: string;
}

export class Parking {
  readonly #data: DataFactory;
  /** By resource. */
  readonly #parked = new Map<string, Parked[]>();
  /** Where in the made records the open scene began (open). */
  #sceneSince: number | undefined;
  /** Records of closed scenes, their states not read yet. */
  readonly #loose: Made[] = [];
  /** Records refs share (`resource:id`): never walked away by a later check. */
  readonly #shared = new Set<string>();

  constructor(data: DataFactory) {
    this.#data = data;
  }

  /** A record refs share: never parked. */
  shared(resource: Resource, id: string): void {
    this.#shared.add(`${resource.name}:${id}`);
  }

  /** A record no check will use as it is any more, in a state: a later walk may start from it. */
  park(resource: Resource, id: string, state: string, as?: Principal): void {
    const list = this.#parked.get(resource.name) ?? [];
    if (!list.some((p) => p.id === id)) list.push({ id, state, ...(as ? { as: as.name } : {}) });
    this.#parked.set(resource.name, list);
  }

  /** A domain rule check's scene begins: the records the one before made are done with. */
  openScene(): void {
    this.closeScene();
    this.#sceneSince = this.#data.madeCount();
  }

  /** The open scene's records are done with (a part ends, another scene begins). */
  closeScene(): void {
    if (this.#sceneSince === undefined) return;
    this.#loose.push(...this.#data.madeSince(this.#sceneSince).filter((m) => this.#data.scarce(m.resource) && this.#data.machine(m.resource)));
    this.#sceneSince = undefined;
  }

  /** Parks the records of closed scenes in the states a read finds them in (gone or unreadable ones are left). */
  async #parkLoose(): Promise<void> {
    const ctx = this.#data.ctx;
    for (const made of this.#loose.splice(0)) {
      const machine = this.#data.machine(made.resource);
      const read = ctx.endpoint(made.resource.name, 'read');
      if (!machine || !read || this.#shared.has(`${made.resource.name}:${made.id}`)) continue;
      const ex = await ctx.call('GET', this.#data.itemPath(read, made.id), { as: made.as ?? null });
      const state = isObject(ex.response.json) ? ex.response.json[machine.field] : undefined;
      if (ex.response.status === 200 && typeof state === 'string') this.park(made.resource, made.id, state, made.as);
    }
  }

  /**
   * A parked record of a scarce resource from whose state `routeFrom` finds a way (the
   * shortest found first), taken off the list; of an owned resource, only one `as` made.
   */
  async take<T extends readonly unknown[]>(resource: Resource, routeFrom: (state: string) => T | undefined, as?: Principal): Promise<{ id: string; state: string; route: T } | undefined> {
    if (!this.#data.scarce(resource)) return undefined;
    await this.#parkLoose();
    const list = this.#parked.get(resource.name) ?? [];
    let best: { index: number; route: T } | undefined;
    for (const [index, p] of list.entries()) {
      if (hasOwner(resource) && p.as !== as?.name) continue;
      const route = routeFrom(p.state);
      if (route && (!best || route.length < best.route.length)) best = { index, route };
    }
    if (!best) return undefined;
    const [taken] = list.splice(best.index, 1);
    return { id: taken.id, state: taken.state, route: best.route };
  }
}
