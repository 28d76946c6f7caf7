/**
 * A Map that forgets its oldest entries past a size: what the proxy remembers of records,
 * walks, keys and quotas, and the store's prepared statements, stay bounded however long it
 * runs (a Map iterates in insertion
 * order, so the first key is the oldest; a set of a key again moves it to the end).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #max: number;

  constructor(max = 100_000) {
    super();
    this.#max = max;
  }

  override set(key: K, value: V): this {
    if (this.has(key)) super.delete(key);
    super.set(key, value);
    if (this.size > this.#max) super.delete(this.keys().next().value as K);
    return this;
  }
}
