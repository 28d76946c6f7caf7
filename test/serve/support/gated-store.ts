/**
 * A Store whose reads wait at a gate until N of them have arrived, so that N concurrent
 * requests all read a record before any of them writes it: the interleaving that
 * compare-and-set must survive, made certain instead of left to timing.
 */
import type { Store, StoredRecord } from '../../../src/store/store.ts';

export function gatedStore(inner: Store): { store: Store; gate(n: number): Promise<void> } {
  let waiting: (() => void)[] = [];
  let needed = 0;
  let opened: () => void = () => {};
  const store: Store = {
    kind: inner.kind,
    migrate: (r) => inner.migrate(r),
    insert: (r, rec, o) => inner.insert(r, rec, o),
    insertMany: (r, recs, o) => inner.insertMany(r, recs, o),
    changeMany: (r, cs, o) => inner.changeMany(r, cs, o),
    get,
    update: (r, id, d, e, o) => inner.update(r, id, d, e, o),
    remove: (r, id, e, o) => inner.remove(r, id, e, o),
    list: inner.list.bind(inner),
    count: (r, q) => inner.count(r, q),
    getIdempotent: (s, k) => inner.getIdempotent(s, k),
    putIdempotent: (s, k, v) => inner.putIdempotent(s, k, v),
    expireIdempotent: (b) => inner.expireIdempotent(b),
    credentials: inner.credentials,
    events: inner.events,
    close: () => inner.close(),
  };
  async function get(resource: string, id: string): Promise<StoredRecord | undefined> {
    if (needed > 0) {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === needed) {
          needed = 0;
          for (const go of waiting) go();
          waiting = [];
          opened();
        }
      });
    }
    return inner.get(resource, id);
  }
  return {
    store,
    /** Holds the next n reads until all n have arrived; resolves when they are let through. */
    gate: (n: number) =>
      new Promise<void>((resolve) => {
        needed = n;
        opened = resolve;
      }),
  };
}
