/**
 * Who sees an event (docs/events.md): a principal that could read the record. It holds the
 * scopes of the resource's read endpoint (its list endpoint's when it has no read), and, for
 * an owned resource, it is the record's owner. Without authentication everyone sees every
 * event; a subscription the operator configured sees every event.
 */
import { hasOwner } from '../../spec/conventions/ownership.ts';
import type { Spec } from '../../spec/model.ts';
import type { EventRecord } from '../../store/events.ts';

/** Who is looking: the owner key and scopes of a principal, or the operator. */
export type Viewer = { readonly principal: string; readonly scopes: ReadonlySet<string> | readonly string[] } | 'operator';

export function visibility(spec: Spec): (event: EventRecord, viewer: Viewer) => boolean {
  const guarded = spec.parts.authentication.statement === 'given' && spec.authentication.schemes.length > 0;
  const rules = new Map<string, { owned: boolean; scopes: readonly string[] }>();
  for (const r of spec.resources) {
    const reader = spec.endpoints.find((e) => e.resource === r.name && e.operation === 'read') ?? spec.endpoints.find((e) => e.resource === r.name && e.operation === 'list');
    rules.set(r.name, { owned: hasOwner(r), scopes: reader?.auth && !reader.auth.public ? reader.auth.scopes : [] });
  }
  return (event, viewer) => {
    if (!guarded || viewer === 'operator') return true;
    const rule = rules.get(event.resource);
    if (!rule) return false;
    if (rule.owned && event.owner !== viewer.principal) return false;
    const held = viewer.scopes;
    return rule.scopes.every((s) => (Array.isArray(held) ? held.includes(s) : (held as ReadonlySet<string>).has(s)));
  };
}
