import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { isBulk } from '../../spec/model.ts';
import { defineRule } from '../rule.ts';

const missing = defineDiagnostic({
  code: 'bulk-max-missing',
  severity: 'error',
  part: 'endpoints',
  message: "Bulk endpoint '{endpoint}' does not say how many items one request may carry: give it `max`.",
  description: 'A bulk write (create, update or delete) writes every item in one transaction; without a bound one request could hold the write lock for any number of records, and a client cannot know how to split its batch. `max: 100` says it; the reference refuses a larger request with 422 at `/items`. No value is supplied where the spec gives none.',
});

export default defineRule({
  name: 'bulk-max-missing',
  diagnostics: [missing],
  endpoint(endpoint, ctx) {
    if (isBulk(endpoint.operation) && endpoint.bulk?.max === undefined) ctx.report(missing, { endpoint: endpoint.id }, endpoint.pointer, { key: true });
  },
});
