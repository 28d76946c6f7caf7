import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { given, listOf } from './support.ts';

const unbounded = defineDiagnostic({
  code: 'list-without-pagination',
  severity: 'warning',
  part: 'limits',
  message: 'The limits give no pagination, but {endpoints} list records: their page sizes have no stated default or bound.',
  description: 'A list endpoint answers with pages; `limits.pagination` says their style, default and largest size. Without it a builder must invent them and a tester cannot check them. Add `pagination: {style, defaultSize, maxSize, overMax}`.',
});

export default defineRule({
  name: 'list-without-pagination',
  diagnostics: [unbounded],
  spec(ctx) {
    if (!given(ctx, 'limits') || ctx.spec.limits.pagination) return;
    const lists = ctx.spec.endpoints.filter((e) => e.operation === 'list').map((e) => e.id);
    if (lists.length) ctx.report(unbounded, { endpoints: listOf(lists) }, ctx.spec.parts.limits.pointer, { key: true });
  },
});
