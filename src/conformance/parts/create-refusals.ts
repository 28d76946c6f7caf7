/**
 * The refusals only a create can show, where the create's quota is scarce (DataFactory.scarce;
 * helpdesk: 5 tickets a minute per address, about one create a field). Breaches at pointers
 * apart from each other (neither is the other or inside it, or the outer one keeps what is
 * inside: uniqueItems repeating a broken first item) go into one create; a refusal that is the
 * breach's situation (validation-failed) and lists the breach's pointer is that breach's
 * evidence: the service named that violation. A breach the batched refusal does not list (a
 * service that names only its first violation, or one that does not check it) is sent in a
 * create of its own, as without a scarce quota, so the verdict of every check is the same
 * either way; only the number of creates differs.
 */
import type { Endpoint, Resource } from '../../spec/model.ts';
import { Failure, type Principal, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError } from '../expect.ts';
import type { Exchange } from '../http.ts';

/** One breach a create shows: where it is, and how it changes a valid body. */
export interface CreateRefusal {
  readonly pointer: string;
  /**
   * The change keeps what is inside the value it changes (uniqueItems repeats the first item):
   * applied after the breaches inside it, it keeps them, so they share a create.
   */
  readonly keepsInside?: boolean;
  /** The breach gives the value another type: a validator need not hold it to the rules around it (Ajv's uniqueItems skips items of another type). */
  readonly changesType?: boolean;
  readonly change: (body: Record<string, unknown>) => void | Promise<void>;
}

/** Whether two breaches cannot share a create: at the same member, or one inside the other unless the outer keeps what is inside. */
function clash(a: CreateRefusal, b: CreateRefusal): boolean {
  if (a.pointer === b.pointer) return true;
  if (b.pointer.startsWith(`${a.pointer}/`)) return !a.keepsInside || b.changesType === true;
  if (a.pointer.startsWith(`${b.pointer}/`)) return !b.keepsInside || a.changesType === true;
  return false;
}

/** How deep a pointer goes: the deeper breaches are applied first, so an outer one that keeps what is inside keeps them. */
const depth = (pointer: string) => pointer.split('/').length;

export class RefusalBatches {
  readonly #ctx: TestContext;
  readonly #data: DataFactory;
  readonly #resource: Resource;
  readonly #create: Endpoint;
  readonly #as: Principal | undefined;
  readonly #cases: CreateRefusal[] = [];
  /** Of each case, its batch; made when the first batch is sent, once every case is known. */
  #batchOf: number[] | undefined;
  readonly #sent = new Map<number, Promise<Exchange>>();

  constructor(ctx: TestContext, data: DataFactory, resource: Resource, create: Endpoint, as: Principal | undefined) {
    this.#ctx = ctx;
    this.#data = data;
    this.#resource = resource;
    this.#create = create;
    this.#as = as;
  }

  /** Registers a breach before any is checked; returns its handle for `holds`. */
  add(refusal: CreateRefusal): number {
    if (this.#batchOf) throw new Error('RefusalBatches: a breach added after the first batch was sent');
    return this.#cases.push(refusal) - 1;
  }

  /** Batches first-fit: each case in the first batch none of whose pointers touches its own. */
  #plan(): number[] {
    const batches: CreateRefusal[][] = [];
    return this.#cases.map((c) => {
      let i = batches.findIndex((cases) => !cases.some((other) => clash(other, c)));
      if (i < 0) i = batches.push([]) - 1;
      batches[i].push(c);
      return i;
    });
  }

  async #batch(index: number): Promise<Exchange> {
    const body = await this.#data.validBody(this.#resource, { as: this.#as, refs: 'shared' });
    const mine = this.#cases.filter((_, i) => this.#batchOf![i] === index).sort((a, b) => depth(b.pointer) - depth(a.pointer));
    const path = await this.#data.createPath(this.#resource, body, this.#as);
    for (const c of mine) await c.change(body);
    const ex = await this.#ctx.call(this.#create.method, path, { body, as: this.#as ?? null });
    // A service that wrongly accepts it made a record: removed at once, as a lone breach's would be.
    await this.#data.discard(this.#resource, ex, this.#as);
    return ex;
  }

  /**
   * Whether the batched create holding the case was refused naming its pointer (sent on first
   * need). False: the batch is no evidence either way, and the case is sent alone.
   */
  async holds(handle: number): Promise<boolean> {
    // An error shape with no list of violations names no pointer: a batch's refusal says nothing of each breach in it.
    if (!this.#ctx.spec.errors.shape?.members.errors) return false;
    this.#batchOf ??= this.#plan();
    const index = this.#batchOf[handle];
    // Alone in its batch, a batch is the lone create: nothing saved, so the caller sends its own.
    if (this.#batchOf.filter((b) => b === index).length < 2) return false;
    let sent = this.#sent.get(index);
    if (!sent) this.#sent.set(index, (sent = this.#batch(index)));
    const ex = await sent;
    try {
      expectError(this.#ctx, ex, 'validation-failed', this.#cases[handle].pointer);
      return true;
    } catch (error) {
      if (error instanceof Failure) return false;
      throw error;
    }
  }
}
