/**
 * The bulk-create convention of the format (`operation: bulk-create`), read by serve,
 * export and the tester alike (docs/format.md "Bulk writes"):
 *
 *   request   POST /{plural}/bulk  `{ "items": [ <a create's body>, ... ] }`, 1 to `max` items,
 *             no other member
 *   success   201 `{ "items": [ <the records, as a read shows them, in order> ] }`
 *   failure   422 validation-failed listing every failing item's member by its pointer
 *             (`/items/3/title`); nothing is written (one transaction, all or nothing)
 *   events    one per record, as its single create would emit
 */

/** The member of the request and of the response that holds the items. */
export const BULK_ITEMS = 'items';

/** The pointer of a member of the index-th item: `/items/3` + `/title`. */
export function itemPointer(index: number, pointer = ''): string {
  return `/${BULK_ITEMS}/${index}${pointer}`;
}

/** The refusal of an item count outside 1..max, in words. */
export function countProblem(count: number, max: number | undefined): string | undefined {
  if (count === 0) return 'must hold at least one item';
  if (max !== undefined && count > max) return `holds ${count} items; at most ${max} are allowed in one request`;
  return undefined;
}
