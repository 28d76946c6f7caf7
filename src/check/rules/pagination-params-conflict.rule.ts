import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const conflict = defineDiagnostic({
  code: 'pagination-params-conflict',
  severity: 'error',
  part: 'limits',
  message: "The page size and the page position are both read from the query parameter '{param}'.",
  description: 'The size and the position (cursor or offset) of a page are two query parameters; they need two names. Rename one in `pagination.params`.',
});

export default defineRule({
  name: 'pagination-params-conflict',
  diagnostics: [conflict],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    if (pg && pg.sizeParam === pg.positionParam) ctx.report(conflict, { param: pg.sizeParam }, child(pg.pointer, 'params'));
  },
});
