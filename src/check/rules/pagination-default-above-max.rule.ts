import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const above = defineDiagnostic({
  code: 'pagination-default-above-max',
  severity: 'error',
  part: 'limits',
  message: 'The default page size ({defaultSize}) is above the largest page size ({maxSize}).',
  description: '`defaultSize` is the page size when a client asks for none; it must not exceed `maxSize`, the most a client may ask for. Lower `defaultSize` or raise `maxSize`.',
});

export default defineRule({
  name: 'pagination-default-above-max',
  diagnostics: [above],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    if (pg?.defaultSize !== undefined && pg.maxSize !== undefined && pg.defaultSize > pg.maxSize) ctx.report(above, { defaultSize: pg.defaultSize, maxSize: pg.maxSize }, child(pg.pointer, 'defaultSize'));
  },
});
