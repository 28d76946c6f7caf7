/**
 * A record read from PostgreSQL: the row of RECORD_COLUMNS (seq, id, version, owner,
 * data::text), its data parsed on first read. `data` is an own enumerable accessor (one
 * shared descriptor), so comparisons and spreads of records see it as a plain member;
 * `json` is the text PostgreSQL gave, which a presenter may send as it is.
 */
import type { StoredRecord } from './store.ts';

export type PgRow = readonly [seq: string | number, id: string, version: number, owner: string | null, data: string];

export class PgRecord implements StoredRecord {
  readonly id: string;
  readonly seq: number;
  readonly version: number;
  declare readonly owner?: string;
  declare readonly data: Readonly<Record<string, unknown>>;
  readonly #json: string;
  #data: Record<string, unknown> | undefined = undefined;

  constructor(row: PgRow) {
    this.id = row[1];
    this.seq = Number(row[0]);
    this.version = row[2];
    if (row[3] !== null) (this as { owner?: string }).owner = row[3];
    this.#json = row[4];
    Object.defineProperty(this, 'data', PgRecord.#lazyData);
  }

  get json(): string {
    return this.#json;
  }

  static readonly #lazyData: PropertyDescriptor = {
    get(this: PgRecord) {
      return (this.#data ??= JSON.parse(this.#json) as Record<string, unknown>);
    },
    enumerable: true,
  };
}
