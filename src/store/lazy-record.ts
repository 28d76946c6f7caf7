/**
 * A stored record whose data is parsed on first read, for both adapters (SQLite's and
 * PostgreSQL's rows hold the data as JSON text). `data` is an own enumerable accessor (one
 * shared descriptor, so every record has the same shape), so comparisons and spreads of
 * records see the data as they would a plain object's; `json` is the text as stored, which a
 * presenter may send as it is.
 */
import type { StoredRecord } from './store.ts';

export class LazyRecord implements StoredRecord {
  readonly id: string;
  readonly seq: number;
  readonly version: number;
  declare readonly owner?: string;
  declare readonly data: Readonly<Record<string, unknown>>;
  readonly #json: string;
  #data: Record<string, unknown> | undefined = undefined;

  /** `parsed`: the data `json` says, when the caller has it already (it is then not parsed again). */
  constructor(seq: number, id: string, version: number, owner: string | null, json: string, parsed?: Record<string, unknown>) {
    this.id = id;
    this.seq = seq;
    this.version = version;
    if (owner !== null) (this as { owner?: string }).owner = owner;
    this.#json = json;
    if (parsed !== undefined) this.#data = parsed;
    Object.defineProperty(this, 'data', LazyRecord.#lazyData);
  }

  get json(): string {
    return this.#json;
  }

  static readonly #lazyData: PropertyDescriptor = {
    get(this: LazyRecord) {
      return (this.#data ??= JSON.parse(this.#json) as Record<string, unknown>);
    },
    enumerable: true,
  };
}
