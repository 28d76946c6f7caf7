import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given } from './support.ts';

const unused = defineDiagnostic({
  code: 'pagination-without-list',
  severity: 'warning',
  part: 'limits',
  message: 'Pagination is described, but no endpoint lists records, so nothing is paginated.',
  description: 'Pagination bounds apply to `list` endpoints. Add the list endpoints the pagination is meant for, or remove `pagination`.',
});

export default defineRule({
  name: 'pagination-without-list',
  diagnostics: [unused],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    if (!pg || !given(ctx, 'endpoints') || ctx.spec.endpoints.some((e) => e.operation === 'list')) return;
    ctx.report(unused, {}, pg.pointer, { key: true });
  },
});
