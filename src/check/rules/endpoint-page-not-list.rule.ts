import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const notList = defineDiagnostic({
  code: 'endpoint-page-not-list',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' states a page body, but it is a {operation}, which answers no pages.",
  description: 'An endpoint\'s `page` is the body of the pages a list answers, in place of `limits.pagination.body`. Only a `list` answers pages: remove `page`, or make the endpoint a list.',
});

export default defineRule({
  name: 'endpoint-page-not-list',
  diagnostics: [notList],
  spec(ctx) {
    for (const e of ctx.spec.endpoints) {
      if (e.page && e.operation !== 'list') ctx.report(notList, { endpoint: e.id, operation: e.transition ? `transition ('${e.transition}')` : e.operation }, child(e.pointer, 'page'));
    }
  },
});
