import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Endpoint } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { given, written } from './support.ts';

const undeclared = defineDiagnostic({
  code: 'endpoint-error-status-undeclared',
  severity: 'warning',
  part: 'endpoints',
  message: "Endpoint '{endpoint}'{others} answers {status} with an error body, but no code of the errors catalog has status {status}.",
  description: 'An error response carries a code from the errors catalog; a status for which the catalog has no code leaves a builder without one to send. Add a catalog entry with that status, or correct the status. Said once per status, at the first endpoint that answers it (an imported document gives statuses, not codes, to hundreds of responses).',
});

export default defineRule({
  name: 'endpoint-error-status-undeclared',
  diagnostics: [undeclared],
  spec(ctx) {
    if (!given(ctx, 'errors')) return;
    const byStatus = new Map<number, Endpoint[]>();
    for (const endpoint of ctx.spec.endpoints) {
      if (!written(ctx, child(endpoint.pointer, 'responses'))) continue;
      for (const response of endpoint.responses) {
        if (response.body !== 'error' || ctx.index.errorStatuses.has(response.status)) continue;
        const list = byStatus.get(response.status) ?? byStatus.set(response.status, []).get(response.status)!;
        if (!list.includes(endpoint)) list.push(endpoint);
      }
    }
    for (const [status, endpoints] of byStatus) {
      const [first, ...rest] = endpoints as [Endpoint, ...Endpoint[]];
      const others = rest.length === 0 ? '' : ` (and ${rest.length === 1 ? `'${rest[0]!.id}'` : `${rest.length} other endpoints: ${rest.slice(0, 3).map((e) => `'${e.id}'`).join(', ')}${rest.length > 3 ? ', …' : ''}`})`;
      ctx.report(undeclared, { endpoint: first.id, others, status }, child(first.pointer, 'responses', String(status)), { key: true });
    }
  },
});
