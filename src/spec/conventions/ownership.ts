/**
 * The ownership convention (parts 2 and 5): whose records a caller sees. An `owned`
 * resource's records belong to the principal that created them; a resource with
 * `visibility: { parent: <field> }` takes its owner from its parent (the record its ref
 * field points to), so it is seen exactly by whoever sees the parent. docs/format.md
 * "Ownership".
 */
import type { Resource } from '../model.ts';

/** Whether the records of a resource have an owner (their own, or their parent's). */
export function hasOwner(resource: Resource): boolean {
  return resource.owned || resource.visibility?.follows === 'parent';
}
