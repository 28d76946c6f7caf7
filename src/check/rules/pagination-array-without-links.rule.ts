import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unreachable = defineDiagnostic({
  code: 'pagination-array-without-links',
  severity: 'error',
  part: 'limits',
  message: 'Pages are bare arrays and carry no links (`links: []`): a client has no way to find the page after the first.',
  description: 'A bare array has no member for the next position, so the next page can only be linked by `Link: <…>; rel="next"` (RFC 8288). State `links: [next]`, or give the page a body with a `next` member.',
});

export default defineRule({
  name: 'pagination-array-without-links',
  diagnostics: [unreachable],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    if (!pg || pg.body.kind !== 'array' || pg.links === undefined || pg.links.includes('next')) return;
    ctx.report(unreachable, {}, child(pg.pointer, 'links'));
  },
});
