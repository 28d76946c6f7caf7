import type { Spec } from '../../spec/model.ts';

/** Part 6: the events and how they are delivered. */
export function missingEvents(spec: Spec): string[] {
  const e = spec.events;
  const missing: string[] = [];
  if (e.catalog.length === 0) missing.push('the events emitted (catalog)');
  if (!e.webhooks && !e.stream) missing.push('how events are delivered (webhooks or stream)');
  return missing;
}
