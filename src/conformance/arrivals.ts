/**
 * Things that arrive while the tester waits (webhook deliveries, stream events), and the
 * wait itself: until a look at what has arrived finds something, or a deadline passes.
 * Deadlines are absolute (epoch ms), so checks that wait one after another for events
 * triggered together wait no longer in all than the time-out of one.
 */
export class Arrivals<T> {
  readonly items: T[] = [];
  #ended = false;
  readonly #wake = new Set<() => void>();

  push(item: T): void {
    this.items.push(item);
    this.#notify();
  }

  /** Nothing more will arrive (the stream closed): waits end now. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** What `find` finds in the items, as soon as it finds it; undefined once the deadline passed or nothing more can arrive. */
  async until<R>(find: (items: readonly T[]) => R | undefined, deadline: number): Promise<R | undefined> {
    for (;;) {
      const found = find(this.items);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.#ended) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#wake.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.#wake.add(done);
      });
    }
  }

  #notify(): void {
    for (const wake of [...this.#wake]) wake();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
